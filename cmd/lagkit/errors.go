package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a command line that cannot be run as given: an unknown
// command or flag, a wrong number of arguments, a flag value out of
// range. lagkit exits with status 2 for it.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// stoppedError is a live study stopped by a signal (SIGINT, SIGTERM)
// before it was over: it can be resumed. lagkit exits with status 3 for
// it, so that a script tells a stop from a study played to its end
// (status 0) and from a failure (status 1).
type stoppedError struct{ msg string }

func (e stoppedError) Error() string { return e.msg }

// exitStopped is the exit status of a stopped live study.
const exitStopped = 3

// exitCode is 2 for usage errors, 3 for a stopped live study and 1 for
// every other error.
func exitCode(err error) int {
	if errors.As(err, new(stoppedError)) {
		return exitStopped
	}
	var u usageError
	// cobra reports an unknown subcommand of the root and a required flag
	// left out as plain errors.
	msg := err.Error()
	if errors.As(err, &u) || strings.HasPrefix(msg, "unknown command ") || strings.HasPrefix(msg, "required flag(s) ") {
		return 2
	}
	return 1
}

// markUsageErrors makes cmd and its subcommands report flag parsing and
// argument count errors as usage errors, and makes a command group given
// an unknown subcommand say so rather than print its help.
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usagef("%s: %w (usage: %s)", c.CommandPath(), err, c.UseLine())
			}
			return nil
		}
	}
	if cmd.HasParent() && cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			var names []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			if len(args) == 0 {
				return usagef("%s needs a command: %s", c.CommandPath(), strings.Join(names, ", "))
			}
			return usagef("unknown command %q for %s (commands: %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
		}
	}
	for _, sub := range cmd.Commands() {
		markUsageErrors(sub)
	}
}

// packagePrefix matches the package name with which lagkit's packages
// start their errors ("server: ", "scenario: "), at the start of the
// message or after another error's prefix. Those names help a Go caller
// find where an error came from; a person at the command line needs only
// what was wrong.
var packagePrefix = regexp.MustCompile(`(^|: |\()(?:agones|bot|bridge|client|delay|experiment|flood|game|geom|lagcomp|live|match|mode|nav|netem|realtime|reckoning|record|report|rtt|scenario|server|sim|stats|store|study|token|transport|web|wire|world): `)

// filePosition matches the end of a place in a file, as in
// "serve.toml:4:1: ": what follows it is a key of the file (a field
// named match, delay or scenario), never a package's name.
var filePosition = regexp.MustCompile(`:\d+:\d+: $`)

// goSlice matches a list of two or more words printed with %v of a Go
// slice, as in "(known: [dead led])".
var goSlice = regexp.MustCompile(`\[([A-Za-z0-9][\w.-]*(?: [A-Za-z0-9][\w.-]*)+)\]`)

// strconvPrefix matches what strconv adds to a flag value's parse error
// ("strconv.ParseInt: parsing "x": "), which repeats the flag's message.
var strconvPrefix = regexp.MustCompile(`strconv\.\w+: parsing "[^"]*": `)

// userMessage formats err for a person: without Go package prefixes and
// with slices printed as comma-separated lists.
func userMessage(err error) string {
	s := strconvPrefix.ReplaceAllString(err.Error(), "")
	for {
		t := stripPackagePrefix(s)
		if t == s {
			break
		}
		s = t
	}
	return goSlice.ReplaceAllStringFunc(s, func(m string) string {
		return strings.Join(strings.Fields(m[1:len(m)-1]), ", ")
	})
}

// stripPackagePrefix removes the package prefixes of s that do not
// follow a place in a file.
func stripPackagePrefix(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range packagePrefix.FindAllStringSubmatchIndex(s, -1) {
		name := m[3] // the end of what precedes the package's name
		if filePosition.MatchString(s[:name]) {
			continue
		}
		b.WriteString(s[last:name])
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

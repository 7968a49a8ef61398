package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/realtime"
)

// The documents' commands are checked against the command tree they
// name: README.md and every guide under docs/ show lagkit command lines
// in ```sh blocks and in inline code, and a renamed flag or subcommand
// would leave a newcomer with a command that fails. A block is run for
// real, in a scratch folder that sees the repository's files, unless
// the line before its fence says why not: <!-- not run: REASON --> (a
// run of minutes, a server that runs until stopped, a browser). Every
// command is still checked: its subcommand, each flag's name and value,
// and its number of arguments, by the same cobra tree the binary runs.
// <!-- check: serve-config --> before a ```toml block parses it as a
// lagkit serve --config file; <!-- file: NAME --> writes the block into
// the scratch folder as NAME before the document's commands run, so
// that a guide's example file is the one its commands use.
// <!-- quote: FILE NAME --> before a block says it is the region NAME of
// the repository's FILE, byte for byte (TestDocsQuotes).

// docCommandDeadline bounds one documented command run for real: a
// command still running after it belongs in a block marked not run.
const docCommandDeadline = 2 * time.Minute

// repoRoot is the repository's top folder, seen from cmd/lagkit.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return root
}

// docFiles are README.md and the guides, relative to the root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		rel, _ := filepath.Rel(root, g)
		files = append(files, rel)
	}
	return files
}

// docBlock is a fenced code block of a Markdown file.
type docBlock struct {
	line   int    // the fence's line, from 1
	lang   string // the fence's info string: sh, toml, go, ...
	text   string
	notRun string // the reason of a <!-- not run: ... --> marker
	check  string // the kind of a <!-- check: ... --> marker
	file   string // the name of a <!-- file: ... --> marker
	quote  string // the "FILE NAME" of a <!-- quote: ... --> marker
}

// docText is a Markdown file split into its fenced blocks and the prose
// around them (each prose line with its number).
type docText struct {
	blocks []docBlock
	prose  []proseLine
}

type proseLine struct {
	line int
	text string
}

var (
	notRunMarker = regexp.MustCompile(`^<!--\s*not run:\s*(.*?)\s*-->$`)
	checkMarker  = regexp.MustCompile(`^<!--\s*check:\s*(\S+)\s*-->$`)
	fileMarker   = regexp.MustCompile(`^<!--\s*file:\s*(\S+)\s*-->$`)
	quoteMarker  = regexp.MustCompile(`^<!--\s*quote:\s*(\S+ \S+)\s*-->$`)
)

// parseDoc splits Markdown into fenced blocks and prose. A marker
// comment applies to the block whose fence follows it, blank lines
// between allowed.
func parseDoc(src string) (docText, error) {
	var d docText
	lines := strings.Split(src, "\n")
	var notRun, check, file, quote string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if fence, ok := strings.CutPrefix(l, "```"); ok {
			b := docBlock{line: i + 1, lang: strings.TrimSpace(fence), notRun: notRun, check: check, file: file, quote: quote}
			notRun, check, file, quote = "", "", "", ""
			var body []string
			closed := false
			for i++; i < len(lines); i++ {
				if strings.TrimSpace(lines[i]) == "```" {
					closed = true
					break
				}
				body = append(body, lines[i])
			}
			if !closed {
				return d, fmt.Errorf("line %d: code block never closed", b.line)
			}
			b.text = strings.Join(body, "\n")
			d.blocks = append(d.blocks, b)
			continue
		}
		if m := notRunMarker.FindStringSubmatch(l); m != nil {
			if m[1] == "" {
				return d, fmt.Errorf("line %d: a not-run marker must say why", i+1)
			}
			notRun = m[1]
			continue
		}
		if m := checkMarker.FindStringSubmatch(l); m != nil {
			check = m[1]
			continue
		}
		if m := fileMarker.FindStringSubmatch(l); m != nil {
			if m[1] != filepath.Base(m[1]) || strings.HasPrefix(m[1], ".") {
				return d, fmt.Errorf("line %d: a file marker names a file in the scratch folder, not %q", i+1, m[1])
			}
			file = m[1]
			continue
		}
		if m := quoteMarker.FindStringSubmatch(l); m != nil {
			quote = m[1]
			continue
		}
		if l != "" {
			notRun, check, file, quote = "", "", "", ""
		}
		d.prose = append(d.prose, proseLine{i + 1, lines[i]})
	}
	return d, nil
}

// shellCommands splits shell text into simple commands, each a list of
// words: continuation lines are joined, comments dropped, quotes
// removed, and the commands of a list or pipeline (;, &, &&, ||, |)
// separated; a redirection's target is dropped with its operator.
func shellCommands(text string) ([][]string, error) {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != c {
				if c == '"' && rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				j++
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord = true
			i = j
		case c == '\\' && i+1 < len(rs):
			word.WriteRune(rs[i+1])
			inWord = true
			i++
		case c == '$' && i+1 < len(rs) && rs[i+1] == '(':
			// A command substitution stays one word, unexpanded.
			depth := 0
			j := i + 1
			for ; j < len(rs); j++ {
				if rs[j] == '(' {
					depth++
				} else if rs[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j >= len(rs) {
				return nil, errors.New("unterminated $(")
			}
			word.WriteString(string(rs[i : j+1]))
			inWord = true
			i = j
		case c == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			endCmd()
		case c == '\n' || c == ';' || c == '&' || c == '|':
			endCmd()
		case c == '>' || c == '<':
			// A redirection: its file descriptor, operator and target
			// are no words of the command.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&') {
				i++
			}
			for i+1 < len(rs) && (rs[i+1] == ' ' || rs[i+1] == '\t') {
				i++
			}
			for i+1 < len(rs) && !strings.ContainsRune(" \t\n;&|", rs[i+1]) {
				i++
			}
		case c == ' ' || c == '\t':
			endWord()
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	endCmd()
	return cmds, nil
}

var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// lagkitArgs returns the arguments of a lagkit command line: lagkit ...,
// ./lagkit ... (a built binary) or go run ./cmd/lagkit ..., after any
// environment assignments.
func lagkitArgs(words []string) ([]string, bool) {
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, false
	}
	if words[0] == "lagkit" || strings.HasSuffix(words[0], "/lagkit") {
		return words[1:], true
	}
	if words[0] == "go" && len(words) >= 3 && words[1] == "run" {
		pkg, _, _ := strings.Cut(words[2], "@")
		if pkg == "./cmd/lagkit" || strings.HasSuffix(pkg, "/cmd/lagkit") {
			return words[3:], true
		}
	}
	return nil, false
}

// checkNames checks that args name a lagkit command and only flags it
// has: each word before the first argument must be a subcommand of the
// one before while there are subcommands, and each --flag (or -f) must
// be the command's. Values and arguments are not checked, so that prose
// can write --out DIR.
func checkNames(args []string) error {
	cmd := newRoot()
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 && !isNumber(a) {
			f, err := lookupFlag(cmd, a)
			if err != nil {
				return err
			}
			if f.NoOptDefVal == "" && !strings.Contains(a, "=") {
				i++ // its value
			}
			continue
		}
		if !positional && cmd.HasSubCommands() {
			sub := findSub(cmd, a)
			if sub == nil {
				return fmt.Errorf("unknown command %q for %s", a, cmd.CommandPath())
			}
			cmd = sub
			continue
		}
		positional = true
	}
	return nil
}

func isNumber(s string) bool {
	_, err := fmt.Sscanf(s, "%g", new(float64))
	return err == nil
}

// lookupFlag finds the flag a word names among cmd's own and inherited
// flags.
func lookupFlag(cmd *cobra.Command, word string) (*pflag.Flag, error) {
	name, _, _ := strings.Cut(word, "=")
	var f *pflag.Flag
	if long, ok := strings.CutPrefix(name, "--"); ok {
		f = cmd.Flags().Lookup(long)
		if f == nil {
			f = cmd.InheritedFlags().Lookup(long)
		}
		if f == nil && (long == "help" || (long == "version" && !cmd.HasParent())) {
			return &pflag.Flag{Name: long, NoOptDefVal: "true"}, nil
		}
	} else {
		short := strings.TrimPrefix(name, "-")
		f = cmd.Flags().ShorthandLookup(short)
		if f == nil {
			f = cmd.InheritedFlags().ShorthandLookup(short)
		}
		if f == nil && (short == "h" || (short == "v" && !cmd.HasParent())) {
			return &pflag.Flag{Name: short, NoOptDefVal: "true"}, nil
		}
	}
	if f == nil {
		return nil, fmt.Errorf("unknown flag %s for %s", name, cmd.CommandPath())
	}
	return f, nil
}

func findSub(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// checkCommandLine checks a whole command line as lagkit would parse it:
// its names (checkNames), then each flag's value by its type, the number
// of arguments, and that it names a command that runs rather than a
// group of commands.
func checkCommandLine(args []string) error {
	if err := checkNames(args); err != nil {
		return err
	}
	root := newRoot()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	// cobra adds --help and the root's --version as it executes.
	root.InitDefaultVersionFlag()
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); errors.Is(err, pflag.ErrHelp) {
		return nil
	} else if err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	if v, _ := cmd.Flags().GetBool("version"); v && !cmd.HasParent() {
		return nil
	}
	if !cmd.Runnable() || cmd.HasSubCommands() {
		return fmt.Errorf("%s needs a command", cmd.CommandPath())
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return err
	}
	return cmd.ValidateRequiredFlags()
}

// checkPaths checks that every word of a command that names a path in
// the repository (its first element is a top-level file or folder:
// presets/alc.toml, ./web/, deploy/fleet.yaml) names one that exists.
func checkPaths(root string, words []string) error {
	for _, w := range words {
		p := strings.TrimSuffix(strings.TrimPrefix(w, "./"), "...")
		p = strings.TrimSuffix(p, "/")
		if p == "" || strings.Contains(p, ":") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "-") || strings.HasPrefix(p, "..") || strings.ContainsAny(p, "$=") {
			continue
		}
		first, _, nested := strings.Cut(p, "/")
		if !nested && !strings.HasPrefix(w, "./") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, first)); err != nil {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(root, p))
		if len(matches) == 0 {
			return fmt.Errorf("%s: no such file or folder in the repository", w)
		}
	}
	return nil
}

var (
	inlineCode = regexp.MustCompile("`([^`]+)`")
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s+(\S+)`)
	heading    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// docCommand is a lagkit command line a document shows.
type docCommand struct {
	line   int
	args   []string
	block  bool   // in a ```sh block, rather than inline code
	notRun string // the block's not-run reason ("" runs it)
}

// commandsOf returns the lagkit command lines of a document, and checks
// on the way that its other commands' repository paths exist.
func commandsOf(root string, d docText) ([]docCommand, []error) {
	var cmds []docCommand
	var errs []error
	for _, b := range d.blocks {
		if b.lang != "sh" && b.lang != "bash" && b.lang != "shell" {
			continue
		}
		lines, err := shellCommands(b.text)
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %v", b.line, err))
			continue
		}
		for _, words := range lines {
			if err := checkPaths(root, words); err != nil {
				errs = append(errs, fmt.Errorf("block at line %d: %s: %v", b.line, strings.Join(words, " "), err))
			}
			if args, ok := lagkitArgs(words); ok {
				cmds = append(cmds, docCommand{line: b.line, args: args, block: true, notRun: b.notRun})
			}
		}
	}
	for _, p := range d.prose {
		for _, m := range inlineCode.FindAllStringSubmatch(p.text, -1) {
			words := strings.Fields(m[1])
			if args, ok := lagkitArgs(words); ok {
				cmds = append(cmds, docCommand{line: p.line, args: args})
			}
		}
	}
	return cmds, errs
}

// checkDocCommands checks every command line of a document without
// running any.
func checkDocCommands(root string, d docText) []error {
	cmds, errs := commandsOf(root, d)
	for _, c := range cmds {
		check := checkNames
		if c.block {
			check = checkCommandLine
		}
		if err := check(c.args); err != nil {
			errs = append(errs, fmt.Errorf("line %d: lagkit %s: %v", c.line, strings.Join(c.args, " "), err))
		}
	}
	for _, b := range d.blocks {
		switch b.check {
		case "":
		case "serve-config":
			if _, err := realtime.ParseFile("block", []byte(b.text)); err != nil {
				errs = append(errs, fmt.Errorf("serve config at line %d: %v", b.line, err))
			}
		default:
			errs = append(errs, fmt.Errorf("line %d: unknown check %q", b.line, b.check))
		}
	}
	return errs
}

// slug is the anchor GitHub gives a heading.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the heading anchors of a Markdown document.
func anchors(d docText) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, p := range d.prose {
		m := heading.FindStringSubmatch(p.text)
		if m == nil {
			continue
		}
		s := slug(strings.ReplaceAll(m[2], "`", ""))
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// checkLinks checks that every relative link of the document at file
// (relative to root) names a file or folder that exists and, into a
// Markdown file, a heading it has.
func checkLinks(root, file string, d docText) []error {
	var errs []error
	for _, p := range d.prose {
		text := inlineCode.ReplaceAllString(p.text, "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(text); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			full := filepath.Join(root, file)
			if path != "" {
				full = filepath.Join(root, filepath.Dir(file), path)
			}
			if _, err := os.Stat(full); err != nil {
				errs = append(errs, fmt.Errorf("line %d: link %s: no such file", p.line, target))
				continue
			}
			if anchor == "" || !strings.HasSuffix(full, ".md") {
				continue
			}
			src, err := os.ReadFile(full)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			td, err := parseDoc(string(src))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", target, err))
				continue
			}
			if !anchors(td)[anchor] {
				errs = append(errs, fmt.Errorf("line %d: link %s: no heading #%s there", p.line, target, anchor))
			}
		}
	}
	return errs
}

func readDoc(t *testing.T, root, file string) docText {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseDoc(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return d
}

// TestDocsCommandsExist checks every lagkit command line of README.md
// and the guides against the command tree, and every relative link.
func TestDocsCommandsExist(t *testing.T) {
	root := repoRoot(t)
	total := 0
	for _, file := range docFiles(t, root) {
		d := readDoc(t, root, file)
		cmds, _ := commandsOf(root, d)
		total += len(cmds)
		for _, err := range checkDocCommands(root, d) {
			t.Errorf("%s: %v", file, err)
		}
		for _, err := range checkLinks(root, file, d) {
			t.Errorf("%s: %v", file, err)
		}
	}
	if total == 0 {
		t.Fatal("no lagkit command found in the documents")
	}
}

// TestDocsCommandsRun runs every command of a ```sh block not marked
// <!-- not run: ... -->, in order, one scratch folder per document (so
// that a block may use what an earlier one wrote), which sees the
// repository's files through links: lagkit must exit 0.
func TestDocsCommandsRun(t *testing.T) {
	root := repoRoot(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, file := range docFiles(t, root) {
		d := readDoc(t, root, file)
		cmds, _ := commandsOf(root, d)
		var runs []docCommand
		for _, c := range cmds {
			if c.block && c.notRun == "" {
				runs = append(runs, c)
			}
		}
		if len(runs) == 0 {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".md"), func(t *testing.T) {
			dir := t.TempDir()
			for _, e := range entries {
				if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			for _, b := range d.blocks {
				if b.file != "" {
					if err := os.WriteFile(b.file, []byte(b.text+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, c := range runs {
				if why := mustNotRun(c.args); why != "" {
					t.Fatalf("%s:%d: lagkit %s %s: mark its block <!-- not run: REASON -->", file, c.line, strings.Join(c.args, " "), why)
				}
				if err := writesIntoRepo(c.args, entries); err != nil {
					t.Fatalf("%s:%d: lagkit %s: %v", file, c.line, strings.Join(c.args, " "), err)
				}
				args := expandGlobs(c.args)
				ctx, cancel := context.WithTimeout(context.Background(), docCommandDeadline)
				var out bytes.Buffer
				code := execute(ctx, args, &out, &out)
				late := ctx.Err() != nil
				cancel()
				if late {
					t.Fatalf("%s:%d: lagkit %s still ran after %v: mark its block <!-- not run: REASON -->", file, c.line, strings.Join(c.args, " "), docCommandDeadline)
				}
				if code != 0 {
					t.Fatalf("%s:%d: lagkit %s exited %d:\n%s", file, c.line, strings.Join(c.args, " "), code, tail(out.String(), 2000))
				}
				t.Logf("%s:%d: lagkit %s: ok", file, c.line, strings.Join(c.args, " "))
				ran++
			}
		})
	}
	if ran == 0 {
		t.Fatal("no documented command was run")
	}
}

// mustNotRun says why a command cannot be run by the test, or "": a
// server runs until stopped, and bots and floods need one to play
// against.
func mustNotRun(args []string) string {
	cmd, rest, err := newRoot().Find(args)
	if err != nil {
		return ""
	}
	has := func(flag string) bool {
		for _, a := range rest {
			if a == flag || strings.HasPrefix(a, flag+"=") {
				return true
			}
		}
		return false
	}
	if has("--help") || has("-h") {
		return ""
	}
	switch cmd.CommandPath() {
	case "lagkit serve":
		return "serves until stopped"
	case "lagkit study run":
		if !has("--simulate") {
			return "serves a live study until it is over"
		}
	case "lagkit bots", "lagkit flood":
		return "needs a server to play against"
	}
	return ""
}

// outputFlags are the flags whose value lagkit writes to.
var outputFlags = map[string]bool{"out": true, "db": true, "image": true, "paths": true}

// writesIntoRepo refuses a command that would write through the scratch
// folder's links into the repository: an output flag whose path starts
// with one of its top-level names (--out report would write into the
// report package).
func writesIntoRepo(args []string, entries []os.DirEntry) error {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !outputFlags[name] {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				continue
			}
			value = args[i+1]
		}
		first, _, _ := strings.Cut(filepath.ToSlash(filepath.Clean(value)), "/")
		for _, e := range entries {
			if e.Name() == first {
				return fmt.Errorf("--%s %s writes into the repository's %s: name another folder", name, value, first)
			}
		}
	}
	return nil
}

func expandGlobs(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.ContainsAny(a, "*?[") {
			if m, _ := filepath.Glob(a); len(m) > 0 {
				out = append(out, m...)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// TestDocsCheckerCatches shows that the checks fail on what they are
// for: a flag or subcommand that does not exist, a bad flag value, a
// group of commands given alone, a missing file, a broken link or
// anchor, a bad serve config.
func TestDocsCheckerCatches(t *testing.T) {
	root := repoRoot(t)
	doc := func(src string) docText {
		d, err := parseDoc(src)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bad := []struct {
		name, src, want string
	}{
		{"unknown flag in a block", "```sh\ngo run ./cmd/lagkit sim --players 8 --frobnicate 3\n```\n", "unknown flag --frobnicate for lagkit sim"},
		{"unknown subcommand in a block", "```sh\nlagkit experiment launch alc\n```\n", `unknown command "launch" for lagkit experiment`},
		{"unknown top-level command", "```sh\nlagkit simulate --players 8\n```\n", `unknown command "simulate" for lagkit`},
		{"unknown flag in a not-run block", "<!-- not run: runs until stopped -->\n```sh\n./lagkit serve --listen 127.0.0.1:8443 --webrtc\n```\n", "unknown flag --webrtc for lagkit serve"},
		{"unknown flag in prose", "Run `lagkit bench --live --threads 4` to see.\n", "unknown flag --threads for lagkit bench"},
		{"unknown subcommand in prose", "Then `lagkit study publish --db x.db`.\n", `unknown command "publish" for lagkit study`},
		{"flag of another command", "```sh\nlagkit sim --policy alc\n```\n", "unknown flag --policy for lagkit sim"},
		{"bad flag value", "```sh\nlagkit bots --connect udp://127.0.0.1:4000 --count many\n```\n", `invalid argument "many"`},
		{"a group alone", "```sh\nlagkit study\n```\n", "lagkit study needs a command"},
		{"missing argument", "```sh\nlagkit scenario run\n```\n", "accepts 1 arg"},
		{"missing repository file", "```sh\nlagkit study check presets/nosuch.toml\n```\n", "presets/nosuch.toml: no such file"},
		{"bad serve config", "<!-- check: serve-config -->\n```toml\n[[match]]\ntick_rate = 500\n```\n", "tick_rate"},
	}
	for _, c := range bad {
		errs := checkDocCommands(root, doc(c.src))
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), c.want) {
			t.Errorf("%s: errors %v, want one with %q", c.name, errs, c.want)
		}
	}
	good := "```sh\ngo run ./cmd/lagkit sim --players 8 --duration 10s --json\n" +
		"./lagkit serve --listen 127.0.0.1:8443 &   # runs on\n" +
		"LAGKIT_SOAK=long go test ./realtime -run 'Soak|Flood' -v\n" +
		"lagkit --version\nlagkit study run --help\n```\n" +
		"Prose: `lagkit experiment run NAME --out DIR --shard k/n`, `lagkit study`.\n"
	if errs := checkDocCommands(root, doc(good)); len(errs) > 0 {
		t.Errorf("good document: %v", errs)
	}

	links := []struct{ src, want string }{
		{"See [the guide](docs/nosuch.md).\n", "docs/nosuch.md: no such file"},
		{"See [serving](docs/performance.md#no-such-heading).\n", "no heading #no-such-heading"},
		{"![a picture](docs/images/nosuch.png)\n", "no such file"},
	}
	for _, c := range links {
		errs := checkLinks(root, "README.md", doc(c.src))
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), c.want) {
			t.Errorf("%q: errors %v, want one with %q", c.src, errs, c.want)
		}
	}
	if errs := checkLinks(root, "README.md", doc("[x](docs/images/browser.png) [y](https://example.com/z) `[not](a/link)`\n")); len(errs) > 0 {
		t.Errorf("good links: %v", errs)
	}

	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := writesIntoRepo([]string{"study", "report", "--out", "report"}, entries); err == nil {
		t.Error("--out report (the report package's folder) was let through")
	}
	if err := writesIntoRepo([]string{"study", "report", "--out=study-report", "--db", "my.db"}, entries); err != nil {
		t.Errorf("--out study-report: %v", err)
	}

	for _, c := range []struct {
		args    []string
		refused bool
	}{
		{[]string{"serve", "--listen", "127.0.0.1:8443"}, true},
		{[]string{"study", "run", "my.toml", "--db", "x.db"}, true},
		{[]string{"study", "run", "my.toml", "--simulate"}, false},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000"}, true},
		{[]string{"serve", "--help"}, false},
		{[]string{"sim", "--players", "8"}, false},
	} {
		if got := mustNotRun(c.args) != ""; got != c.refused {
			t.Errorf("mustNotRun(%q) refused %v, want %v", c.args, got, c.refused)
		}
	}

	// A marked block is not run; an unmarked one is, and a marker needs
	// a reason.
	d := doc("<!-- not run: a minute -->\n\n```sh\nlagkit bench\n```\n```sh\nlagkit experiment list\n```\n")
	cmds, _ := commandsOf(root, d)
	if len(cmds) != 2 || cmds[0].notRun != "a minute" || cmds[1].notRun != "" {
		t.Errorf("markers: %+v", cmds)
	}
	if _, err := parseDoc("<!-- not run: -->\n```sh\nlagkit bench\n```\n"); err == nil {
		t.Error("a not-run marker without a reason was taken")
	}
}

// TestShellCommands checks the splitting of shell text into commands.
func TestShellCommands(t *testing.T) {
	got, err := shellCommands("a --x 'y z' # comment\nb \\\n  --c=\"d e\" && c > out.txt; d | e &\nf $(cat t) 2>&1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "--x", "y z"}, {"b", "--c=d e"}, {"c"}, {"d"}, {"e"}, {"f", "$(cat t)"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

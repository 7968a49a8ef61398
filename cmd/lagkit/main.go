// Command lagkit runs lagkit's simulations, servers and experiments.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/experiment"
)

func main() {
	// Ctrl-C cancels the command's context: an experiment run stops
	// starting cells and keeps those that finished. Once it has, the
	// signals' default action is restored, so a second Ctrl-C quits at
	// once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the command line args and returns the process's exit
// code: 0 on success, 2 for a usage error (an unknown command or flag, a
// missing argument, a flag value out of range) and 1 for anything else,
// failed scenario expectations included. Errors are written to stderr
// for people: see userMessage.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	io.WriteString(stderr, "lagkit: "+userMessage(err)+"\n")
	return exitCode(err)
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "lagkit",
		Short:         "Latency compensation toolkit for fast multiplayer shooters",
		Version:       experiment.Build().Describe(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("lagkit {{.Version}}\n")
	root.AddCommand(newSimCmd(), newBenchCmd(), newScenarioCmd(), newMatchCmd(), newExperimentCmd(), newTrendCmd(), newServeCmd(), newBotsCmd(), newFloodCmd(), newStudyCmd())
	markUsageErrors(root)
	return root
}

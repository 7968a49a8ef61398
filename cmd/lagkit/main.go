// Command lagkit runs lagkit's simulations, servers and experiments.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "lagkit:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "lagkit",
		Short:         "Latency compensation toolkit for fast multiplayer shooters",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimCmd(), newScenarioCmd(), newMatchCmd(), newExperimentCmd(), newTrendCmd(), newServeCmd(), newBotsCmd())
	return root
}

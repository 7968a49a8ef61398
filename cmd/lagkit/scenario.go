package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/scenario"
)

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Run scripted hit registration scenarios",
	}
	cmd.AddCommand(newScenarioRunCmd(), newScenarioCheckCmd())
	return cmd
}

// newScenarioRunCmd is lagkit scenario run.
func newScenarioRunCmd() *cobra.Command {
	var (
		policy string
		asJSON bool
	)
	run := &cobra.Command{
		Use:   "run FILE",
		Short: "Run one scenario file and print the outcome of every shot",
		Long: `run plays a scenario file through the real server, clients and emulated
links, and prints every shot: who hit whom, whether the server's test hit,
whether damage was registered, whether the hit was behind cover on the
victim's screen (sbc), the appeal's outcome, how far the server rewound,
how far the victim was moved back, and when the shooter heard of it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if policy != "" && !slices.Contains(lagcomp.Policies.Names(), policy) {
				return usagef("--policy %q: want %s", policy, oneOf(lagcomp.Policies.Names()))
			}
			f, err := scenario.Load(args[0])
			if err != nil {
				return err
			}
			cfg := f.Policy
			if policy != "" && policy != cfg.Name {
				cfg = lagcomp.Config{Name: policy, MaxRTTms: cfg.MaxRTTms, MaxRollbackM: cfg.MaxRollbackM,
					MaxRollbackFastM: cfg.MaxRollbackFastM, FastSpeed: cfg.FastSpeed, LowPingMS: cfg.LowPingMS}
			}
			res, err := f.Run(cfg)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
			}
			res.WriteTable(cmd.OutOrStdout())
			if bad := f.Check(res); len(bad) > 0 {
				for _, b := range bad {
					fmt.Fprintln(cmd.OutOrStdout(), "expectation failed:", b)
				}
				return fmt.Errorf("%d expectation(s) failed", len(bad))
			}
			return nil
		},
	}
	run.Flags().StringVar(&policy, "policy", "", "lag compensation policy, overriding the file's: "+oneOf(lagcomp.Policies.Names())+"; the file's parameters still apply")
	run.Flags().BoolVar(&asJSON, "json", false, "print one JSON object with a shots array")

	return run
}

// newScenarioCheckCmd is lagkit scenario check.
func newScenarioCheckCmd() *cobra.Command {
	var checkJSON bool
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Run scenario files under every policy they state expectations for, and check them",
		Long: `check runs each scenario file under every policy it states expectations
for and prints one line per run: ok, or FAIL with the expectations that
failed. It exits with status 1 when any expectation failed. With --json it
prints one JSON array of runs instead.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, failed, err := scenario.CheckFiles(args)
			if err != nil {
				return err
			}
			if err := printChecks(cmd.OutOrStdout(), runs, checkJSON); err != nil {
				return err
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d scenario runs failed their expectations", failed, len(runs))
			}
			return nil
		},
	}
	check.Flags().BoolVar(&checkJSON, "json", false, "print a JSON array of runs (file, policy, ok, failures)")
	return check
}

// printChecks writes scenario check's runs for people, or as JSON.
func printChecks(w io.Writer, runs []scenario.CheckRun, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(runs)
	}
	for _, r := range runs {
		status := "ok"
		if !r.OK {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%-4s %s under %s\n", status, r.File, r.Policy)
		for _, b := range r.Failures {
			fmt.Fprintln(w, "     ", b)
		}
	}
	return nil
}

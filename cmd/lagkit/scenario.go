package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

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
			if policy != "" && !slices.Contains(policyNames(), policy) {
				return usagef("--policy %q: want %s", policy, oneOf(policyNames()))
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
			printShots(cmd.OutOrStdout(), res)
			if bad := f.Check(res); len(bad) > 0 {
				for _, b := range bad {
					fmt.Fprintln(cmd.OutOrStdout(), "expectation failed:", b)
				}
				return fmt.Errorf("%d expectation(s) failed", len(bad))
			}
			return nil
		},
	}
	run.Flags().StringVar(&policy, "policy", "", "lag compensation policy, overriding the file's: "+oneOf(policyNames())+"; the file's parameters still apply")
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
			runs, failed, err := checkScenarios(args)
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

// checkScenarios runs each file under every policy it states
// expectations for, and counts the runs that failed them.
func checkScenarios(paths []string) (runs []checkRun, failed int, err error) {
	for _, path := range paths {
		f, err := scenario.Load(path)
		if err != nil {
			return nil, 0, err
		}
		for _, p := range f.Policies() {
			cfg := f.Policy
			cfg.Name = p
			res, err := f.Run(cfg)
			if err != nil {
				return nil, 0, err
			}
			run := checkRun{File: path, Policy: p, OK: true, Failures: []string{}}
			for _, b := range f.Check(res) {
				run.OK = false
				run.Failures = append(run.Failures, fmt.Sprint(b))
			}
			if !run.OK {
				failed++
			}
			runs = append(runs, run)
		}
	}
	return runs, failed, nil
}

// printChecks writes scenario check's runs for people, or as JSON.
func printChecks(w io.Writer, runs []checkRun, asJSON bool) error {
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

// checkRun is one scenario file run under one policy by scenario check.
type checkRun struct {
	File     string   `json:"file"`
	Policy   string   `json:"policy"`
	OK       bool     `json:"ok"`
	Failures []string `json:"failures"`
}

func printShots(w io.Writer, r *scenario.Result) {
	fmt.Fprintf(w, "%s under %s: %d shot(s)\n", r.Scenario, r.Policy, len(r.Shots))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\ttime\tshooter\tvictim\tpart\thit\tregistered\tsbc\tappeal\trewind\trollback\tconfirm")
	for _, s := range r.Shots {
		victim, confirm := s.Victim, "-"
		if victim == "" {
			victim = "-"
		}
		if s.ConfirmDelayMS != nil {
			confirm = fmt.Sprintf("%.0f ms", *s.ConfirmDelayMS)
		}
		fmt.Fprintf(tw, "%d\t%.0f ms\t%s\t%s\t%s\t%v\t%v\t%v\t%s\t%.0f ms\t%.2f m\t%s\n",
			s.N, s.TimeMS, s.Shooter, victim, s.Part, s.Hit, s.Registered, s.SBC, s.Appeal, s.RewindMS, s.RollbackM, confirm)
	}
	tw.Flush()
}

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/report"
)

func newExperimentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "experiment",
		Short: "Rerun published studies of latency compensation with bots",
	}
	cmd.AddCommand(newExperimentListCmd(), newExperimentRunCmd(), newExperimentMergeCmd())
	return cmd
}

// newExperimentListCmd is lagkit experiment list.
func newExperimentListCmd() *cobra.Command {
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in experiments",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(experiment.Listing())
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, e := range experiment.Listing() {
				fmt.Fprintf(tw, "%s\t%s\t%d cells (%d with --quick)\n", e.Name, e.Title, e.Cells, e.QuickCells)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print a JSON array of experiments (name, title, design, cells, quick_cells)")
	return list
}

// experimentRun holds lagkit experiment run's flags.
type experimentRun struct {
	opt      experiment.Options
	shard    string
	out      string
	resume   string
	force    bool
	asJSON   bool
	parallel int
}

// newExperimentRunCmd is lagkit experiment run.
func newExperimentRunCmd() *cobra.Command {
	var r experimentRun
	run := &cobra.Command{
		Use:   "run NAME",
		Short: "Run an experiment and write results.json, CSV tables, plots and report.html",
		Long: `run plays an experiment's cells (conditions under seeds) on parallel
workers and writes, in the output folder: results.json, one CSV per table,
an SVG per plot, report.html (self-contained), run.json (the run's
experiment, seed, quick and shard) and cells.jsonl (the raw cell results,
one line per cell as it finishes, which 'experiment merge' combines across
shards).

The output folder must be new or empty unless --force is given. Ctrl-C
stops the run once the cells under way finish, keeping them in
cells.jsonl; --resume DIR continues it, playing only the cells that are
missing, and gives the same results as a run never interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: r.run,
	}
	f := run.Flags()
	f.Uint64Var(&r.opt.Seed, "seed", 1, "random seed")
	f.BoolVar(&r.opt.Quick, "quick", false, "a smaller, faster version of the same design")
	f.StringVar(&r.out, "out", "", "output folder, new or empty (default: a new folder under ./results/)")
	f.BoolVar(&r.force, "force", false, "write into --out even if it is not empty")
	f.StringVar(&r.resume, "resume", "", "continue the interrupted run in this folder (give the same experiment, --seed, --quick and --shard)")
	f.IntVar(&r.parallel, "parallel", 0, "cells run at once (default: one per CPU)")
	f.StringVar(&r.shard, "shard", "", "run only shard k of n of the cells, as k/n")
	f.BoolVar(&r.asJSON, "json", false, "print results.json to stdout")

	return run
}

// run runs the experiment args names with r's flags.
func (r *experimentRun) run(cmd *cobra.Command, args []string) error {
	e, err := experiment.Get(args[0])
	if err != nil {
		return usageError{err}
	}
	if r.opt.Shard, err = experiment.ParseShard(r.shard); err != nil {
		return usageError{fmt.Errorf("--shard: %w", err)}
	}
	if r.parallel < 0 {
		return usagef("--parallel %d: want 0 (one per CPU) or more", r.parallel)
	}
	r.opt.Parallel = r.parallel
	r.opt.Command = commandLine(cmd, args)
	want := experiment.Manifest{Experiment: e.Name, Seed: strconv.FormatUint(r.opt.Seed, 10), Quick: r.opt.Quick, Shard: r.opt.Shard.String()}
	switch {
	case r.resume != "" && r.out != "" && filepath.Clean(r.out) != filepath.Clean(r.resume):
		return usagef("--out %s and --resume %s: a resumed run writes to the folder it resumes", r.out, r.resume)
	case r.resume != "" && r.force:
		return usagef("--force and --resume: a resumed run keeps its folder's cells")
	case r.resume != "":
		r.out = r.resume
		if r.opt.Done, err = resumable(r.resume, want); err != nil {
			return err
		}
	default:
		if r.out == "" {
			r.out = experiment.DefaultOut(e.Name)
		}
		if err := fresh(r.out, r.force); err != nil {
			return err
		}
		if err := experiment.WriteJSON(filepath.Join(r.out, experiment.ManifestFile), want); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	cells, err := experiment.OpenCells(r.out, r.opt.Done)
	if err != nil {
		return err
	}
	defer cells.Close()
	r.opt.OnCell = cells.Add
	r.opt.Progress = experiment.Progress(cmd.ErrOrStderr(), e.Name)
	res, results, err := experiment.Run(cmd.Context(), e, r.opt)
	if err != nil {
		if cmd.Context().Err() != nil {
			return fmt.Errorf("interrupted: %d of %d cells are saved in %s; continue with: %s",
				len(results), len(experiment.Planned(e, r.opt)), filepath.Join(r.out, experiment.CellsFile), want.ResumeCommand(r.out))
		}
		return err
	}
	if err := cells.Close(); err != nil {
		return err
	}
	if err := report.WriteRun(r.out, res, results); err != nil {
		return err
	}
	if r.asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d conditions in %.0f s; report: %s\n",
		e.Name, len(res.Conditions), res.WallS, filepath.Join(r.out, "report.html"))
	return nil
}

// newExperimentMergeCmd is lagkit experiment merge.
func newExperimentMergeCmd() *cobra.Command {
	var (
		mergeOut   string
		mergeForce bool
	)
	merge := &cobra.Command{
		Use:   "merge SHARD_DIR...",
		Short: "Combine the output folders of shards of one experiment run into one report",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if mergeOut == "" {
				return usagef("--out is required")
			}
			res, cells, err := report.Merge(args)
			if err != nil {
				return err
			}
			if err := fresh(mergeOut, mergeForce); err != nil {
				return err
			}
			res.Provenance.Command = commandLine(cmd, args)
			if err := report.WriteRun(mergeOut, res, cells); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: merged %d cells from %d shards; report: %s\n",
				res.Experiment, len(cells), len(args), filepath.Join(mergeOut, "report.html"))
			return nil
		},
	}
	merge.Flags().StringVar(&mergeOut, "out", "", "output folder for the merged results, new or empty")
	merge.Flags().BoolVar(&mergeForce, "force", false, "write into --out even if it is not empty")
	return merge
}

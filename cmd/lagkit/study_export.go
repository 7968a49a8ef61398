package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// defaultDB is the study database study run writes and study export
// reads when --db is not given: an SQLite file in the working folder.
const defaultDB = "lagkit.db"

func newStudyExportCmd() *cobra.Command {
	var dsn, out, ref string
	var force bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a study database as tidy CSV",
		Long: `Export writes the studies in --db (an SQLite file or a postgres:// URL)
to --out as tidy CSV: one file per table (studies, rounds,
participants, sessions, shots, kills, objectives, sbc_reports, answers,
paths, network, events, duels), a header row, one row per observation with its study's id
first; numbers as numbers, booleans as true or false, wall-clock times
in ISO 8601 (UTC), match times and durations in seconds. Rounds are
numbered from 1 in every file and file name, as the reports number them;
seats from 0, as the schedule numbers them. A free-text answer's value
is empty.

The movement paths are also written in the path format lagkit trend
build and lagkit trend replay read, one file per study and round:
paths-study<ID>-round<N>.csv (time_s, player, team, x, y, z, the player
being the seat).

codebook.md beside the files names every column of every file, its unit
and what it means.

--study exports one study, named by its id or its name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			db, err := store.Open(ctx, dsn)
			if err != nil {
				return err
			}
			defer db.Close()
			studies, err := db.Studies(ctx)
			if err != nil {
				return err
			}
			if ref != "" {
				s, err := db.FindStudy(ctx, ref)
				if err != nil {
					return err
				}
				studies = []store.StudyRow{s}
			}
			if len(studies) == 0 {
				return fmt.Errorf("study export: %s holds no study", db)
			}
			if err := emptyOut(out, force); err != nil {
				return err
			}
			files, err := study.Export(ctx, db, studies, out, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %s from %s to %s (%s for lagkit trend)\n",
				count(len(studies), "study", "studies"), db, out, count(files, "path file", "path files"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "db", defaultDB, "study database: an SQLite file, or a postgres:// URL")
	f.StringVar(&out, "out", "", "output folder, new or empty")
	f.StringVar(&ref, "study", "", "export only this study (its id or name)")
	f.BoolVar(&force, "force", false, "write into --out even if it is not empty")
	cmd.MarkFlagRequired("out")
	return cmd
}

// count says n things, in the singular for one.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// defaultDB is the study database study run writes and study export
// reads when --db is not given: an SQLite file in the working folder.
const defaultDB = "lagkit.db"

func newStudyExportCmd() *cobra.Command {
	var dsn, out, ref, session string
	var force bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a study database as tidy CSV",
		Long: `Export writes the studies in --db (an SQLite file or a postgres:// URL)
to --out as tidy CSV: one file per table (studies, rounds,
participants, sessions, shots, kills, objectives, sbc_reports, answers,
paths, network, events, duels), a header row, one row per observation
with its session's id (study) and its study's id (study_id) first; numbers as numbers, booleans as true or false, wall-clock times
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

--study exports one study, every session of it, named by its study id
or by its name when one study has it; --session exports one session,
by its id.`,
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
			switch {
			case ref != "" && session != "":
				return usagef("--study exports a study, --session one session of one: give one of them")
			case ref != "":
				set, err := db.FindStudySet(ctx, ref)
				if err != nil {
					return err
				}
				studies = set.Sessions
			case session != "":
				id, err := strconv.ParseInt(session, 10, 64)
				if err != nil {
					return usagef("--session %q: want a session's id, a number", session)
				}
				row, err := db.FindStudy(ctx, session)
				if err != nil || row.ID != id {
					return fmt.Errorf("study export: %s holds no session %d", db, id)
				}
				studies = []store.StudyRow{row}
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
			sets := map[int64]bool{}
			for _, r := range studies {
				sets[r.Set] = true
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %s (%s) from %s to %s (%s for lagkit trend)\n",
				count(len(sets), "study", "studies"), count(len(studies), "session", "sessions"), db, out, count(files, "path file", "path files"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "db", defaultDB, "study database: an SQLite file, or a postgres:// URL")
	f.StringVar(&out, "out", "", "output folder, new or empty")
	f.StringVar(&ref, "study", "", "export only this study, every session of it (its study id, or its name when one study has it)")
	f.StringVar(&session, "session", "", "export only this session (its id)")
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

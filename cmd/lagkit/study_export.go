package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/record"
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
			files, err := exportStudies(ctx, db, studies, out, cmd.ErrOrStderr())
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

// exportStudies writes studies' tables to out as CSV (saying each
// file's rows on log), their movement paths as path files, and the
// codebook of what it wrote; it returns the number of path files.
func exportStudies(ctx context.Context, db *store.DB, studies []store.StudyRow, out string, log io.Writer) (int, error) {
	for _, name := range store.Tables {
		var n int
		err := writeFile(filepath.Join(out, name+".csv"), func(w io.Writer) (err error) {
			n, err = db.WriteCSV(ctx, w, name, studies)
			return err
		})
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(log, "%s.csv: %d rows\n", name, n)
	}
	files, err := exportTrendPaths(ctx, db, studies, out)
	if err != nil {
		return 0, err
	}
	written := make([]string, 0, len(store.Tables)+1)
	for _, name := range store.Tables {
		written = append(written, name+".csv")
	}
	if files > 0 {
		written = append(written, "paths-study<id>-round<n>.csv")
	}
	return files, study.WriteCodebook(out, "a study database's export", study.ExportCodebook, written)
}

// exportTrendPaths writes each study's movement paths, one file per
// round, in reckoning's path format; it returns the number of files.
func exportTrendPaths(ctx context.Context, db *store.DB, studies []store.StudyRow, out string) (int, error) {
	files := 0
	for _, s := range studies {
		writers := map[int]*reckoning.PathWriter{}
		var open []*os.File
		err := store.Each(ctx, db, s.ID, func(p record.Path) error {
			w := writers[p.Round]
			if w == nil {
				f, err := os.Create(filepath.Join(out, fmt.Sprintf("paths-study%d-round%d.csv", s.ID, p.Round+1)))
				if err != nil {
					return err
				}
				open = append(open, f)
				w = reckoning.NewPathWriter(f)
				writers[p.Round] = w
			}
			return w.Write(reckoning.Sample{T: p.At, Player: p.Seat, Team: p.Team, Pos: geom.V(p.X, p.Y, p.Z)})
		})
		for _, w := range writers {
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
		}
		for _, f := range open {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return files, fmt.Errorf("study export: paths of study %d: %w", s.ID, err)
		}
		files += len(open)
	}
	return files, nil
}

// count says n things, in the singular for one.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

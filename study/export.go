package study

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// Export writes studies' tables to the folder out as CSV (saying each
// file's rows on log), their movement paths as path files in reckoning's
// format (paths-study<ID>-round<N>.csv), and the codebook of what it
// wrote; it returns the number of path files.
func Export(ctx context.Context, db *store.DB, studies []store.StudyRow, out string, log io.Writer) (int, error) {
	for _, name := range store.Tables {
		var n int
		err := writeCSV(filepath.Join(out, name+".csv"), func(w io.Writer) (err error) {
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
	return files, WriteCodebook(out, "a study database's export", ExportCodebook, written)
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

// Pick returns the stored study ref names (its study id, or its name
// when one study has it), or without ref the study of the newest
// session, telling w which others the database holds.
func Pick(ctx context.Context, db *store.DB, ref string, w io.Writer) (store.StudySet, error) {
	if ref != "" {
		return db.FindStudySet(ctx, ref)
	}
	all, err := db.StudySets(ctx)
	if err != nil {
		return store.StudySet{}, err
	}
	var newest store.StudySet
	var at int64
	for _, s := range all {
		for _, r := range s.Sessions {
			if r.ID > at {
				newest, at = s, r.ID
			}
		}
	}
	if at == 0 {
		return store.StudySet{}, fmt.Errorf("study report: %s holds no study", db)
	}
	if len(all) > 1 {
		var others []store.StudySet
		for _, s := range all {
			if s.ID != newest.ID && len(s.Sessions) > 0 {
				others = append(others, s)
			}
		}
		fmt.Fprintf(w, "study report: %s holds %d studies; reporting the newest, %s (--study picks another: %s)\n",
			db, len(others)+1, newest.Describe(), store.DescribeSets(others))
	}
	return newest, nil
}

// writeCSV creates path and fills it with write.
func writeCSV(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

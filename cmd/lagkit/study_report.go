package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

func init() { studyCommands = append(studyCommands, newStudyReportCmd) }

func newStudyReportCmd() *cobra.Command {
	var dsn, out, ref string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write the report of a study in the study database",
		Long: `Report reads a study's records from --db (an SQLite file or a postgres://
URL) and writes its report to --out (default: a new folder under
./results/), as lagkit study run writes it: study.md, study.json, and
the results.json, CSV tables, SVG plots and report.html the experiments
write.

Per technique, the report gives the objective figures (hit accuracy,
overall and of the high-ping shooters; shots behind cover per hit,
overall and on the low-ping victims, at a round trip up to 50 ms; SBC
reports per hit received; rollback distance), the questionnaire (medians
of the Likert and fairness answers, shares of yes, the free-text
answers), Wilcoxon signed-rank tests of each Likert and fairness
question between techniques paired by participant, the SBC reports
against the rollback distance of the hits they were about, in 5 cm
bands, and, for a study named after a preset (alc, atd, timewarp), the
figures its study published beside ours.

Every per-technique figure has its 95% confidence interval (shares:
Wilson score; SBC reports per hit and mean rollback: a cluster bootstrap
by seat from the study's seed), drawn as error bars on the plots. The
main outcome, shots behind cover per hit on the low-ping victims, is
compared between techniques participant by participant (Wilcoxon
signed-rank test with the rank-biserial effect size).
study_participant_rounds.csv holds a row per seat per round, figures
and answers, for mixed models, and codebook.md names every column of
every CSV, its unit and its meaning.

--study names the study by its name or the id of one of its sessions.
A study run in several sessions (one study run each, one per
counterbalancing group, under one schedule name) is reported as one:
its sessions pooled, every participant of every session one seat, its
tables carrying each row's study id, session and group (a numeric
--study reports that session alone). Without --study, the report is of
the newest study in the database with all its sessions, and when the
database holds others they are listed on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// Opening a missing SQLite file would create an empty one.
			if !strings.Contains(dsn, "://") {
				if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("study report: %s does not exist: give --db the study database lagkit study run wrote", dsn)
				}
			}
			db, err := store.Open(ctx, dsn)
			if err != nil {
				return err
			}
			defer db.Close()
			s, err := study.Pick(ctx, db, ref, cmd.ErrOrStderr())
			if ref != "" && err != nil {
				// A name several sessions share names them all.
				s.Name, err = ref, nil
			}
			if err != nil {
				return err
			}
			// Every session of the study (the runs of its schedule,
			// one per counterbalancing group) pooled into one report.
			rows, err := study.Sessions(ctx, db, s.Name)
			if err != nil {
				return err
			}
			if _, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
				rows = []store.StudyRow{s}
			}
			if out == "" {
				out = experiment.DefaultOut("study-" + s.Name)
			}
			if err := emptyOut(out, force); err != nil {
				return err
			}
			rep, err := study.ReadPooled(ctx, db, rows)
			if err != nil {
				return err
			}
			ids := make([]string, len(rows))
			for i, r := range rows {
				ids[i] = strconv.FormatInt(r.ID, 10)
			}
			return writeStudyReport(cmd, rep, out, asJSON, fmt.Sprintf("study %s (%d session(s), ids %s in %s): %d rounds, %d techniques",
				s.Name, len(rows), strings.Join(ids, ", "), db, len(rep.Rounds), len(rep.Techniques)))
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "db", defaultDB, "study database: an SQLite file, or a postgres:// URL")
	f.StringVar(&out, "out", "", "output folder, new or empty (default: a new folder under ./results/)")
	f.StringVar(&ref, "study", "", "the study to report, by its id or its name (default: the newest)")
	f.BoolVar(&force, "force", false, "write into --out even if it is not empty")
	f.BoolVar(&asJSON, "json", false, "print study.json to stdout")
	return cmd
}

// writeStudyReport writes rep into out and prints it as JSON, or else
// summary and where the report is.
func writeStudyReport(cmd *cobra.Command, rep *study.Report, out string, asJSON bool, summary string) error {
	if err := rep.Write(out); err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s; report: %s\n", summary, filepath.Join(out, study.MarkdownFile))
	return nil
}

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
	var dsn, out, ref, session string
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

--study names the study by its study id, or by its name when one study
has that name. A study run in several sessions (one study run each, one
per counterbalancing group, all joined to one study id) is reported as
one: its sessions pooled, every participant of every session one seat,
its tables carrying each row's study id, session and group. Two studies
that share a name stay apart: their name is then refused, listing their
ids. --session reports one session alone, by its id (the study column
of the export). Without either, the report is of the study of the
newest session in the database with all its sessions, and when the
database holds other studies they are listed on stderr.`,
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
			var rows []store.StudyRow
			var name string
			var set store.StudySet
			if session != "" {
				if ref != "" {
					return usagef("--study reports a study, --session one session of one: give one of them")
				}
				id, err := strconv.ParseInt(session, 10, 64)
				if err != nil {
					return usagef("--session %q: want a session's id, a number (the study column of study export's tables)", session)
				}
				row, err := db.FindStudy(ctx, session)
				if err != nil || row.ID != id {
					return fmt.Errorf("study report: %s holds no session %d", db, id)
				}
				rows, name = []store.StudyRow{row}, row.Name
			} else {
				// Every session of the study (the runs joined to its
				// id, one per counterbalancing group) pooled into one
				// report.
				set, err = study.Pick(ctx, db, ref, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				if len(set.Sessions) == 0 {
					return fmt.Errorf("study report: study %d (%s) has no session", set.ID, set.Name)
				}
				rows, name = set.Sessions, set.Name
			}
			if out == "" {
				out = experiment.DefaultOut("study-" + name)
			}
			if err := emptyOut(out, force); err != nil {
				return err
			}
			rep, err := study.ReadPooled(ctx, db, rows)
			if err != nil {
				return err
			}
			if session == "" {
				evs, err := db.LobbyEvents(ctx, set.ID)
				if err != nil {
					return err
				}
				rep.AddFlow(evs)
			} else {
				rep.FlowNote = "no participant flow in the report of one session: the flow is the whole study's (report it without --session)"
			}
			ids := make([]string, len(rows))
			for i, r := range rows {
				ids[i] = strconv.FormatInt(r.ID, 10)
			}
			return writeStudyReport(cmd, rep, out, asJSON, fmt.Sprintf("study %s (study id %d, %d session(s), ids %s in %s): %d rounds, %d techniques",
				name, rows[0].Set, len(rows), strings.Join(ids, ", "), db, len(rep.Rounds), len(rep.Techniques)))
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "db", defaultDB, "study database: an SQLite file, or a postgres:// URL")
	f.StringVar(&out, "out", "", "output folder, new or empty (default: a new folder under ./results/)")
	f.StringVar(&ref, "study", "", "the study to report, every session of it pooled: its study id, or its name when one study has it (default: the newest)")
	f.StringVar(&session, "session", "", "report one session alone, by its id")
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

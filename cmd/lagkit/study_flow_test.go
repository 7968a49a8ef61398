package main

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/internal/pgtest"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/lobby"
)

// onlineSchedule writes presets/online.toml into dir with exclusion as
// its [exclusion] table, and returns its path.
func onlineSchedule(t *testing.T, dir, exclusion string) string {
	t.Helper()
	b, err := os.ReadFile("../../presets/online.toml")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(b), "[exclusion]\n")
	_, tail, ok2 := strings.Cut(rest, "\n\n")
	if !ok || !ok2 {
		t.Fatal("presets/online.toml has no [exclusion] table")
	}
	path := filepath.Join(dir, "online.toml")
	if err := os.WriteFile(path, []byte(head+"[exclusion]\n"+exclusion+"\n"+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStudyReportExclusions: a pilot of presets/online.toml with answers
// drawn from the model (seed 3: seats 1 and 2 answer the attention check
// other than instructed three times of four, seats 0 and 3 twice) and
// failed_checks = 3 excludes seats 1 and 2, and only them: the
// exclusions table names them with their value, the checks still list
// every participant, the long-format table and the paired comparisons
// hold the included alone, and the flow's note says a pilot has no
// lobby events.
func TestStudyReportExclusions(t *testing.T) {
	tmp := t.TempDir()
	sched := onlineSchedule(t, tmp, "failed_checks = 3")
	dsn := filepath.Join(tmp, "study.db")
	if code, out, errOut := lagkit("study", "run", sched, "--simulate", "--quick", "--synthetic-answers", "--seed", "3", "--db", dsn, "--out", filepath.Join(tmp, "run")); code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, out, errOut)
	}
	dir := filepath.Join(tmp, "report")
	if code, out, errOut := lagkit("study", "report", "--db", dsn, "--out", dir); code != 0 {
		t.Fatalf("report: exit %d: %s%s", code, out, errOut)
	}
	rep, res := readStudyReport(t, dir)
	x := rep.Exclusions
	if x == nil || x.Judged != 4 || !slices.Equal(x.Seats, []int{1, 2}) {
		t.Fatalf("exclusions %+v, want seats 1 and 2 of 4", x)
	}
	for _, e := range x.Excluded {
		if e.Rule != study.RuleFailedChecks || e.Value != 3 || e.Limit != 3 {
			t.Errorf("excluded %+v, want failed_checks 3 of limit 3", e)
		}
	}
	failed := map[int]int{}
	for _, c := range rep.Checks {
		for _, p := range c.Participants {
			failed[p.Seat] += p.Answered - p.Passed
		}
	}
	if want := map[int]int{0: 2, 1: 3, 2: 3, 3: 2}; len(failed) != 4 || failed[0] != want[0] || failed[1] != want[1] || failed[2] != want[2] || failed[3] != want[3] {
		t.Errorf("attention checks failed by seat %v, want %v", failed, want)
	}
	seats := map[int]bool{}
	for _, p := range rep.Participants {
		if !p.Bot {
			seats[p.Seat] = true
		}
	}
	if len(seats) != 2 || !seats[0] || !seats[3] {
		t.Errorf("the long-format table's participants %v, want seats 0 and 3", seats)
	}
	for _, c := range rep.Comparisons {
		if c.N > 2 {
			t.Errorf("comparison %s %s vs %s over %d pairs: more than the 2 included", c.Question, c.A, c.B, c.N)
		}
	}
	if rep.Flow != nil || rep.FlowNote != study.NoFlowEvents {
		t.Errorf("flow %+v, note %q", rep.Flow, rep.FlowNote)
	}
	var table bool
	for _, tb := range res.Tables {
		if tb.Name == "study_exclusions" {
			table = len(tb.Rows) == 2 && tb.Rows[0][0] == "1" && tb.Rows[1][0] == "2"
		}
	}
	if !table {
		t.Error("study_exclusions.csv does not list seats 1 and 2")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "study.md")); err != nil || !strings.Contains(string(b), "applied to the 4 participants, 2 excluded") {
		t.Errorf("study.md: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(b), "left out 2 of the 4 participants") ||
		!strings.Contains(string(b), "No participant flow: the study&#39;s lobby stored no participant events") {
		t.Errorf("report.html does not say the exclusions and why there is no flow (%v)", err)
	}
	checkCodebook(t, dir)
	// The run's own report applied them alike.
	ran, _ := readStudyReport(t, filepath.Join(tmp, "run"))
	if ran.Exclusions == nil || !slices.Equal(ran.Exclusions.Seats, x.Seats) || len(ran.Participants) != len(rep.Participants) {
		t.Errorf("the run's report: exclusions %+v, %d long-format rows; study report's %v, %d", ran.Exclusions, len(ran.Participants), x.Seats, len(rep.Participants))
	}
}

// TestStudyFlowStored: a lobby's events, recorded in the study database
// as study lobby records them, come back as the report's participant
// flow, each count and reason the lobby's own, in SQLite and in
// PostgreSQL.
func TestStudyFlowStored(t *testing.T) {
	for _, db := range []struct{ name, dsn func(t *testing.T) string }{
		{func(*testing.T) string { return "sqlite" }, func(t *testing.T) string { return filepath.Join(t.TempDir(), "study.db") }},
		{func(*testing.T) string { return "postgres" }, func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(db.name(t), func(t *testing.T) {
			tmp := t.TempDir()
			dsn := db.dsn(t)
			sched := onlineSchedule(t, tmp, "min_rounds = 1")
			if code, out, errOut := lagkit("study", "run", sched, "--simulate", "--quick", "--db", dsn, "--out", filepath.Join(tmp, "run")); code != 0 {
				t.Fatalf("run: exit %d: %s%s", code, out, errOut)
			}
			s, err := study.Load(sched)
			if err != nil {
				t.Fatal(err)
			}
			lc, err := s.LobbyConfig([]byte("0123456789abcdef"))
			if err != nil {
				t.Fatal(err)
			}
			lc.MaxWait = time.Second
			l, err := lobby.New(lc)
			if err != nil {
				t.Fatal(err)
			}
			o := studyLobbyFlags{dsn: dsn, studyID: 1}
			rec, closeDB, err := o.recorder(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			start := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
			var evs []lobby.Event
			at := func(s int) time.Duration { return time.Duration(s) * time.Second }
			addr := netip.MustParseAddr("192.0.2.1")
			good := lobby.Screen{FPS: 120, RefreshHz: 60, PointerLock: true, BaseRTT: 20 * time.Millisecond}
			for i, id := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7"} {
				if err := l.Arrive(at(i), id, addr); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"p1", "p2", "p4", "p5", "p6", "p7"} {
				if err := l.Consent(at(7), id); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"p1", "p4", "p5", "p6"} {
				if _, err := l.Prescreen(at(8), id, good); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := l.Prescreen(at(8), "p2", lobby.Screen{FPS: 10, RefreshHz: 60, PointerLock: true, BaseRTT: 20 * time.Millisecond}); err != nil {
				t.Fatal(err)
			}
			_ = l.Leave(at(9), "p3", "left: closed the tab")
			evs = append(evs, l.Advance(at(9)).Events...) // four wait: a match
			if err := l.Arrive(at(10), "p8", addr); err != nil {
				t.Fatal(err)
			}
			if err := l.Consent(at(10), "p8"); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Prescreen(at(11), "p8", good); err != nil {
				t.Fatal(err)
			}
			_ = l.Leave(at(12), "p8", "left: pressed leave")
			_ = l.Leave(at(13), "p6", "the game server ended: killed")
			evs = append(evs, l.Advance(at(14)).Events...)
			if err := rec(context.Background(), start, evs); err != nil {
				t.Fatal(err)
			}
			// The rest after the lobby's last Advance, as a stopped
			// lobby flushes them: the match's end, the prescreen that
			// timed out.
			_ = l.MatchOver(at(400), 0)
			evs = l.Advance(at(400)).Events
			if err := rec(context.Background(), start, append(evs, l.Pending()...)); err != nil {
				t.Fatal(err)
			}
			f := l.Flow()
			if f.Arrived != 8 || f.Consented != 7 || f.Completed != 3 || f.Refused != 2 || f.TimedOut != 1 || f.DroppedPrescreen != 1 || f.DroppedWaiting != 1 || f.Dropped != 3 {
				t.Fatalf("the lobby's flow %+v", f)
			}

			dir := filepath.Join(tmp, "report")
			if code, out, errOut := lagkit("study", "report", "--db", dsn, "--out", dir); code != 0 {
				t.Fatalf("report: exit %d: %s%s", code, out, errOut)
			}
			rep, res := readStudyReport(t, dir)
			if rep.Flow == nil {
				t.Fatalf("no flow: %q", rep.FlowNote)
			}
			got := rep.Flow
			for _, c := range []struct {
				stage string
				n     int
			}{
				{study.FlowArrived, f.Arrived}, {study.FlowConsented, f.Consented}, {study.FlowRefused, f.Refused}, {study.FlowAdmitted, f.Admitted},
				{study.FlowDroppedPrescreen, f.DroppedPrescreen}, {study.FlowDroppedWaiting, f.DroppedWaiting},
				{study.FlowMatched, f.Matched}, {study.FlowDroppedMatch, f.Dropped - f.DroppedPrescreen - f.DroppedWaiting},
				{study.FlowCompleted, f.Completed}, {study.FlowExcluded, 0}, {study.FlowAnalysed, 4},
			} {
				if n := got.Count(c.stage); n != c.n {
					t.Errorf("%s: %d, want the lobby's %d", c.stage, n, c.n)
				}
			}
			reasons := map[string]int{}
			for _, r := range got.Rows {
				if r.Reason != "" {
					reasons[r.Stage+": "+r.Reason] = r.Participants
				}
			}
			for _, want := range []string{
				study.FlowRefused + ": frame rate 10 fps under the 50 the study needs",
				study.FlowRefused + ": the prescreen was not finished in time",
				study.FlowDroppedPrescreen + ": left: closed the tab",
				study.FlowDroppedWaiting + ": left: pressed leave",
				study.FlowDroppedMatch + ": the game server ended: killed",
			} {
				if reasons[want] != 1 {
					t.Errorf("reason %q: %d, want 1 (reasons %v)", want, reasons[want], reasons)
				}
			}
			if got.Lobbies != 1 {
				t.Errorf("%d lobbies, want 1", got.Lobbies)
			}
			if !slices.ContainsFunc(res.Tables, func(tb experiment.Table) bool { return tb.Name == "study_flow" && len(tb.Rows) == len(got.Rows) }) {
				t.Error("no study_flow table beside the flow")
			}
			checkCodebook(t, dir)
			if b, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(b), "dropped from a match") {
				t.Errorf("report.html has no flow table (%v)", err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "study_flow.csv")); err != nil || !strings.Contains(string(b), "refused at the prescreen,frame rate 10 fps under the 50 the study needs,1\n") {
				t.Errorf("study_flow.csv: %s (%v)", b, err)
			}
		})
	}
}

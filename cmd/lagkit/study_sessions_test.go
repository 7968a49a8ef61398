package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/study"
)

// TestStudyPooledSessions: a Latin-square study (technique by latency,
// groups 0 and 1) piloted in two sessions, one per group, is one study:
// the second session joins the first's study id, study report --study
// NAME pools both sessions, pairs the participants of both in the
// primary test, prints the design table and tests the period and order
// effects, and every row of the long table says its session, study id
// and group; a session of another schedule under the same name is
// refused, saying what differs, unless it starts a study of its own.
func TestStudyPooledSessions(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "study.db")
	for g := range 2 {
		if code, _, errOut := lagkit("study", "run", "testdata/two_sessions.toml", "--simulate", "--quick", "--synthetic-answers",
			"--seed", string(rune('1'+g)), "--group", string(rune('0'+g)), "--db", db, "--out", filepath.Join(tmp, "g"+string(rune('0'+g)))); code != 0 {
			t.Fatalf("session %d: exit %d: %s", g+1, code, errOut)
		}
	}
	dir := filepath.Join(tmp, "pooled")
	code, out, errOut := lagkit("study", "report", "--db", db, "--study", "crossover", "--out", dir)
	if code != 0 || !strings.Contains(out, "study crossover (study id 1, 2 session(s), ids 1, 2 in") {
		t.Fatalf("study report: exit %d, %q, %q", code, out, errOut)
	}
	rep, _ := readStudyReport(t, dir)
	if len(rep.Sessions) != 2 || rep.Sessions[1].Group != 1 || rep.Sessions[1].FirstRound != 4 || rep.Sessions[1].FirstSeat != 10 {
		t.Fatalf("sessions %+v", rep.Sessions)
	}
	// Four low-ping participants a session: eight pairs, from both.
	if pr := rep.Main.Pairs[0]; pr.Test == nil || pr.Test.N != 8 || !slices.Contains(pr.Seats, 4) || !slices.Contains(pr.Seats, 14) {
		t.Fatalf("primary test %+v, want the 8 low-ping participants of both sessions", pr)
	}
	if len(rep.Design) != 2 || rep.Design[0].Order != "tlc,alc,tlc,alc" || rep.Design[1].Order != "alc,tlc,alc,tlc" ||
		!slices.Equal(rep.Design[1].Sessions, []int{2}) || rep.Design[0].Participants != 8 {
		t.Errorf("design %+v", rep.Design)
	}
	if rep.Effects.Period == nil || rep.Effects.Period.N != 8 || rep.Effects.Order == nil || rep.Effects.Order.N != 8 {
		t.Errorf("order effects %+v", rep.Effects)
	}
	md, _ := os.ReadFile(filepath.Join(dir, study.MarkdownFile))
	for _, want := range []string{"## Design and order effects", "| 1 | alc,tlc,alc,tlc | 2 | 8 |", "- Period effect: second period − first", "- Order effect: does alc − tlc differ by sequence?",
		// The timeline names each event's session by its place in the
		// study and its own id, not as a study of its own.
		"| session 2 (id 2) r1 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("study.md lacks %q", want)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "study_participant_rounds.csv"))
	col := func(name string) int { return slices.Index(rows[0], name) }
	sessions := map[string]string{}
	for _, r := range rows[1:] {
		sessions[r[col("session")]] = r[col("study")] + "/" + r[col("counterbalance_group")]
		if r[col("study_id")] != "1" {
			t.Errorf("row %v: study id %q, want 1", r, r[col("study_id")])
		}
		if r[col("session_round")] < "1" || r[col("session_round")] > "4" {
			t.Errorf("row %v: session round %s", r, r[col("session_round")])
		}
	}
	if sessions["1"] != "1/0" || sessions["2"] != "2/1" {
		t.Errorf("long table's sessions %v, want study 1 group 0 and study 2 group 1", sessions)
	}

	if !strings.Contains(string(md), "Study crossover (study id 1, 2 sessions), seed") {
		t.Errorf("study.md does not give the study id")
	}

	// A third session under the same name but another schedule is
	// refused before it plays; with --new-study it starts study 2,
	// and the name then names two studies.
	other := filepath.Join(tmp, "other.toml")
	text, _ := os.ReadFile("testdata/two_sessions.toml")
	if err := os.WriteFile(other, []byte(strings.Replace(string(text), `duration = "45s"`, `duration = "50s"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := lagkit("study", "run", other, "--simulate", "--quick", "--db", db, "--out", filepath.Join(tmp, "g2")); code != 1 ||
		!strings.Contains(errOut, "study 1 (crossover) ran another schedule than this one: round 1 duration: 45s stored, 50s now") ||
		!strings.Contains(errOut, "--new-study") {
		t.Fatalf("a session of another schedule: exit %d: %s", code, errOut)
	}
	if code, _, errOut := lagkit("study", "run", other, "--simulate", "--quick", "--db", db, "--out", filepath.Join(tmp, "g2"), "--study", "1"); code != 1 ||
		!strings.Contains(errOut, "round 1 duration: 45s stored, 50s now") {
		t.Fatalf("joining study 1 with another schedule: exit %d: %s", code, errOut)
	}
	if code, out, errOut := lagkit("study", "run", other, "--simulate", "--quick", "--db", db, "--out", filepath.Join(tmp, "g2"), "--new-study"); code != 0 ||
		!strings.Contains(out, "simulated in") || !strings.Contains(out, "s, study id 2;") || !strings.Contains(errOut, "as session 3, the first of new study 2") {
		t.Fatalf("a new study of the name: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := lagkit("study", "report", "--db", db, "--study", "crossover", "--out", filepath.Join(tmp, "mixed")); code != 1 ||
		!strings.Contains(errOut, `2 studies are named "crossover": 1 "crossover" (simulated, 2 sessions`) ||
		!strings.Contains(errOut, `2 "crossover" (simulated, 1 session`) {
		t.Errorf("a name two studies share: exit %d, %q", code, errOut)
	}
	// By id, each study is its own sessions.
	code, out, errOut = lagkit("study", "report", "--db", db, "--study", "1", "--out", filepath.Join(tmp, "one"))
	if code != 0 || !strings.Contains(out, "study crossover (study id 1, 2 session(s), ids 1, 2 in") {
		t.Errorf("study 1 by id: exit %d, %q, %q", code, out, errOut)
	}
	code, out, errOut = lagkit("study", "report", "--db", db, "--study", "2", "--out", filepath.Join(tmp, "two"))
	if code != 0 || !strings.Contains(out, "study crossover (study id 2, 1 session(s), ids 3 in") {
		t.Errorf("study 2 by id: exit %d, %q, %q", code, out, errOut)
	}
	code, out, errOut = lagkit("study", "report", "--db", db, "--session", "2", "--out", filepath.Join(tmp, "session2"))
	if code != 0 || !strings.Contains(out, "study crossover (study id 1, 1 session(s), ids 2 in") {
		t.Errorf("session 2 alone: exit %d, %q, %q", code, out, errOut)
	}
	// A fourth session of the first schedule joins study 1 by its id:
	// by name it would be ambiguous no more (study 2 ran another
	// schedule), and by id it is explicit.
	if code, _, errOut := lagkit("study", "run", "testdata/two_sessions.toml", "--simulate", "--quick", "--group", "1", "--db", db,
		"--out", filepath.Join(tmp, "g3"), "--study", "1"); code != 0 || !strings.Contains(errOut, "as session 4 of study 1 (its session 3)") {
		t.Fatalf("a third session of study 1: exit %d: %s", code, errOut)
	}
	if code, _, errOut := lagkit("study", "run", "testdata/two_sessions.toml", "--simulate", "--quick", "--group", "0", "--db", db,
		"--out", filepath.Join(tmp, "g4")); code != 0 || !strings.Contains(errOut, "as session 5 of study 1 (its session 4)") {
		t.Fatalf("a fourth session of study 1, by its name and schedule: exit %d: %s", code, errOut)
	}

	// A second study of the same name and schedule (--new-study) stays
	// apart from the first: a session naming neither is refused,
	// listing both.
	if code, _, errOut := lagkit("study", "run", "testdata/two_sessions.toml", "--simulate", "--quick", "--db", db,
		"--out", filepath.Join(tmp, "g5"), "--new-study"); code != 0 || !strings.Contains(errOut, "as session 6, the first of new study 3") {
		t.Fatalf("a second study of the schedule: exit %d: %s", code, errOut)
	}
	if code, _, errOut := lagkit("study", "run", "testdata/two_sessions.toml", "--simulate", "--quick", "--db", db,
		"--out", filepath.Join(tmp, "g6")); code != 1 || !strings.Contains(errOut, `2 simulated studies named "crossover" ran this schedule: 1 "crossover" (simulated, 4 sessions`) ||
		!strings.Contains(errOut, `3 "crossover" (simulated, 1 session`) || !strings.Contains(errOut, "give --study the id") {
		t.Fatalf("a session of an ambiguous study: exit %d: %s", code, errOut)
	}
	code, out, errOut = lagkit("study", "report", "--db", db, "--study", "3", "--out", filepath.Join(tmp, "three"))
	if code != 0 || !strings.Contains(out, "study crossover (study id 3, 1 session(s), ids 6 in") {
		t.Errorf("study 3 by id: exit %d, %q, %q", code, out, errOut)
	}

	// The export carries the study id in every table.
	exp := filepath.Join(tmp, "export")
	if code, out, errOut := lagkit("study", "export", "--db", db, "--study", "1", "--out", exp); code != 0 || !strings.Contains(out, "exported 1 study (4 sessions)") {
		t.Fatalf("export: exit %d, %q, %q", code, out, errOut)
	}
	for _, name := range []string{"studies", "rounds", "participants", "shots", "seat_orders"} {
		rows := readCSV(t, filepath.Join(exp, name+".csv"))
		if rows[0][0] != "study" || rows[0][1] != "study_id" || len(rows) < 2 {
			t.Fatalf("%s.csv header %v, %d rows", name, rows[0], len(rows))
		}
		for _, r := range rows[1:] {
			if r[1] != "1" || r[0] == "3" {
				t.Fatalf("%s.csv row %v: want study 1's sessions alone", name, r[:2])
			}
		}
	}
}

// TestStudyTechniqueByLatency: a schedule whose rounds vary technique
// and latency, run in four sessions (groups 0 to 3), is counterbalanced
// over its four technique × latency conditions: study check prints each
// group's order of conditions, and the pooled report's design table
// shows the four sequences, every condition in every period once across
// them, with the long table's period the place of the round's condition
// in its seat's order.
func TestStudyTechniqueByLatency(t *testing.T) {
	code, out, errOut := lagkit("study", "check", "testdata/two_by_two.toml", "--group", "2")
	if code != 0 || !strings.Contains(out, "the design moves technique × latency") ||
		!strings.Contains(out, "  group 2: ") || !strings.Contains(out, "order of conditions by round, every seat (group 2): ") {
		t.Fatalf("study check: exit %d, %q, %q", code, out, errOut)
	}
	tmp := t.TempDir()
	db := filepath.Join(tmp, "study.db")
	for g := range 4 {
		if code, _, errOut := lagkit("study", "run", "testdata/two_by_two.toml", "--simulate", "--quick", "--synthetic-answers",
			"--seed", string(rune('1'+g)), "--group", string(rune('0'+g)), "--db", db, "--out", filepath.Join(tmp, "g"+string(rune('0'+g)))); code != 0 {
			t.Fatalf("session %d: exit %d: %s", g+1, code, errOut)
		}
	}
	dir := filepath.Join(tmp, "pooled")
	if code, out, errOut := lagkit("study", "report", "--db", db, "--study", "crossover2x2", "--out", dir); code != 0 {
		t.Fatalf("study report: exit %d, %q, %q", code, out, errOut)
	}
	rep, _ := readStudyReport(t, dir)
	if len(rep.Design) != 4 {
		t.Fatalf("design %+v, want 4 sequences", rep.Design)
	}
	inPeriod := map[string]int{}
	md, _ := os.ReadFile(filepath.Join(dir, study.MarkdownFile))
	for g, d := range rep.Design {
		order := strings.Split(d.Order, ",")
		if d.Group != g || len(order) != 4 || d.Participants != 8 {
			t.Fatalf("design row %+v", d)
		}
		for k, c := range order {
			inPeriod[c+"|"+string(rune('1'+k))]++
		}
		if row := "| " + string(rune('0'+g)) + " | " + d.Order + " |"; !strings.Contains(string(md), row) {
			t.Errorf("study.md's design table lacks %q", row)
		}
	}
	for _, c := range []string{"tlc / 50 ms seats 0 1 2 3", "alc / 50 ms seats 0 1 2 3", "tlc / 125 ms seats 0 1 2 3", "alc / 125 ms seats 0 1 2 3"} {
		for k := range 4 {
			if n := inPeriod[c+"|"+string(rune('1'+k))]; n != 1 {
				t.Errorf("%s in period %d of %d sequences, want 1", c, k+1, n)
			}
		}
	}
	// Every session's rounds play four conditions: periods 1 to 4 in
	// each session's rounds 1 to 4.
	rows := readCSV(t, filepath.Join(dir, "study_participant_rounds.csv"))
	col := func(name string) int { return slices.Index(rows[0], name) }
	for _, r := range rows[1:] {
		if r[col("period")] != r[col("session_round")] {
			t.Errorf("row %v: period %s in session round %s, want the round's place (four conditions, one a round)", r, r[col("period")], r[col("session_round")])
		}
	}
}

// TestStudyPooledIntakeOnce: every session of a pooled study stores its
// schedule's questions; the pooled report lists each intake and final
// question once, and the long table has one column per intake question.
func TestStudyPooledIntakeOnce(t *testing.T) {
	tmp := t.TempDir()
	base, err := os.ReadFile("testdata/two_sessions.toml")
	if err != nil {
		t.Fatal(err)
	}
	sched := filepath.Join(tmp, "intake.toml")
	if err := os.WriteFile(sched, append(base, []byte(`
[[intake]]
id = "hours"
text = "Hours a week you play shooters"
kind = "number"
min = 0
max = 80

[[final]]
id = "differed"
text = "Did the rounds feel different?"
kind = "yesno"
`)...), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	for g := range 2 {
		if code, _, errOut := lagkit("study", "run", sched, "--simulate", "--quick", "--synthetic-answers",
			"--group", string(rune('0'+g)), "--db", db, "--out", filepath.Join(tmp, "g"+string(rune('0'+g)))); code != 0 {
			t.Fatalf("session %d: exit %d: %s", g+1, code, errOut)
		}
	}
	dir := filepath.Join(tmp, "pooled")
	if code, out, errOut := lagkit("study", "report", "--db", db, "--study", "1", "--out", dir); code != 0 {
		t.Fatalf("study report: exit %d, %q, %q", code, out, errOut)
	}
	md, _ := os.ReadFile(filepath.Join(dir, study.MarkdownFile))
	for _, row := range []string{"| intake | hours | number |", "| final | differed | yesno |"} {
		if n := strings.Count(string(md), row); n != 1 {
			t.Errorf("study.md lists %q %d times, want once", row, n)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "study_participant_rounds.csv"))
	if n := len(slices.DeleteFunc(slices.Clone(rows[0]), func(c string) bool { return !strings.Contains(c, "hours") })); n != 1 {
		t.Errorf("the long table has %d columns for the intake question, want 1: %v", n, rows[0])
	}
}

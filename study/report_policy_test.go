package study

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/record"
)

// policySchedule is a pilot of n participant seats and two bot seats,
// two techniques, a fairness question with a clear synthetic effect.
func policySchedule(n int) string {
	return fmt.Sprintf(`name = "policy"
[[seat]]
count = %d
[[seat]]
bot = true
count = 2
[[technique]]
name = "tlc"
[[technique]]
name = "none"
policy = { name = "none" }
[[latency]]
latency_ms = 10
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "10s"
technique = "tlc"
[[round]]
name = "b"
map = "arena"
mode = "ffa"
duration = "10s"
technique = "none"
[[question]]
id = "fair"
text = "Fair?"
kind = "fairness"
synthetic = [{ technique = "tlc", mean = -2, sd = 1 }, { technique = "none", mean = 2, sd = 1 }]
[[question]]
id = "fun"
text = "Fun?"
kind = "likert"
`, n)
}

func pilotReport(t *testing.T, n int) *Report {
	t.Helper()
	s, err := Parse("policy.toml", []byte(policySchedule(n)))
	if err != nil {
		t.Fatal(err)
	}
	sim := NewSimulation(epoch)
	sim.SyntheticAnswers(5)
	var mem record.Memory
	if err := Run(context.Background(), s, sim, &mem, Options{Seed: 5}); err != nil {
		t.Fatal(err)
	}
	for _, r := range mem.Records {
		if a, ok := r.(record.Answer); ok && a.Seat >= n {
			t.Fatalf("bot seat %d answered %+v: live, bots answer nothing", a.Seat, a)
		}
	}
	rep, err := Summarise(mem.Records)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestPolicyPilotAsLive: a pilot is analysed as its live study will be:
// the participants are the seats meant for people (8), not the bots'
// seats too (10); one primary test (the Wilcoxon signed-rank test of the
// main outcome, no paired t), every secondary test in one Holm family
// whose adjusted p study.md, study_comparisons.csv and results.json all
// give; the headline intervals a cluster bootstrap over participants.
func TestPolicyPilotAsLive(t *testing.T) {
	rep := pilotReport(t, 8)
	res := rep.Results()
	secondary := 0
	for _, x := range res.Tests {
		switch {
		case x.Kind != "wilcoxon":
			t.Errorf("test %s of kind %s: the policy runs Wilcoxon signed-rank tests alone", x.Name, x.Kind)
		case x.Family == PrimaryFamily && x.Metric != MainOutcomeFigure:
			t.Errorf("test %s is primary", x.Name)
		case x.Family == SecondaryFamily:
			secondary++
		}
		if x.N > 8 {
			t.Errorf("test %s over %d pairs: 8 seats are participants'", x.Name, x.N)
		}
	}
	for _, x := range res.Tests {
		if x.Family == SecondaryFamily && x.HolmFamily != secondary {
			t.Errorf("test %s corrected in a family of %d, want the %d secondary tests", x.Name, x.HolmFamily, secondary)
		}
	}
	if len(rep.Comparisons) == 0 {
		t.Fatal("no question compared")
	}
	md := rep.Markdown()
	var table [][]string
	for _, tb := range res.Tables {
		if tb.Name == "study_comparisons" {
			table = tb.Rows
		}
	}
	for i, c := range rep.Comparisons {
		if c.N != 8 {
			t.Errorf("question %s: %d pairs, want the 8 participants", c.Question, c.N)
		}
		var holm float64
		for _, x := range res.Tests {
			if x.Name == c.Question+": "+c.B+" − "+c.A {
				holm = x.PHolm
			}
		}
		if holm != c.PHolm || holm < c.P {
			t.Errorf("question %s: results.json p_holm %v, the report's %v (p %v)", c.Question, holm, c.PHolm, c.P)
		}
		if got := table[i][10]; got != num(c.PHolm) {
			t.Errorf("study_comparisons.csv p_holm %s, want %v", got, c.PHolm)
		}
		if !strings.Contains(md, fmt.Sprintf("| %.3f | %s (%d) |", c.P, pHolmText(c.PHolm), c.HolmFamily)) {
			t.Errorf("study.md does not give question %s's p %.3f and Holm p %.3f", c.Question, c.P, c.PHolm)
		}
	}
	for _, tr := range rep.Techniques {
		iv, _ := tr.Interval("hit_accuracy")
		if iv.NUnit != "participants" || iv.N != 8 || iv.Lo == nil || *iv.Lo >= *iv.Hi {
			t.Errorf("%s: hit accuracy interval %+v, want a bootstrap over the 8 participants", tr.Name, iv)
		}
	}
	if !strings.Contains(md, "## Statistics policy") || !strings.Contains(md, "This is a pilot") {
		t.Errorf("study.md lacks the statistics policy:\n%s", md)
	}
}

// TestPolicyMinimumN: under MinPairs participants nothing is tested and
// no interval is drawn, and the report says so in words: a pilot of 3
// participants has no Wilcoxon test (which it ran at n = 1, with r = 1),
// no paired t (run at n = 2), and no bootstrap interval (zero-width over
// one seat).
func TestPolicyMinimumN(t *testing.T) {
	rep := pilotReport(t, 3)
	res := rep.Results()
	if len(res.Tests) != 0 || len(rep.Comparisons) != 0 {
		t.Errorf("%d tests and %d comparisons over 3 participants: %+v", len(res.Tests), len(rep.Comparisons), res.Tests)
	}
	md := rep.Markdown()
	if !strings.Contains(md, "fair, none against tlc (secondary): not tested: 3 participant pairs, and the statistics policy tests no fewer than 6") {
		t.Errorf("study.md does not say why fair was not tested:\n%s", md)
	}
	for _, tr := range rep.Techniques {
		for _, iv := range tr.Intervals {
			if iv.Lo != nil && !strings.HasPrefix(iv.Method, IntervalPoisson) {
				t.Errorf("%s %s: interval [%v, %v] over %d %s", tr.Name, iv.Figure, *iv.Lo, *iv.Hi, iv.N, iv.NUnit)
			}
		}
	}
	if !strings.Contains(md, "no interval: 3 participants, the policy draws none over fewer than 6") {
		t.Errorf("study.md does not say why there is no interval")
	}
}

// TestChecksAreNotOutcomes: an attention item (check = "attention",
// correct = 2), refused before, is accepted; a wrong correct answer or a
// correct without a check is refused; the report lists who answered the
// attention item as instructed and the manipulation check per technique,
// and compares neither as an outcome.
func TestChecksAreNotOutcomes(t *testing.T) {
	base := policySchedule(8)
	checks := `[[question]]
id = "attend"
text = "Choose 2 for this one."
kind = "likert"
check = "attention"
correct = 2
synthetic = [{ technique = "tlc", mean = 2, sd = 0 }, { technique = "none", mean = 2, sd = 0 }]
[[question]]
id = "noticed"
text = "Did you notice lag?"
kind = "yesno"
check = "manipulation"
`
	for _, bad := range []struct{ text, want string }{
		{strings.Replace(checks, "correct = 2", "correct = 9", 1), "correct: 9, want an answer the question takes: 1 to 5"},
		{strings.Replace(checks, `check = "attention"`+"\n", "", 1), "only a check has a correct answer"},
		{strings.Replace(checks, "correct = 2\n", "", 1), "an attention check needs the answer it instructs"},
	} {
		if _, err := Parse("bad.toml", []byte(base+bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("error %v, want %q", err, bad.want)
		}
	}
	s, err := Parse("checks.toml", []byte(base+checks))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	s.Summary().WriteText(&text)
	if !strings.Contains(text.String(), "Choose 2 for this one. [attention check, correct 2: not an outcome]") ||
		!strings.Contains(text.String(), "Did you notice lag? [manipulation check: not an outcome]") {
		t.Errorf("study check does not name the checks:\n%s", text.String())
	}
	sim := NewSimulation(epoch)
	sim.SyntheticAnswers(5)
	var mem record.Memory
	if err := Run(context.Background(), s, sim, &mem, Options{Seed: 5}); err != nil {
		t.Fatal(err)
	}
	rep, err := Summarise(mem.Records)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Comparisons {
		if c.Question == "attend" || c.Question == "noticed" {
			t.Errorf("check %s compared as an outcome: %+v", c.Question, c)
		}
	}
	for _, a := range rep.Answers {
		if a.Question == "attend" || a.Question == "noticed" {
			t.Errorf("check %s summarised as an outcome", a.Question)
		}
	}
	if len(rep.Checks) != 2 || rep.Checks[0].Question != "attend" || len(rep.Checks[0].Participants) != 8 ||
		rep.Checks[0].Participants[0].Passed != 2 || len(rep.Checks[1].Techniques) != 2 {
		t.Fatalf("checks %+v", rep.Checks)
	}
	md := rep.Markdown()
	if !strings.Contains(md, "Attention check attend (instructed answer 2)") || !strings.Contains(md, "Manipulation check noticed (yesno)") {
		t.Errorf("study.md lacks the checks:\n%s", md)
	}
}

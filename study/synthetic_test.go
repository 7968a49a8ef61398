package study

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/record"
)

// syntheticSchedule is a schedule of 40 seats whose questions state
// models under which alc is fairer than tlc.
const syntheticSchedule = `
name = "synth"

[[seat]]
count = 40

[[technique]]
name = "tlc"

[[technique]]
name = "alc"
policy = { name = "alc" }

[[round]]
map = "arena"
mode = "tdm"
duration = "0:10"
technique = "tlc"

[[round]]
map = "arena"
mode = "tdm"
duration = "0:10"
technique = "alc"

[[question]]
id = "fairness"
text = "How fair was it?"
kind = "fairness"
synthetic_participant_sd = 1
synthetic = [
	{ technique = "tlc", mean = -2, sd = 1 },
	{ technique = "alc", mean = 2, sd = 1 },
]

[[question]]
id = "sbc"
text = "I was shot behind cover."
kind = "yesno"
synthetic = [{ technique = "tlc", mean = 0.9 }, { technique = "alc", mean = 0.1 }]

[[question]]
id = "responsive"
text = "My shots registered."
kind = "likert"

[[question]]
id = "notes"
text = "Anything else?"
kind = "text"
`

func askAll(t *testing.T, s *Schedule, seed uint64) []record.Answer {
	t.Helper()
	d := NewSimulation(testStart)
	d.SyntheticAnswers(seed)
	var all []record.Answer
	for _, p := range s.Plans() {
		as, err := d.Ask(context.Background(), p, s.Seats(), s.Questions)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, as...)
	}
	return all
}

// TestSyntheticAnswers: a simulated study asked for synthetic answers
// answers every yes/no, Likert and fairness question from the
// schedule's models, within each scale, labelled synthetic, the same
// under the same seed; free text gets none, and without the call bots
// answer nothing.
func TestSyntheticAnswers(t *testing.T) {
	s, err := Parse("synth.toml", []byte(syntheticSchedule))
	if err != nil {
		t.Fatal(err)
	}
	if as, _ := NewSimulation(testStart).Ask(context.Background(), s.Plans()[0], s.Seats(), s.Questions); len(as) != 0 {
		t.Fatalf("without synthetic answers: %d answers", len(as))
	}
	all := askAll(t, s, 7)
	if want := 2 * 40 * 3; len(all) != want {
		t.Fatalf("%d answers, want %d (text questions get none)", len(all), want)
	}
	sums := map[[2]string]float64{}
	for _, a := range all {
		lo, hi := scale(&Question{Kind: a.Kind})
		if a.Text != SyntheticText || float64(a.Value) < lo || float64(a.Value) > hi || a.Kind == record.Text {
			t.Fatalf("answer %+v", a)
		}
		sums[[2]string{s.Plans()[a.Round].Technique.Name, a.Question}] += float64(a.Value) / 40
	}
	for k, want := range map[[2]string]float64{{"tlc", "fairness"}: -2, {"alc", "fairness"}: 2, {"tlc", "sbc"}: 0.9, {"alc", "sbc"}: 0.1,
		{"tlc", "responsive"}: 3, {"alc", "responsive"}: 3} {
		if got := sums[k]; math.Abs(got-want) > 0.6 {
			t.Errorf("%s %s: mean %v, want about %v", k[0], k[1], got, want)
		}
	}
	if again := askAll(t, s, 7); !reflect.DeepEqual(again, all) {
		t.Error("the same seed drew other answers")
	}
	if other := askAll(t, s, 8); reflect.DeepEqual(other, all) {
		t.Error("another seed drew the same answers")
	}

	// The report pairs them by bot seat and says they are synthetic.
	var sum Summariser
	sum.Put(record.Study{Name: "synth", Schedule: syntheticSchedule, Seed: 7, Simulated: true, Started: testStart})
	for _, p := range s.Plans() {
		sum.Put(record.Round{Index: p.Index, Name: p.Name, Technique: p.Technique.Name, Setting: p.Technique.String(), Started: testStart})
		for _, st := range s.Seats() {
			sum.Put(record.Participant{Seat: st.Index, Round: p.Index, Bot: true, LatencyMS: 10})
		}
	}
	for _, a := range all {
		sum.Put(a)
	}
	rep, err := sum.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.SyntheticAnswers || len(rep.Comparisons) != 2 || !strings.Contains(rep.Markdown(), SyntheticNote) {
		t.Errorf("report: synthetic %v, %d comparisons", rep.SyntheticAnswers, len(rep.Comparisons))
	}
	for _, c := range rep.Comparisons {
		if c.Question == "fairness" && !(c.P < 0.001 && c.MedianB > c.MedianA) {
			t.Errorf("fairness: %+v, want alc clearly fairer, as the model has it", c)
		}
	}
	res := rep.Results()
	for _, tb := range res.Tables {
		if (tb.Name == "study_answers" || tb.Name == "study_comparisons") && !strings.Contains(tb.Title, "SYNTHETIC") {
			t.Errorf("table %s's title %q does not say its answers are synthetic", tb.Name, tb.Title)
		}
	}
	for _, p := range rep.Participants {
		if p.AnswerSource != AnswerSynthetic || len(p.Answers) != 3 {
			t.Fatalf("participant round %+v", p)
		}
	}
}

func TestSyntheticModelErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`{ technique = "tlc", mean = -2, sd = 1 },`, `{ technique = "tcl", mean = -2, sd = 1 },`, `question[0].synthetic[0].technique: "tcl" is not one of the schedule's techniques`},
		{`{ technique = "tlc", mean = -2, sd = 1 },`, `{ technique = "alc", mean = -2, sd = 1 },`, `question[0].synthetic[1].technique: "alc" has an earlier model`},
		{`{ technique = "tlc", mean = -2, sd = 1 },`, `{ technique = "tlc", mean = -7, sd = 1 },`, `question[0].synthetic[0].mean: -7, want -5 to 5 (the fairness scale)`},
		{`{ technique = "tlc", mean = -2, sd = 1 },`, `{ technique = "tlc", mean = -2, sd = -1 },`, `question[0].synthetic[0].sd: -1, want 0 to 10`},
		{`{ technique = "tlc", mean = 0.9 }`, `{ technique = "tlc", mean = 3 }`, `question[1].synthetic[0].mean: 3, want the chance of a yes, 0 to 1`},
		{`{ technique = "tlc", mean = 0.9 }`, `{ technique = "tlc", mean = 0.9, sd = 1 }`, `question[1].synthetic[0].sd: a yes/no question's model is its chance of a yes`},
		{`synthetic_participant_sd = 1`, `synthetic_participant_sd = 20`, `question[0].synthetic_participant_sd: 20, want 0 to 10`},
		{`kind = "text"`, "kind = \"text\"\nsynthetic = [{ technique = \"tlc\", mean = 1 }]", `question[3].synthetic: a free-text question has no model`},
		{`{ technique = "tlc", mean = 0.9 }`, `{ mean = 0.9 }`, `question[1].synthetic[0].technique: missing`},
	} {
		text := strings.Replace(syntheticSchedule, c.old, c.new, 1)
		if text == syntheticSchedule {
			t.Fatalf("%q not in the schedule", c.old)
		}
		_, err := Parse("synth.toml", []byte(text))
		var ce *cfgfile.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.new, err, c.want)
		}
	}
}

var testStart = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

package study

import (
	"errors"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/record"
)

// instrumented is valid with a consent screen, intake questions of
// every kind an intake takes and final questions.
const instrumented = valid + `
[[question]]
id = "responsive"
text = "The game responded to my input"
kind = "likert7"

[[question]]
id = "lag"
text = "How much lag did you notice?"
kind = "scale"
min = 0
max = 10
anchors = ["none at all", "unplayable"]

[consent]
text = """
You will play four short rounds of a shooter.
Your answers are kept under a code, not your name."""

[[intake]]
id = "age"
text = "Your age in years"
kind = "number"
min = 18
max = 99

[[intake]]
id = "hours"
text = "Hours a week you play shooters"
kind = "choice"
choices = ["none", "1 to 5", "6 to 15", "over 15"]

[[intake]]
id = "skill"
text = "Your skill at first-person shooters"
kind = "likert"
anchors = ["beginner", "expert"]

[[final]]
id = "best"
text = "Which round felt best, and why?"
kind = "text"

[[final]]
id = "noticed"
text = "Did you notice the rounds differed?"
kind = "yesno"
`

func TestInstrumentsParse(t *testing.T) {
	s, err := Parse("pilot.toml", []byte(instrumented))
	if err != nil {
		t.Fatal(err)
	}
	if s.Consent == nil || s.Consent.Agree != DefaultAgree || !strings.HasPrefix(s.ConsentText(), "You will play") {
		t.Errorf("consent %+v, want its text and the default agree label", s.Consent)
	}
	var stages []string
	for _, q := range s.Instruments() {
		stages = append(stages, q.ID+":"+q.Stage)
	}
	if got, want := strings.Join(stages, " "), "age:intake hours:intake skill:intake fair:round responsive:round lag:round best:final noticed:final"; got != want {
		t.Errorf("instruments %s, want %s", got, want)
	}
	for _, c := range []struct {
		id     string
		lo, hi int
		low    string
	}{{"age", 18, 99, ""}, {"hours", 0, 3, ""}, {"skill", 1, 5, "beginner"}, {"responsive", 1, 7, "strongly disagree"}, {"lag", 0, 10, "none at all"}, {"fair", -5, 5, ""}} {
		for _, q := range s.Instruments() {
			if q.ID != c.id {
				continue
			}
			r := q.Record(0)
			if r.Min != c.lo || r.Max != c.hi || r.LowAnchor != c.low {
				t.Errorf("%s: record %+v, want %d to %d, low anchor %q", c.id, r, c.lo, c.hi, c.low)
			}
		}
	}
	if got := s.QuestionsAfter(0); len(got) != 5 || got[4].ID != "noticed" || got[4].Stage != record.StageFinal {
		t.Errorf("questions after the last round: %+v, want the round's three and the final two", got)
	}
	// The key changes with an instrument, so that a resume under another
	// consent or intake is refused.
	other, err := Parse("pilot.toml", []byte(strings.Replace(instrumented, "max = 99", "max = 90", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if d := Differences(s, other); len(d) != 1 || !strings.Contains(d[0], "intake 1") {
		t.Errorf("differences %q, want the intake's age question", d)
	}
	var b strings.Builder
	s.Summary().WriteInstruments(&b)
	for _, want := range []string{`consent before playing ("I agree"): You will play`, "  hours                choice of none | 1 to 5 | 6 to 15 | over 15: Hours",
		"  age                  number 18 to 99: Your age", "final, once after the last round:\n  best "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("study check's instruments\n%s\nlack %q", b.String(), want)
		}
	}
}

func TestInstrumentErrors(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"kind", `kind = "number"`, `kind = "slider"`, `pilot.toml:53:1: intake[0].kind: "slider", want one of yesno, likert, likert7, fairness, scale, number, choice, text`},
		{"number without max", "max = 99\n", "", `intake[0].max: missing: a number question needs its greatest answer, max`},
		{"max below min", "max = 99", "max = 10", `intake[0].max: 10, want above min (18)`},
		{"min on likert", `kind = "likert7"`, "kind = \"likert7\"\nmin = 0", `question[1].min: only scale and number questions take min and max (this one is likert7`},
		{"scale without anchors", `anchors = ["none at all", "unplayable"]`, ``, `question[2].anchors: missing: a scale question labels its ends`},
		{"scale too wide", "max = 10\n", "max = 100\n", `question[2].max: a scale of 101 points, want 2 to 21 (a wider range is a number question)`},
		{"one anchor", `anchors = ["beginner", "expert"]`, `anchors = ["beginner"]`, `intake[2].anchors: 1 labels, want 2`},
		{"anchors on yes/no", `kind = "yesno"`, "kind = \"yesno\"\nanchors = [\"no\", \"yes\"]", `final[1].anchors: only likert, likert7, fairness and scale questions have anchors (this one is yesno)`},
		{"one choice", `choices = ["none", "1 to 5", "6 to 15", "over 15"]`, `choices = ["none"]`, `intake[1].choices: 1 choices, want 2 to 20`},
		{"same choice twice", `choices = ["none", "1 to 5", "6 to 15", "over 15"]`, `choices = ["none", "none"]`, `intake[1].choices: choice 2: "none" is an earlier choice`},
		{"choices on text", `kind = "text"`, "kind = \"text\"\nchoices = [\"a\", \"b\"]", `final[0].choices: only a choice question has choices (this one is text)`},
		{"choice after a round", `kind = "likert7"`, "kind = \"choice\"\nchoices = [\"a\", \"b\"]", `question[1].kind: choice is for [[intake]] and [[final]] questions`},
		{"id used twice", `id = "best"`, `id = "age"`, `final[0].id: "age" is the id of intake[0]: ids are unique across intake, question and final`},
		{"empty consent", `You will play four short rounds of a shooter.
Your answers are kept under a code, not your name.`, ` `, `consent.text: missing: the text participants read and agree to before playing`},
		{"unknown key", `kind = "yesno"`, "kind = \"yesno\"\nlabel = \"x\"", `final[1].label`},
		{"synthetic in intake", "max = 99", "max = 99\nsynthetic_participant_sd = 1", `intake[0].synthetic: synthetic answers are drawn for the questionnaire after each round ([[question]]) only`},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(instrumented, c.old, c.new, 1)
			if text == instrumented {
				t.Fatalf("the case changes nothing: %q not in the schedule", c.old)
			}
			_, err := Parse("pilot.toml", []byte(text))
			var ce *cfgfile.Error
			if err == nil || !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *cfgfile.Error containing %q", err, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

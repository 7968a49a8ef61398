package study

import (
	"strings"
	"testing"
)

// TestCheckSaysWhatParticipantsSee: study check's summary names, for
// every technique and round, what each participant's page is shown of
// the network: nothing when the schedule sets no feedback (the page is
// blind to the condition), the schedule's feedback when it sets one.
func TestCheckSaysWhatParticipantsSee(t *testing.T) {
	s, err := Parse("blind.toml", []byte(`name = "blind"
[[seat]]
code = "p1"
[[seat]]
bot = true
[[technique]]
name = "tlc"
policy = { name = "tlc" }
[[technique]]
name = "placebo"
policy = { name = "tlc" }
feedback = "placebo"
placebo_ms = 20
[[round]]
name = "one"
map = "arena"
mode = "ffa"
duration = "20s"
technique = "tlc"
[[round]]
name = "two"
map = "arena"
mode = "ffa"
duration = "20s"
technique = "placebo"
`))
	if err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	want := map[string]string{"tlc": "none", "placebo": "placebo"}
	for _, ti := range sum.Techniques {
		if ti.Shown != want[ti.Name] {
			t.Errorf("technique %s: shown %q, want %q", ti.Name, ti.Shown, want[ti.Name])
		}
	}
	for _, r := range sum.Rounds {
		if r.Shown != want[r.Technique] {
			t.Errorf("round %s: shown %q, want %q", r.Name, r.Shown, want[r.Technique])
		}
	}
	var b strings.Builder
	sum.WriteText(&b)
	for _, line := range []string{
		"shown to each participant's page",
		"tlc                nothing of the network or the condition",
		"placebo            a placebo ping of 20 ms",
		"every participant is shown: placebo",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("check's summary lacks %q:\n%s", line, b.String())
		}
	}
}

// TestDuplicateRoundNames: two rounds of one name, which every table
// and plot tells rounds apart by, are refused, naming the earlier round
// from 1 as the summary counts.
func TestDuplicateRoundNames(t *testing.T) {
	_, err := Parse("dup.toml", []byte(`name = "dup"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "10s"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "10s"
`))
	if err == nil || !strings.Contains(err.Error(), `round[1].name: "a" is round 1's name too`) {
		t.Fatalf("two rounds named a: %v", err)
	}
}

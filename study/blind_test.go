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
	if err == nil || !strings.Contains(err.Error(), `round[1].name: "a" is round 1's name too: give each round its own (round 2)`) {
		t.Fatalf("two rounds named a: %v", err)
	}
}

// TestCheckListsEveryRound: study check lists a problem of every round
// that has one, in the file's order, each naming its round from 1 as the
// summary counts (it showed one, and counted rounds from 0).
func TestCheckListsEveryRound(t *testing.T) {
	_, err := Parse("bad.toml", []byte(`name = "x"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "-5s"
[[round]]
name = "b"
map = "nope"
mode = "ffa"
duration = "10s"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "10s"
`))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		"bad.toml:10:1: round[0].duration: -5s, want 1s to 99:59 (round 1)",
		`bad.toml:13:1: round[1].map: no shipped map "nope"`,
		`bad.toml:17:1: round[2].name: "a" is round 1's name too: give each round its own (round 3)`,
	}
	if len(lines) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d lines", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
}

// TestCheckListsEveryProblem: study check lists every problem of a round,
// not its first alone, with those of the other rounds, sorted by line
// and column, each with the file, its line and column, the key and the
// round counted from 1.
func TestCheckListsEveryProblem(t *testing.T) {
	_, err := Parse("bad.toml", []byte(`name = "x"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[technique]]
name = "alc"
policy = { name = "alc" }
[[round]]
map = "arena"
mode = "race"
duration = "-5s"
technique = "nope"
weapons = ["rifle", "spoon"]
latency = [{ seats = [7], latency_ms = 10 }]
[[round]]
map = "arena"
mode = "ffa"
duration = "10s"
technique = "tlc"
[[round]]
map = "nowhere"
duration = "10s"
warmup = "20m"
technique = "alc"
`))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`bad.toml:11:1: round[0].mode: unknown mode "race"`,
		"bad.toml:12:1: round[0].duration: -5s, want 1s to 99:59 (round 1)",
		`bad.toml:13:1: round[0].technique: unknown technique "nope"`,
		`bad.toml:14:1: round[0].weapons[1]: unknown weapon "spoon"`,
		`bad.toml:15:14: round[0].latency[0].seats: no seat 7`,
		`bad.toml:21:3: round[2].mode: missing: one of ffa, tdm, ctf, dom (round 3)`,
		`bad.toml:22:1: round[2].map: no shipped map "nowhere"`,
		"bad.toml:24:1: round[2].warmup: 20m0s, want 0 to 10m (round 3)",
	}
	if len(lines) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d lines", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
	for _, l := range lines {
		if !strings.Contains(l, " (round ") {
			t.Errorf("%q does not name its round from 1", l)
		}
	}
}

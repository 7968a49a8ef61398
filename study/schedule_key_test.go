package study

import (
	"slices"
	"strings"
	"testing"
)

const keySchedule = `name = "k"
[[seat]]
code = "a1"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[technique]]
name = "none"
policy = { name = "none" }
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "none"
latency = [{ seats = [0], latency_ms = 50 }]
[[question]]
id = "fair"
text = "Fair?"
kind = "fairness"
`

// TestScheduleKey: comments, spacing, key order and defaults written out
// keep a schedule's key; a changed setting changes it, and Differences
// names it.
func TestScheduleKey(t *testing.T) {
	parse := func(text string) *Schedule {
		t.Helper()
		s, err := Parse("k.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := parse(keySchedule)
	same := parse("# a comment\n" + strings.NewReplacer(
		`mode = "ffa"`+"\nduration = \"30s\"\ntechnique = \"tlc\"", `duration = "0:30"`+"\n  mode   = \"ffa\"\ntechnique = \"tlc\"\nwarmup = \"0s\"",
		`name = "tlc"`, `name = "tlc"`+"\npolicy = { name = \"tlc\" }",
	).Replace(keySchedule))
	if base.Key() != same.Key() || len(Differences(base, same)) != 0 {
		t.Fatalf("keys %s and %s, differences %v", base.Key(), same.Key(), Differences(base, same))
	}
	changed := parse(strings.Replace(strings.Replace(keySchedule, `latency_ms = 50`, `latency_ms = 60`, 1), `duration = "30s"`, `duration = "1m"`, 1))
	want := []string{"round 1 duration: 30s stored, 1m0s now",
		"round 2 seat 0 link: 50 ms latency, 0 ms jitter, 0 loss stored, 60 ms latency, 0 ms jitter, 0 loss now"}
	if got := Differences(base, changed); base.Key() == changed.Key() || !slices.Equal(got, want) {
		t.Fatalf("differences %q, want %q", got, want)
	}
}

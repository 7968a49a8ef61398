package study

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// onlineWithout is presets/online.toml (an attention check, rounds at
// target round trips) without its [exclusion] table.
func onlineWithout(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../presets/online.toml")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(b), "[exclusion]\n")
	_, tail, ok2 := strings.Cut(rest, "\n\n")
	if !ok || !ok2 {
		t.Fatal("presets/online.toml has no [exclusion] table")
	}
	return head + tail
}

// exclusionSchedule is presets/online.toml with table for its
// [exclusion] table.
func exclusionSchedule(t *testing.T, table string) string {
	return onlineWithout(t) + "\n[exclusion]\n" + table
}

// TestExclusionChecked: each rule out of range, a table that sets none,
// a rule on checks the schedule has not and a round-trip rule with no
// target round trip are refused at load, naming the key.
func TestExclusionChecked(t *testing.T) {
	for _, c := range []struct{ table, want string }{
		{"failed_checks = -1\n", "exclusion.failed_checks: -1, want 0 (off)"},
		{"min_rounds = 1.5\n", "exclusion.min_rounds: 1.5, want a share of the session's rounds"},
		{"min_fps = 2000\n", "exclusion.min_fps: 2000, want 0 (off) to 1000"},
		{"max_rtt_error_ms = -3\n", "exclusion.max_rtt_error_ms: -3, want 0 (off) to 5000"},
		{"min_fps = 0\n", "exclusion: every rule is 0 (off)"},
		{"min_fps = nan\n", "exclusion.min_fps: NaN"},
		{"max_errors = 2\n", "max_errors"},
	} {
		text := exclusionSchedule(t, c.table)
		_, err := Parse("online.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.table, err, c.want)
		}
	}
	noCheck := keySchedule + "[exclusion]\nfailed_checks = 1\n"
	if _, err := Parse("k.toml", []byte(noCheck)); err == nil || !strings.Contains(err.Error(), "no [[question]] is an attention check") {
		t.Errorf("failed_checks without an attention check: %v", err)
	}
	noTarget := keySchedule + "[exclusion]\nmax_rtt_error_ms = 20\n"
	if _, err := Parse("k.toml", []byte(noTarget)); err == nil || !strings.Contains(err.Error(), "no round holds a target round trip") {
		t.Errorf("max_rtt_error_ms without a target: %v", err)
	}
	text := exclusionSchedule(t, "failed_checks = 1\nmin_rounds = 0.75\nmin_fps = 30\nmax_rtt_error_ms = 25\n")
	s, err := Parse("online.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Exclusion{FailedChecks: 1, MinRounds: 0.75, MinFPS: 30, MaxRTTErrorMS: 25}); *s.Exclusion != want {
		t.Errorf("rules %+v, want %+v", *s.Exclusion, want)
	}
	var b strings.Builder
	s.Summary().WriteText(&b)
	if want := "excluded from the report's analyses: an attention check answered other than instructed; under 75% of the session's rounds played; " +
		"a page drawing under 30 frames a second (median of the rounds); a measured round trip off a round's target by more than 25 ms\n"; !strings.Contains(b.String(), want) {
		t.Errorf("study check does not say the rules:\n%s", b.String())
	}
}

// TestExclusionInKey: the exclusion rules are in the schedule's key, so
// rules changed after the data came in show; a schedule without them
// keeps the key it had.
func TestExclusionInKey(t *testing.T) {
	b := onlineWithout(t)
	parse := func(text string) *Schedule {
		t.Helper()
		s, err := Parse("online.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := parse(b)
	strict := parse(b + "\n[exclusion]\nfailed_checks = 1\nmax_rtt_error_ms = 25\n")
	loose := parse(b + "\n[exclusion]\nmax_rtt_error_ms = 25\nfailed_checks = 2\n")
	same := parse(b + "\n[exclusion]\nmax_rtt_error_ms = 25.0 # ms\nfailed_checks = 1\nmin_fps = 0\n")
	if strict.Key() == base.Key() || strict.Key() == loose.Key() {
		t.Errorf("keys: none %s, strict %s, loose %s: the rules do not show", base.Key(), strict.Key(), loose.Key())
	}
	if strict.Key() != same.Key() {
		t.Errorf("the same rules written otherwise changed the key: %s, %s", strict.Key(), same.Key())
	}
	d := Differences(strict, loose)
	if !slices.ContainsFunc(d, func(s string) bool { return strings.Contains(s, "exclusion failed_checks") }) {
		t.Errorf("differences %q do not name the rule", d)
	}
	if base.StudyKey() == strict.StudyKey() {
		t.Error("the study key ignores the exclusion rules: sessions under other rules would pool")
	}
}

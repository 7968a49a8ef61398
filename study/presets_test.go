package study

import (
	"path/filepath"
	"testing"
)

// TestPresetsCheck: every shipped preset is a valid schedule.
func TestPresetsCheck(t *testing.T) {
	files, err := filepath.Glob("../presets/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if filepath.Base(f) == "atd_weapons.toml" {
			continue
		}
		n++
		s, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		t.Logf("%s: %d seats, %d rounds", f, len(s.Seats()), len(s.Plans()))
	}
	if n != 7 {
		t.Errorf("%d presets, want alc, atd, lagcomp-scaling, online, peek, scaling and timewarp", n)
	}
}

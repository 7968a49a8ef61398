package study

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/experiment"
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

// TestALCPresetIsTheThesisDesign: presets/alc.toml seats a set of the
// alc study's size with the round trips lagkit's alc experiment gives
// it (the thesis's design: about 20 ms, half with 250 ms added), every
// round: the same multiset of round trips, and the lagged seats split
// two and one between the teams seats alternate into.
func TestALCPresetIsTheThesisDesign(t *testing.T) {
	s, err := Load("../presets/alc.toml")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Seats()); n != experiment.ALCPlayers {
		t.Fatalf("%d seats, want %d", n, experiment.ALCPlayers)
	}
	var want []float64
	for _, rtt := range experiment.ALCLatency(1) {
		want = append(want, rtt)
	}
	slices.Sort(want)
	for _, p := range s.Plans() {
		var got []float64
		lagged := [2]int{}
		for i, l := range p.Links {
			rtt := 2 * l.LatencyMS
			got = append(got, rtt)
			if rtt > want[0] {
				lagged[i%2]++
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("round %s: round trips %v, want %v", p.Name, got, want)
		}
		if lagged[0]+lagged[1] != 3 || lagged[0] == 0 || lagged[1] == 0 {
			t.Errorf("round %s: lagged seats by team %v, want two and one", p.Name, lagged)
		}
	}
}

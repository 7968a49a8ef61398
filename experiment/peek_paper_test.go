package experiment

// This file checks the peek experiment against what its sources say
// ([valorant], [tokey-peek] in docs/references.md): Riot's account of
// the peeker's advantage as a sum of delays, and the design's claims
// about who the advantage and the wins follow.

import (
	"context"
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestPeekRiotAccount runs the quick design and checks, cell by cell:
//
//	the advantage is "the enemy's client frame + the enemy's one-way
//	latency + the server frame + your one-way latency + your
//	interpolation delay" ([valorant])
//
// within the frames (each at most a tick) and a tick of sighting, that the peeker always saw first,
// that every round trip added to either player lengthens the advantage by
// about half of it (one way), and that the report answers the question of
// [tokey-peek] with a test and an effect size.
func TestPeekRiotAccount(t *testing.T) {
	e, err := Get("peek")
	if err != nil {
		t.Fatal(err)
	}
	r, cells, err := Run(context.Background(), e, Options{Seed: 1, Quick: true, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	tick := float64(game.TickDuration(64).Microseconds()) / 1000
	for _, c := range r.Conditions {
		if c.Name == "all" {
			continue
		}
		m := c.Metrics
		if m["duels"] != m["rounds"] || m["duels"] == 0 {
			t.Errorf("%s: %v duels in %v rounds: want both bots to draw each other every round", c.Name, m["duels"], m["rounds"])
		}
		// The two frames are each up to a tick (Riot's sum counts them
		// whole), and sightings are seen at client ticks: the measure
		// lies between the sum without its frames less a tick and the
		// whole sum plus a tick.
		if lo, hi := m["expected_ms"]-3*tick, m["expected_ms"]+tick; !(m["advantage_ms"] >= lo && m["advantage_ms"] <= hi) {
			t.Errorf("%s: measured advantage %.1f ms, Riot's account %.1f ms: want %.1f to %.1f ms", c.Name, m["advantage_ms"], m["expected_ms"], lo, hi)
		}
		if m["peeker_saw_first_share"] != 1 {
			t.Errorf("%s: the peeker saw first in %.2f of duels, want all", c.Name, m["peeker_saw_first_share"])
		}
	}
	var all map[string]float64
	for _, c := range r.Conditions {
		if c.Name == "all" {
			all = c.Metrics
		}
	}
	for _, k := range []string{"advantage_ms_slope_peeker", "advantage_ms_slope_defender"} {
		if v := all[k]; !(v > 0.4 && v < 0.7) {
			t.Errorf("%s = %v ms per ms of round trip: want about a half (one way)", k, v)
		}
	}
	var tested bool
	for _, ts := range r.Tests {
		if ts.Metric == "peeker_win_share" && ts.Kind == "paired_t" && ts.EffectMeasure == EffectCohenDz && ts.N == 12 {
			tested = true
		}
	}
	if !tested {
		t.Errorf("no paired test of the peeker's win share over the 12 swapped pairs: %+v", r.Tests)
	}
	if len(cells) != len(e.Cells(true)) {
		t.Errorf("%d cells played, want %d", len(cells), len(e.Cells(true)))
	}
	for _, ref := range r.Published {
		if p := ref.Problems(); len(p) > 0 || ref.Check != Unverified {
			t.Errorf("published %s: %v, check %s (the paper is not among the source texts: want unverified)", ref.Metric, p, ref.Check)
		}
	}
}

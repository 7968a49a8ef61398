package reckoning

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// path samples player id of team at 64 Hz for d from t0, at pos(t).
func path(id, team int, t0, d time.Duration, pos func(t float64) geom.Vec3) []Sample {
	var out []Sample
	for t := t0; t <= t0+d; t += time.Second / 64 {
		out = append(out, Sample{T: t, Player: id, Team: team, Pos: pos(t.Seconds())})
	}
	return out
}

func TestReplayStraightRunSendsTwice(t *testing.T) {
	// The first frame has no velocity yet, so the receiver holds still
	// until the error passes 0.381 m (4 m/s: the seventh frame, 0.109 s
	// later); from then on the projection is exact.
	run := path(1, 0, 0, 3*time.Second, func(t float64) geom.Vec3 { return geom.V(4*t, 0, 0) })
	r := ReplayTrack(run, Dead{})
	if r.Updates != 2 || r.Frames != len(run) || math.Abs(r.Seconds-3) > 1e-9 {
		t.Fatalf("straight run: %+v, want 2 updates over %d frames and 3 s", r, len(run))
	}
	// Frames 1 to 7 lag by k/16 m. The blend (B = DefaultK/η) then
	// closes the gap g = 7/16 m: τ after the update the receiver is at
	// (1-f)(g + v τ (1-f)) from the truth, f = τ/B, and after it exact.
	var want float64
	for k := 1; k <= 7; k++ {
		want += float64(k) / 16
	}
	b := DefaultK / DefaultEta
	for j := 1; float64(j)/64 < b; j++ {
		tau := float64(j) / 64
		f := tau / b
		want += (1 - f) * (7.0/16 + 4*tau*(1-f))
	}
	if math.Abs(r.ErrorSum-want) > 1e-6 { // B is whole nanoseconds
		t.Errorf("straight run: summed error %.6f m, want %.6f m", r.ErrorSum, want)
	}
}

func TestReplaySumsTracksPerPlayer(t *testing.T) {
	still := func(t float64) geom.Vec3 { return geom.V(1, 2, 0) }
	var s []Sample
	s = append(s, path(4, 1, 0, time.Second, still)...)
	s = append(s, path(4, 1, 2*time.Second, time.Second, still)...) // after a gap: a second track
	s = append(s, path(2, 0, 0, time.Second, still)...)
	got := Replay(s, func(team int) Policy { return Dead{} })
	if len(got) != 2 || got[0].Player != 2 || got[1].Player != 4 || got[1].Team != 1 {
		t.Fatalf("players %+v, want 2 then 4 of team 1", got)
	}
	if got[1].Updates != 2 || got[1].Frames != 2*65 || math.Abs(got[1].Seconds-2) > 1e-9 || got[1].ErrorSum != 0 {
		t.Errorf("player 4: %+v, want an update per track, 130 frames, 2 s and no error", got[1])
	}
}

// TestReplayLedFollowsTheTrend weaves along x: led reckoning with the
// trend along x widens the threshold and sends fewer updates than dead
// reckoning, and with the trend across the weave narrows it and sends
// more.
func TestReplayLedFollowsTheTrend(t *testing.T) {
	weave := path(0, 0, 0, 20*time.Second, func(t float64) geom.Vec3 {
		return geom.V(-40+4*t, 0.4*math.Sin(2*math.Pi*t/1.5), 0)
	})
	across := path(1, 0, 0, 20*time.Second, func(t float64) geom.Vec3 { return geom.V(0, -40+4*t, 0) })
	grid := func(train []Sample) *TrendMap {
		m := &TrendMap{Map: "test", Team: 0, Bounds: geom.AABB{Min: geom.V(-50, -50, 0), Max: geom.V(50, 50, 5)}, NX: 1, NY: 1}
		if err := m.Build(train); err != nil {
			t.Fatal(err)
		}
		return m
	}
	dead := ReplayTrack(weave, Dead{})
	along := ReplayTrack(weave, Led{Trend: grid(weave)})
	crossed := ReplayTrack(weave, Led{Trend: grid(across)})
	if !(along.Updates < dead.Updates && dead.Updates < crossed.Updates) {
		t.Errorf("updates: led along the trend %d, dead %d, led across it %d: want increasing", along.Updates, dead.Updates, crossed.Updates)
	}
	if !(along.ErrorMean() > dead.ErrorMean() && dead.ErrorMean() > crossed.ErrorMean()) {
		t.Errorf("mean error: led along %.3f, dead %.3f, led across %.3f m: want decreasing", along.ErrorMean(), dead.ErrorMean(), crossed.ErrorMean())
	}
}

func TestHoldOut(t *testing.T) {
	var s []Sample
	for _, id := range []int{9, 5, 2, 7, 5} {
		s = append(s, Sample{Player: id})
	}
	held, train, err := HoldOut(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(s []Sample) (out []int) {
		for _, x := range s {
			out = append(out, x.Player)
		}
		return out
	}
	if h, tr := ids(held), ids(train); len(h) != 2 || h[0] != 2 || h[1] != 7 || len(tr) != 3 {
		t.Errorf("held %v, trained %v: want players 2 and 7 held (the first and third of 2, 5, 7, 9)", h, tr)
	}
	if _, _, err := HoldOut(s, 1); err == nil || !strings.Contains(err.Error(), "want 2 or more") {
		t.Errorf("every player held out: error %v", err)
	}
}

func TestUpdatesAtError(t *testing.T) {
	frontier := []FrontierPoint{{Eta: 0.6, UpdatesPerS: 1, ErrorMean: 0.3}, {Eta: 0.2, UpdatesPerS: 4, ErrorMean: 0.1}, {Eta: 0.4, UpdatesPerS: 2, ErrorMean: 0.2}}
	for _, tc := range []struct {
		e, upd, eta float64
		ok          bool
	}{{0.15, 3, 0.3, true}, {0.1, 4, 0.2, true}, {0.3, 1, 0.6, true}, {0.25, 1.5, 0.5, true}, {0.05, 0, 0, false}, {0.31, 0, 0, false}} {
		upd, eta, ok := UpdatesAtError(frontier, tc.e)
		if ok != tc.ok || math.Abs(upd-tc.upd) > 1e-12 || math.Abs(eta-tc.eta) > 1e-12 {
			t.Errorf("error %.2f m: %.3f updates/s at %.3f m (%v), want %.3f at %.3f (%v)", tc.e, upd, eta, ok, tc.upd, tc.eta, tc.ok)
		}
	}
}

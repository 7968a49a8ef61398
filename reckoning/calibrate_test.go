package reckoning_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/reckoning"
)

// TestDefaultK: DefaultK is CalibrateK's K on the match its comment
// names, first order with recorded velocities, to three figures; no
// figure of the led reckoning study enters it (it was the study's
// 17.8 updates a second, the figure the replay is compared with).
func TestDefaultK(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a 3-minute match of 12 bots")
	}
	s, err := match.RecordPaths(match.Config{Map: "metro", Mode: mode.CTF, Bots: 12, Seed: 1, TickRate: 64, PathRate: 64,
		PathVelocity: true, Duration: 3 * time.Minute}, 1)
	if err != nil {
		t.Fatal(err)
	}
	k, gap, speed, ok := reckoning.CalibrateK(s, reckoning.DefaultEta, reckoning.First, reckoning.Recorded)
	if !ok {
		t.Fatal("nothing to calibrate on")
	}
	if math.Abs(k-reckoning.DefaultK) > 0.00005 {
		t.Errorf("calibrated K = %.5f m·s (gap %.3f m, speed %.2f m/s); DefaultK = %v", k, gap, speed, reckoning.DefaultK)
	}
	if circular := reckoning.DefaultEta / 17.8; math.Abs(reckoning.DefaultK-circular) < 0.001 {
		t.Errorf("DefaultK %v is the study's update rate's %v", reckoning.DefaultK, circular)
	}
}

// TestRecordedVelocityPaths: a path file with velocities reads back
// with them, and a replay with recorded velocities differs from one with
// velocities from positions only where the two differ.
func TestRecordedVelocityPaths(t *testing.T) {
	var samples []reckoning.Sample
	for i := range 400 {
		tt := time.Duration(i) * time.Second / 64
		x := 4 * tt.Seconds()
		// A turn every 2 s: positions lag the recorded velocity's change.
		vy := 0.0
		if (i/128)%2 == 1 {
			vy = 3
		}
		samples = append(samples, reckoning.Sample{T: tt, Player: 1, Pos: geom.V(x, float64(i%128)*vy/64, 0), Vel: geom.V(4, vy, 0), HasVel: true})
	}
	var buf bytes.Buffer
	w := reckoning.NewPathWriter(&buf)
	w.Velocity = true
	for _, s := range samples {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	back, err := reckoning.ReadPaths("vel.csv", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(samples) || !back[10].HasVel || back[10].Vel != samples[10].Vel {
		t.Fatalf("read back %d samples, sample 10 %+v; want %d, velocity %v", len(back), back[10], len(samples), samples[10].Vel)
	}
	dead := func(int) reckoning.Policy { return reckoning.Dead{Threshold: 0.2} }
	pos, err := reckoning.ReplayPaths(back, dead, reckoning.ReplayOptions{Order: reckoning.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := reckoning.ReplayPaths(back, dead, reckoning.ReplayOptions{Order: reckoning.Second, Velocity: reckoning.Recorded})
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != len(rec) || len(pos) == 0 {
		t.Fatalf("%d and %d paths", len(pos), len(rec))
	}
	if pos[0].ErrorSum == rec[0].ErrorSum && pos[0].Updates == rec[0].Updates {
		t.Error("recorded velocities replayed as velocities from positions")
	}
	stripped := append([]reckoning.Sample(nil), back...)
	stripped[5].HasVel = false
	if _, err := reckoning.ReplayPaths(stripped, dead, reckoning.ReplayOptions{Velocity: reckoning.Recorded}); err == nil {
		t.Error("a sample without a recorded velocity replayed as recorded")
	}
	if long, _ := reckoning.ReplayPaths(back, dead, reckoning.ReplayOptions{MinDuration: 10 * time.Second}); len(long) != 0 {
		t.Errorf("a 6 s path kept under a 10 s minimum: %v", long)
	}
}

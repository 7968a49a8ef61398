package reckoning_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/shooter/mode"
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

// TestCompareReportsPerPath: Compare gives, beside the pooled figures,
// the mean and standard deviation over the replayed paths of 5 s or
// more (the led reckoning study's unit): a short path is left out, and
// the mean over paths weighs a path, not a second, so two paths of
// different lengths and speeds give another figure than pooling does.
func TestCompareReportsPerPath(t *testing.T) {
	var s []reckoning.Sample
	add := func(player int, t0, d time.Duration, speed float64, turnEvery int) {
		y := 0.0
		for i := 0; time.Duration(i)*time.Second/64 <= d; i++ {
			tt := t0 + time.Duration(i)*time.Second/64
			if (i/turnEvery)%2 == 1 {
				y += 2.0 / 64 // a sideways step at 2 m/s
			} else {
				y -= 2.0 / 64
			}
			s = append(s, reckoning.Sample{T: tt, Player: player, Team: player % 2, Pos: geom.V(speed*float64(i)/64, y, 0)})
		}
	}
	add(0, 0, 20*time.Second, 2, 64)             // a long, slow path
	add(0, 30*time.Second, 6*time.Second, 5, 16) // a short, fast, turning one
	add(0, 40*time.Second, 2*time.Second, 5, 16) // under 5 s: left out per path
	add(1, 0, 20*time.Second, 3, 32)             // the trend maps' player
	rep, err := reckoning.Compare(s, reckoning.CompareConfig{MapName: "m", Bounds: geomBounds(), Grid: 10, HoldOut: 2,
		EtaMin: 0.095, Eta: 0.381, EtaMax: 0.667, K: reckoning.DefaultK})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Paths != 2 {
		t.Fatalf("%d paths replayed per path, want the 2 of 5 s or more", rep.Paths)
	}
	dead := rep.Methods[0]
	if !(dead.PathUpdatesPerSSD > 0) || dead.PathUpdatesPerS == dead.UpdatesPerS {
		t.Errorf("dead: per path %v ± %v updates/s, pooled %v: want a mean over paths with its deviation", dead.PathUpdatesPerS, dead.PathUpdatesPerSSD, dead.UpdatesPerS)
	}
	var out bytes.Buffer
	if err := rep.WriteTable(&out); err != nil || !bytes.Contains(out.Bytes(), []byte("per path (2 paths of 5s or more")) {
		t.Errorf("table: %v\n%s", err, out.String())
	}
}

func geomBounds() geom.AABB { return geom.AABB{Min: geom.V(-50, -50, 0), Max: geom.V(150, 50, 5)} }

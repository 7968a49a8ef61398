package match

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
)

// TestThresholdReplicationSavesBytes: with the same seed, threshold
// replication sends each client fewer bytes than full snapshots, sends
// player states, and its clients' display error stays under a metre
// while full replication's interpolation is near exact.
func TestThresholdReplicationSavesBytes(t *testing.T) {
	run := func(method string) (bytes, updates, disp float64) {
		rep, err := server.ThresholdReplication(method, "metro")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(Config{Bots: 6, Duration: 20 * time.Second, Seed: 2, BaseRTTms: 40, Replication: rep}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n, samples float64
		for _, p := range r.Players {
			bytes += p.BytesPerS
			updates += float64(p.UpdatesSent)
			disp += p.DisplayErrorM * float64(p.DisplaySamples)
			samples += float64(p.DisplaySamples)
			n++
		}
		if samples == 0 {
			t.Fatalf("%s: no display error samples", method)
		}
		return bytes / n, updates / n, disp / samples
	}
	fullB, fullU, fullE := run("full")
	// Full replication sends the 5 others' states in every one of about
	// 20 s x 64 snapshots, and interpolation draws them almost exactly.
	if fullU < 0.95*5*20*64 || fullE > 0.05 {
		t.Errorf("full: %v states sent per client, display error %.3f m", fullU, fullE)
	}
	for _, m := range []string{"dead", "led"} {
		b, u, e := run(m)
		t.Logf("%s: %.0f B/s per client (full %.0f), %.0f states (full %.0f), display error %.3f m (full %.3f)", m, b, fullB, u, fullU, e, fullE)
		if b >= 0.9*fullB || u == 0 || u > fullU/5 || e > reckoning.DefaultEta {
			t.Errorf("%s: %.0f B/s per client against full's %.0f, %.0f states against %.0f, display error %.3f m", m, b, fullB, u, fullU, e)
		}
	}
	if _, err := server.ThresholdReplication("psychic", "metro"); err == nil {
		t.Error("an unknown replication method was accepted")
	}
	if _, err := server.ThresholdReplication("led", "nowhere"); err == nil {
		t.Error("led replication on a map without trend maps was accepted")
	}
}

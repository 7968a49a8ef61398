package rtt

import (
	"testing"
	"time"
)

func TestEstimatorConvergesAndResistsJitter(t *testing.T) {
	var e Estimator
	if e.Smoothed() != 0 || e.Samples() != 0 {
		t.Fatal("zero estimator has samples")
	}
	e.Add(-time.Millisecond)
	if e.Samples() != 0 {
		t.Fatal("negative sample counted")
	}
	// Alternating 80/120 ms samples around a true 100 ms RTT.
	for i := 0; i < 200; i++ {
		e.Add(time.Duration(100+20*(1-2*(i%2))) * time.Millisecond)
	}
	if got := e.Smoothed(); got < 95*time.Millisecond || got > 105*time.Millisecond {
		t.Fatalf("smoothed %v, want about 100ms", got)
	}
	if e.Min() != 80*time.Millisecond {
		t.Fatalf("min %v", e.Min())
	}
	if v := e.Var(); v < 15*time.Millisecond || v > 25*time.Millisecond {
		t.Fatalf("var %v, want about 20ms", v)
	}
}

// TestSampleTakesOutTheTruncatedHold: a 50 ms round trip whose far end
// held the packet for a hold with a fraction of a microsecond, reported
// truncated, measures exactly 50 ms at any phase; a hold claimed longer
// than the elapsed time gives 0, never a negative sample; a round trip
// between whole microseconds is measured as one of the two around it,
// never below the lower.
func TestSampleTakesOutTheTruncatedHold(t *testing.T) {
	const rtt = 50 * time.Millisecond
	for _, hold := range []time.Duration{0, 999, 1000, 1001, 4_321_999, 15_624_999} {
		reported := hold.Truncate(time.Microsecond)
		if got := Sample(rtt+hold, reported); got != rtt {
			t.Errorf("hold %v reported as %v: sample %v, want %v", hold, reported, got, rtt)
		}
		if got := Sample(rtt-1+hold, reported); got != rtt && got != rtt-time.Microsecond {
			t.Errorf("round trip %v, hold %v: sample %v", rtt-1, hold, got)
		}
	}
	if got := Sample(10*time.Millisecond, time.Second); got != 0 {
		t.Errorf("hold beyond the elapsed time: sample %v, want 0", got)
	}
	if got := Sample(10*time.Millisecond, -time.Second); got != 10*time.Millisecond {
		t.Errorf("negative hold: sample %v, want 10ms", got)
	}
}

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

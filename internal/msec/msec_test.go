package msec

import (
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	for _, v := range []float64{0, 0.5, 15.625, 250, 1e4} {
		if got := Of(Duration(v)); got != v {
			t.Errorf("Of(Duration(%v)) = %v", v, got)
		}
	}
	if Duration(1.5) != 1500*time.Microsecond {
		t.Errorf("Duration(1.5) = %v", Duration(1.5))
	}
}

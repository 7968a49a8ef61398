package wire

import (
	"math"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

func TestTracerEventRoundTrip(t *testing.T) {
	for _, e := range []TracerEvent{
		{},
		{Shooter: 3, Weapon: 1, From: geom.V(1.5, -2.25, 1.6484375), To: geom.V(-40.5, 12.125, 0)},
		{Shooter: 255, Weapon: 255, From: geom.V(maxPos, -maxPos, maxPos), To: geom.V(-maxPos, maxPos, -maxPos)},
	} {
		b, err := AppendTracerEvent(nil, &e)
		if err != nil || len(b) > 26 {
			t.Fatalf("%+v: %d bytes, %v (want at most 26)", e, len(b), err)
		}
		var got TracerEvent
		if err := DecodeTracerEvent(b, &got); err != nil || got != e {
			t.Fatalf("decoded %+v, %v; want %+v", got, err, e)
		}
	}
}

func TestTracerEventErrors(t *testing.T) {
	for _, c := range []struct {
		e    TracerEvent
		want string
	}{
		{TracerEvent{From: geom.V(0.001, 0, 0)}, "from"},
		{TracerEvent{To: geom.V(0, math.NaN(), 0)}, "to"},
		{TracerEvent{To: geom.V(0, 0, 2*maxPos)}, "to"},
	} {
		dst := []byte{7}
		b, err := AppendTracerEvent(dst, &c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(b) != 1 {
			t.Errorf("%+v: %v, %d bytes; want an error naming %q and dst unchanged", c.e, err, len(b), c.want)
		}
	}
	good, _ := AppendTracerEvent(nil, &TracerEvent{Shooter: 1, From: geom.V(1, 2, 3), To: geom.V(4, 5, 6)})
	var e TracerEvent
	if err := DecodeTracerEvent(good[:len(good)-2], &e); err == nil {
		t.Error("a truncated tracer event decoded")
	}
	if err := DecodeTracerEvent(append(good, 0xff), &e); err == nil {
		t.Error("a tracer event with trailing bytes decoded")
	}
}

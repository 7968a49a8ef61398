package game

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

func TestTmpCase(t *testing.T) {
	p := DefaultParams()
	boxes := room(100, 150)
	g := geom.NewGrid(boxes, 2)
	s := PlayerState{Pos: geom.V(2.595703125, -4.095703125, 0.62890625)}
	for i, b := range boxes {
		if gp := gap(s, &p, b); gp < 0.5 {
			t.Logf("box %d %v gap %v", i, b, gp)
		}
	}
	m := mover{p: &p, f: s.Pos, c: p.body(false)}
	m.w = newWorld(g, m.region(0.1), nil)
	h, ok := m.w.sweep(m.f, geom.V(0, 0, -groundProbe), m.c)
	t.Logf("probe %+v %v", h, ok)
	out := Move(s, UserCmd{Duration: 105391 * time.Microsecond, Side: 127, Yaw: 9495}, g, &p)
	t.Logf("%+v", out)
}

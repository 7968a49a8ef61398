package game

import (
	"testing"

	"github.com/lagkit/lagkit/geom"
)

func TestDbgStep2(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(4, 2, 0.3))}, 0)
	m := mover{p: &p, f: geom.V(0.697265625, 0, 0.16796875), v: geom.V(4, 0, 0), onGround: true, c: p.body(false)}
	m.w = newWorld(g, m.region(1.0/64), nil)
	core := m.c.core(g.Boxes()[0])
	t.Logf("core %v clearance %v dist %v", core, m.w.clearance(m.f, m.c), m.f.Dist(closest(core, m.f)))
	f1, v1, touched := m.w.slide(m.f, m.v, 1.0/64, m.c, true)
	t.Logf("plain %v %v %v", f1, v1, touched)
	h, ok := m.w.sweep(m.f, geom.V(0, 0, 0.35), m.c)
	t.Logf("up %+v %v", h, ok)
	h, ok = m.w.sweep(m.f, geom.V(0.0625, 0, 0), m.c)
	t.Logf("fwd %+v %v", h, ok)
	m.stepSlide(1.0 / 64)
	t.Logf("stepped %v %v", m.f, m.v)
}

func TestDbgStep3(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(4, 2, 0.3))}, 0)
	m := mover{p: &p, f: geom.V(0.697265625, 0, 0.16796875), v: geom.V(4, 0, 0), onGround: true, c: p.body(false)}
	m.w = newWorld(g, m.region(1.0/64), nil)
	m.findGround()
	t.Logf("ground %v %v %v", m.onGround, m.f, m.v)
	dir, speed := wish(forward(0), 4)
	m.friction(1.0 / 64)
	m.accelerate(dir, speed, m.p.Accel, 1.0/64)
	t.Logf("acc %v %v %v", m.onGround, m.f, m.v)
	m.stepSlide(1.0 / 64)
	t.Logf("step %v %v %v", m.onGround, m.f, m.v)
	m.findGround()
	t.Logf("ground %v %v %v", m.onGround, m.f, m.v)
	pos := SnapPos(m.f)
	t.Logf("snap %v clearance %v", pos, m.w.clearance(pos, m.c))
}

func TestDbgStep4(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(4, 2, 0.3))}, 0)
	c := p.body(false)
	w := newWorld(g, geom.Box(geom.V(-5, -5, -5), geom.V(5, 5, 5)), nil)
	f := geom.V(0.697265625, 0, 0.1673801731288651)
	core := c.core(g.Boxes()[0])
	t.Logf("dist %.17g r %.17g", f.Dist(closest(core, f)), c.r+skin)
	h, ok := w.sweep(f, geom.V(0.0625, 0, 0), c)
	t.Logf("fwd %+v %v", h, ok)
	tt, n, ok := sweepRounded(f, geom.V(0.0625, 0, 0), core, c.r+skin)
	t.Logf("rounded %v %v %v", tt, n, ok)
}

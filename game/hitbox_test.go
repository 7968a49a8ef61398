package game

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// insideCapsule reports whether part c lies within the movement capsule of
// player s. The distance to a segment is convex along a segment, so the
// part's end points are its farthest points from the movement axis.
func insideCapsule(c geom.Capsule, s PlayerState, p *Params) bool {
	b := p.body(s.Has(FlagCrouched))
	a0, a1 := s.Pos.Add(geom.V(0, 0, b.r)), s.Pos.Add(geom.V(0, 0, b.h-b.r))
	for _, e := range []geom.Vec3{c.A, c.B} {
		if e.Dist(geom.ClosestPointOnSegment(a0, a1, e))+c.R > b.r+1e-12 {
			return false
		}
	}
	return true
}

func TestHitboxesInsideMovementCapsule(t *testing.T) {
	big := DefaultParams()
	big.Radius, big.Height, big.EyeHeight = 0.5, 2.0, 1.85
	small := DefaultParams()
	small.Radius, small.CrouchHeight, small.CrouchEyeHeight = 0.3, 1.0, 0.85
	for _, p := range []Params{DefaultParams(), big, small} {
		for _, flags := range []StateFlags{0, FlagCrouched} {
			for yaw := 0; yaw < AngleUnits; yaw += 4096 + 77 {
				s := PlayerState{Pos: geom.V(3, -2, 0.5), Yaw: uint16(yaw), Flags: flags}
				box := Bounds(s, &p)
				for _, part := range Hitboxes(s, &p) {
					if !insideCapsule(part.Shape, s, &p) {
						t.Errorf("radius %v, flags %v, yaw %d: %v %+v sticks out of the movement capsule", p.Radius, flags, yaw, part.Kind, part.Shape)
					}
					if b := part.Shape.Bounds(); b.Union(box) != box {
						t.Errorf("%v bounds %v outside Bounds %v", part.Kind, b, box)
					}
				}
			}
		}
	}
}

func TestHitboxPlacement(t *testing.T) {
	p := DefaultParams()
	stand := PlayerState{Pos: geom.V(1, 2, 0.25)}
	crouch := stand
	crouch.Flags = FlagCrouched
	hs, hc := Hitboxes(stand, &p), Hitboxes(crouch, &p)

	for i, part := range hs {
		if part.Kind != PartKind(i) {
			t.Errorf("part %d is %v", i, part.Kind)
		}
	}
	top := func(c geom.Capsule) float64 { return math.Max(c.A.Z, c.B.Z) }
	for _, h := range [][NumParts]Part{hs, hc} {
		head, torso := h[PartHead].Shape, h[PartTorso].Shape
		if head.A != head.B {
			t.Errorf("head %+v is not a sphere", head)
		}
		if head.A.Z-head.R < top(torso) {
			t.Errorf("head %+v not above the torso's axis %+v", head, torso)
		}
		for _, leg := range []geom.Capsule{h[PartLegL].Shape, h[PartLegR].Shape} {
			if top(leg) > math.Min(torso.A.Z, torso.B.Z) {
				t.Errorf("leg %+v reaches above the torso's axis %+v", leg, torso)
			}
		}
	}
	if math.Abs(hs[PartHead].Shape.A.Z-EyePos(stand, &p).Z) > 1e-12 {
		t.Errorf("standing head at %v, want at eye height %v", hs[PartHead].Shape.A, EyePos(stand, &p))
	}
	legLen := func(c geom.Capsule) float64 { return c.A.Dist(c.B) }
	for _, k := range []PartKind{PartHead, PartTorso} {
		if drop := hs[k].Origin.Z - hc[k].Origin.Z; drop < 0.3 {
			t.Errorf("crouching lowers the %v by %.3f m, want at least 0.3", k, drop)
		}
	}
	if legLen(hc[PartLegL].Shape) >= legLen(hs[PartLegL].Shape)-0.2 {
		t.Errorf("crouched legs %.3f m long, standing %.3f m: want shorter", legLen(hc[PartLegL].Shape), legLen(hs[PartLegL].Shape))
	}
}

func TestHitboxYaw(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		yaw  uint16
		left geom.Vec3 // direction from the body's axis to the left leg
	}{
		{0, geom.V(0, 1, 0)},
		{AngleUnits / 4, geom.V(-1, 0, 0)},
		{AngleUnits / 2, geom.V(0, -1, 0)},
		{AngleUnits * 3 / 4, geom.V(1, 0, 0)},
	}
	for _, tc := range tests {
		s := PlayerState{Pos: geom.V(-4, 7, 0), Yaw: tc.yaw}
		h := Hitboxes(s, &p)
		off := h[PartLegL].Origin.Sub(s.Pos)
		off.Z = 0
		if off.Norm().Dist(tc.left) > 1e-9 {
			t.Errorf("yaw %d: left leg offset %v, want along %v", tc.yaw, off, tc.left)
		}
		mirror := h[PartLegR].Origin.Sub(s.Pos)
		if math.Abs(mirror.X+off.X) > 1e-12 || math.Abs(mirror.Y+off.Y) > 1e-12 {
			t.Errorf("yaw %d: right leg offset %v does not mirror the left %v", tc.yaw, mirror, off)
		}
		// Every part's local +X is the view direction, +Y its left.
		for _, part := range h {
			ahead := part.ToLocal(part.Origin.Add(AimDir(tc.yaw, 0)))
			if ahead.Dist(geom.V(1, 0, 0)) > 1e-9 {
				t.Errorf("yaw %d: %v local view direction %v, want +X", tc.yaw, part.Kind, ahead)
			}
			if l := part.ToLocal(part.Origin.Add(tc.left)); l.Dist(geom.V(0, 1, 0)) > 1e-9 {
				t.Errorf("yaw %d: %v local left %v, want +Y", tc.yaw, part.Kind, l)
			}
		}
	}
}

// TestPartFrameRoundTrip: an impact stored in a part's frame lands on the
// same spot of the part in another pose, which is what shot-behind-cover
// detection relies on.
func TestPartFrameRoundTrip(t *testing.T) {
	p := DefaultParams()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		a := PlayerState{Pos: geom.V(rng.Float64()*20, rng.Float64()*20, rng.Float64()), Yaw: uint16(rng.Uint32())}
		b := a
		b.Pos = b.Pos.Add(geom.V(rng.Float64(), rng.Float64(), 0))
		b.Yaw += uint16(rng.IntN(AngleUnits))
		k := PartKind(rng.IntN(NumParts))
		pa, pb := Hitboxes(a, &p)[k], Hitboxes(b, &p)[k]
		w := pa.Shape.A.Lerp(pa.Shape.B, rng.Float64()).Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Scale(0.05))
		l := pa.ToLocal(w)
		if back := pa.ToWorld(l); back.Dist(w) > 1e-12 {
			t.Fatalf("round trip %v -> %v -> %v", w, l, back)
		}
		// The same local point in pose b keeps its distance to the part's axis.
		da := w.Dist(geom.ClosestPointOnSegment(pa.Shape.A, pa.Shape.B, w))
		wb := pb.ToWorld(l)
		if db := wb.Dist(geom.ClosestPointOnSegment(pb.Shape.A, pb.Shape.B, wb)); math.Abs(da-db) > 1e-9 {
			t.Fatalf("%v: impact %.6f m from the axis in one pose, %.6f in the other", k, da, db)
		}
	}
}

func TestEyePosAndAimDir(t *testing.T) {
	p := DefaultParams()
	s := PlayerState{Pos: geom.V(1, 2, 3)}
	if got := EyePos(s, &p); got != geom.V(1, 2, 4.65) {
		t.Errorf("standing eye %v", got)
	}
	s.Flags = FlagCrouched
	if got := EyePos(s, nil); got != geom.V(1, 2, 4.05) {
		t.Errorf("crouched eye %v", got)
	}
	tests := []struct {
		yaw   uint16
		pitch int16
		want  geom.Vec3
	}{
		{0, 0, geom.V(1, 0, 0)},
		{AngleUnits / 4, 0, geom.V(0, 1, 0)},
		{AngleUnits / 2, 0, geom.V(-1, 0, 0)},
		{AngleUnits / 8, 0, geom.V(math.Sqrt2/2, math.Sqrt2/2, 0)},
		{0, AngleUnits / 8, geom.V(math.Sqrt2/2, 0, math.Sqrt2/2)},
		{0, -AngleUnits / 8, geom.V(math.Sqrt2/2, 0, -math.Sqrt2/2)},
		{0, math.MaxInt16, geom.V(math.Cos(AngleToRad(MaxPitch)), 0, math.Sin(AngleToRad(MaxPitch)))},
	}
	for _, tc := range tests {
		got := AimDir(tc.yaw, tc.pitch)
		if got.Dist(tc.want) > 1e-12 || math.Abs(got.Len()-1) > 1e-12 {
			t.Errorf("AimDir(%d, %d) = %v, want %v", tc.yaw, tc.pitch, got, tc.want)
		}
	}
}

func TestBounds(t *testing.T) {
	p := DefaultParams()
	s := PlayerState{Pos: geom.V(1, 2, 3)}
	if got, want := Bounds(s, &p), geom.Box(geom.V(0.6, 1.6, 3), geom.V(1.4, 2.4, 4.8)); got != want {
		t.Errorf("standing bounds %v, want %v", got, want)
	}
	s.Flags = FlagCrouched
	if got, want := Bounds(s, nil), geom.Box(geom.V(0.6, 1.6, 3), geom.V(1.4, 2.4, 4.2)); got != want {
		t.Errorf("crouched bounds %v, want %v", got, want)
	}
}

func TestPartKindString(t *testing.T) {
	for k, want := range map[PartKind]string{PartHead: "head", PartTorso: "torso", PartLegL: "leg_l", PartLegR: "leg_r", 9: "PartKind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("PartKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// TestTorsoOriginIsHitboxes checks TorsoOrigin against the torso part
// Hitboxes builds, bit for bit, over random poses, stances and bodies.
func TestTorsoOriginIsHitboxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	small := DefaultParams()
	small.Radius, small.CrouchHeight, small.CrouchEyeHeight = 0.3, 1.0, 0.85
	for i := range 2000 {
		p := DefaultParams()
		if i%2 == 1 {
			p = small
		}
		s := PlayerState{
			Pos: geom.V((rng.Float64()-0.5)*2000, (rng.Float64()-0.5)*2000, rng.Float64()*50),
			Yaw: uint16(rng.Uint32()),
		}
		if rng.IntN(2) == 0 {
			s.Flags |= FlagCrouched
		}
		if i == 0 {
			s.Pos = geom.V(math.Copysign(0, -1), 0, 0)
		}
		want := Hitboxes(s, &p)[PartTorso].Origin
		if got := TorsoOrigin(s, &p); got != want || math.Signbit(got.X) != math.Signbit(want.X) {
			t.Fatalf("pose %+v: TorsoOrigin %v, Hitboxes %v", s, got, want)
		}
	}
	if got, want := TorsoOrigin(PlayerState{}, nil), Hitboxes(PlayerState{}, nil)[PartTorso].Origin; got != want {
		t.Errorf("nil params: TorsoOrigin %v, Hitboxes %v", got, want)
	}
}

package game

import (
	"math"
	"strconv"

	"github.com/lagkit/lagkit/geom"
)

// PartKind names a body part that shots can hit.
type PartKind uint8

// The body parts, in the order Hitboxes returns them.
const (
	PartHead PartKind = iota
	PartTorso
	PartLegL
	PartLegR
)

// NumParts is the number of body parts.
const NumParts = 4

var partNames = [NumParts]string{"head", "torso", "leg_l", "leg_r"}

// String returns the part's name as logs and reports spell it.
func (k PartKind) String() string {
	if int(k) < len(partNames) {
		return partNames[k]
	}
	return "PartKind(" + strconv.Itoa(int(k)) + ")"
}

// Part is one rigid body part of a player's pose: its solid Shape in world
// space (the head is a sphere: a capsule with A == B) and its frame, the
// point Origin turned by Yaw radians about +Z. Hit registration reports an
// impact in the frame of the part hit, so the same spot on the part can be
// found again in another pose of it (shot-behind-cover detection).
type Part struct {
	Kind   PartKind
	Shape  geom.Capsule
	Origin geom.Vec3
	Yaw    float64
}

// ToLocal returns world point w in the part's frame.
func (p Part) ToLocal(w geom.Vec3) geom.Vec3 {
	return rotateZ(w.Sub(p.Origin), -p.Yaw)
}

// ToWorld returns point l of the part's frame in world space.
func (p Part) ToWorld(l geom.Vec3) geom.Vec3 {
	return p.Origin.Add(rotateZ(l, p.Yaw))
}

// rotateZ turns v by a radians counter-clockwise about +Z.
func rotateZ(v geom.Vec3, a float64) geom.Vec3 {
	sin, cos := math.Sincos(a)
	return geom.Vec3{X: v.X*cos - v.Y*sin, Y: v.X*sin + v.Y*cos, Z: v.Z}
}

// Body proportions, for the default 0.4 m by 1.8 m player: sizes across
// are fractions of the capsule radius, heights fractions of the eye
// height, so the parts follow Params and stance and stay inside the
// movement capsule.
const (
	headRadius  = 0.3  // 0.12 m, a head about 24 cm across
	torsoRadius = 0.5  // 0.2 m: 40 cm shoulders
	legRadius   = 0.25 // 0.1 m
	legSpread   = 0.25 // leg axes 0.1 m either side of the body's axis
	footLift    = 1.5  // leg segments end 0.15 m above the feet
	hipHeight   = 0.55 // 0.91 m standing, 0.58 m crouched
	torsoLow    = 0.58 // torso segment from 0.96 m...
	torsoHigh   = 0.79 // ...to 1.30 m standing (0.61 to 0.83 m crouched)
)

// Hitboxes returns the body parts of player s: a head sphere centred at
// eye height, a torso capsule below it, and two leg capsules either side
// of the body's axis across the view yaw. Crouching lowers the head and
// torso with the eyes and shortens the legs. Every part's frame turns with
// the view yaw, and every part lies inside the movement capsule. Nil p
// means DefaultParams.
func Hitboxes(s PlayerState, p *Params) [NumParts]Part {
	if p == nil {
		p = &defaultParams
	}
	yaw := AngleToRad(int32(s.Yaw))
	eye := p.eyeHeight(s.Flags&FlagCrouched != 0)
	r := p.Radius
	at := func(z float64) geom.Vec3 { return s.Pos.Add(geom.Vec3{Z: z}) }
	// The left of the view direction (cos yaw, sin yaw).
	sin, cos := math.Sincos(yaw)
	left := geom.Vec3{X: -sin, Y: cos}.Scale(legSpread * r)

	head := geom.Capsule{A: at(eye), B: at(eye), R: headRadius * r}
	torso := geom.Capsule{A: at(torsoLow * eye), B: at(torsoHigh * eye), R: torsoRadius * r}
	foot, hip := at(footLift*legRadius*r), at(hipHeight*eye)
	legL := geom.Capsule{A: foot.Add(left), B: hip.Add(left), R: legRadius * r}
	legR := geom.Capsule{A: foot.Sub(left), B: hip.Sub(left), R: legRadius * r}

	part := func(k PartKind, c geom.Capsule) Part {
		return Part{Kind: k, Shape: c, Origin: c.A.Lerp(c.B, 0.5), Yaw: yaw}
	}
	return [NumParts]Part{
		part(PartHead, head),
		part(PartTorso, torso),
		part(PartLegL, legL),
		part(PartLegR, legR),
	}
}

// TorsoOrigin returns the origin of player s's torso part, the centre of
// its capsule: Hitboxes(s, p)[PartTorso].Origin, without building the
// other parts, for callers that aim at or look for a player's body many
// times a tick. Nil p means DefaultParams.
func TorsoOrigin(s PlayerState, p *Params) geom.Vec3 {
	if p == nil {
		p = &defaultParams
	}
	eye := p.eyeHeight(s.Flags&FlagCrouched != 0)
	a := s.Pos.Add(geom.Vec3{Z: torsoLow * eye})
	b := s.Pos.Add(geom.Vec3{Z: torsoHigh * eye})
	return a.Lerp(b, 0.5)
}

// EyePos returns the view origin of player s: the eye height of its stance
// above its feet. Nil p means DefaultParams.
func EyePos(s PlayerState, p *Params) geom.Vec3 {
	if p == nil {
		p = &defaultParams
	}
	// The flag is tested directly, here and in Hitboxes, TorsoOrigin and
	// Bounds: s.Has would copy the whole state (see Move).
	return s.Pos.Add(geom.Vec3{Z: p.eyeHeight(s.Flags&FlagCrouched != 0)})
}

// AimDir returns the unit view direction for the view angles: yaw 0 looks
// along +X and turns counter-clockwise seen from above; positive pitch
// looks up. Pitch is clamped to ±MaxPitch, as Move clamps it.
func AimDir(yaw uint16, pitch int16) geom.Vec3 {
	pitch = max(-MaxPitch, min(MaxPitch, pitch))
	sy, cy := math.Sincos(AngleToRad(int32(yaw)))
	sp, cp := math.Sincos(AngleToRad(int32(pitch)))
	return geom.Vec3{X: cp * cy, Y: cp * sy, Z: sp}
}

// Bounds returns the bounding box of player s's movement capsule, for
// broad phases. Nil p means DefaultParams.
func Bounds(s PlayerState, p *Params) geom.AABB {
	if p == nil {
		p = &defaultParams
	}
	c := p.body(s.Flags&FlagCrouched != 0)
	return geom.AABB{
		Min: s.Pos.Sub(geom.Vec3{X: c.r, Y: c.r}),
		Max: s.Pos.Add(geom.Vec3{X: c.r, Y: c.r, Z: c.h}),
	}
}

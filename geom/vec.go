// Package geom provides the vector maths, shapes, ray casts and broad phase
// that lagkit's movement, hit registration and line-of-sight code share.
// Units are metres; +Z is up.
package geom

import "math"

// Vec3 is a point or direction in world space.
type Vec3 struct{ X, Y, Z float64 }

// V returns the vector (x, y, z).
func V(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a - b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Scale returns a * s.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }

// AddScaled returns a + b*s.
func (a Vec3) AddScaled(b Vec3, s float64) Vec3 {
	return Vec3{a.X + b.X*s, a.Y + b.Y*s, a.Z + b.Z*s}
}

// Dot returns the dot product a . b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns the cross product a x b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// Len returns the length of a.
func (a Vec3) Len() float64 { return math.Sqrt(a.Dot(a)) }

// Len2 returns the squared length of a.
func (a Vec3) Len2() float64 { return a.Dot(a) }

// Dist returns the distance between a and b.
func (a Vec3) Dist(b Vec3) float64 { return a.Sub(b).Len() }

// Norm returns a scaled to unit length, or the zero vector if a is zero.
func (a Vec3) Norm() Vec3 {
	l := a.Len()
	if l == 0 {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// Lerp returns a + (b-a)*t.
func (a Vec3) Lerp(b Vec3, t float64) Vec3 {
	return Vec3{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t, a.Z + (b.Z-a.Z)*t}
}

// Min returns the component-wise minimum of a and b.
func (a Vec3) Min(b Vec3) Vec3 {
	return Vec3{math.Min(a.X, b.X), math.Min(a.Y, b.Y), math.Min(a.Z, b.Z)}
}

// Max returns the component-wise maximum of a and b.
func (a Vec3) Max(b Vec3) Vec3 {
	return Vec3{math.Max(a.X, b.X), math.Max(a.Y, b.Y), math.Max(a.Z, b.Z)}
}

// IsFinite reports whether every component is neither NaN nor infinite.
func (a Vec3) IsFinite() bool {
	return !math.IsNaN(a.X) && !math.IsInf(a.X, 0) &&
		!math.IsNaN(a.Y) && !math.IsInf(a.Y, 0) &&
		!math.IsNaN(a.Z) && !math.IsInf(a.Z, 0)
}

// AABB is an axis-aligned box from Min to Max (Min <= Max on every axis).
type AABB struct{ Min, Max Vec3 }

// Box returns the AABB spanning the two corners in any order.
func Box(a, b Vec3) AABB { return AABB{a.Min(b), a.Max(b)} }

// Center returns the centre of the box.
func (b AABB) Center() Vec3 { return b.Min.Add(b.Max).Scale(0.5) }

// Size returns the extent of the box on each axis.
func (b AABB) Size() Vec3 { return b.Max.Sub(b.Min) }

// Contains reports whether p lies inside or on the box.
func (b AABB) Contains(p Vec3) bool {
	return p.X >= b.Min.X && p.X <= b.Max.X &&
		p.Y >= b.Min.Y && p.Y <= b.Max.Y &&
		p.Z >= b.Min.Z && p.Z <= b.Max.Z
}

// Overlaps reports whether the two boxes share any point.
func (b AABB) Overlaps(o AABB) bool {
	return b.Min.X <= o.Max.X && b.Max.X >= o.Min.X &&
		b.Min.Y <= o.Max.Y && b.Max.Y >= o.Min.Y &&
		b.Min.Z <= o.Max.Z && b.Max.Z >= o.Min.Z
}

// Expand returns the box grown by r on every side.
func (b AABB) Expand(r float64) AABB {
	d := Vec3{r, r, r}
	return AABB{b.Min.Sub(d), b.Max.Add(d)}
}

// Union returns the smallest box containing both.
func (b AABB) Union(o AABB) AABB { return AABB{b.Min.Min(o.Min), b.Max.Max(o.Max)} }

package world

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/cfgfile"
)

// problem is a validation failure at a field path.
type problem = cfgfile.Problem

var fail = cfgfile.Problemf

// touch is the tolerance for "standing on" and "touching": map numbers are
// typed by hand, and 1e-6 m is far below anything a player could notice.
const touch = 1e-6

var (
	boxKinds       = []string{Wall, Cover, Pillar, Platform, Step}
	objectiveKinds = []string{Flag, Point}
	axisNames      = [3]string{"x", "y", "z"}
)

// build validates a decoded file and returns the map it describes.
func build(f *fileMap) (*Map, *problem) {
	m := &Map{Name: f.Name}
	if f.Name == "" {
		return nil, fail("name", "missing")
	}
	if len(f.Name) > MaxNameLen {
		return nil, fail("name", "longer than %d bytes", MaxNameLen)
	}
	var p *problem
	if m.Bounds, p = bounds(f.Bounds); p != nil {
		return nil, p
	}
	switch {
	case len(f.Boxes) > MaxBoxes:
		return nil, fail("boxes", "%d boxes, at most %d allowed", len(f.Boxes), MaxBoxes)
	case len(f.Spawns) > MaxSpawns:
		return nil, fail("spawns", "%d spawns, at most %d allowed", len(f.Spawns), MaxSpawns)
	case len(f.Objectives) > MaxObjectives:
		return nil, fail("objectives", "%d objectives, at most %d allowed", len(f.Objectives), MaxObjectives)
	}

	m.Boxes = make([]Box, len(f.Boxes))
	aabbs := make([]geom.AABB, len(f.Boxes))
	for i, fb := range f.Boxes {
		path := "boxes[" + strconv.Itoa(i) + "]"
		if !slices.Contains(boxKinds, fb.Kind) {
			return nil, fail(path+".kind", "unknown kind %q (want %s)", fb.Kind, strings.Join(boxKinds, ", "))
		}
		b, p := box(path, fb.Min, fb.Max, m.Bounds)
		if p != nil {
			return nil, p
		}
		m.Boxes[i] = Box{fb.Kind, b}
		aabbs[i] = b
	}
	// Zero lets the grid pick a cell size suited to the number of boxes.
	m.Grid = geom.NewGrid(aabbs, 0)

	m.Spawns = make([]Spawn, len(f.Spawns))
	for i, fs := range f.Spawns {
		path := "spawns[" + strconv.Itoa(i) + "]"
		s, p := spawn(path, fs, m)
		if p != nil {
			return nil, p
		}
		for j, o := range m.Spawns[:i] {
			if capsulesOverlap(s.Pos, o.Pos) {
				return nil, fail(path, "capsule overlaps spawns[%d]", j)
			}
		}
		m.Spawns[i] = s
	}
	for _, team := range []int{0, 1} {
		if !slices.ContainsFunc(m.Spawns, func(s Spawn) bool { return s.Team == team }) {
			return nil, fail("spawns", "no spawn for team %d", team)
		}
	}

	m.Objectives = make([]Objective, len(f.Objectives))
	for i, fo := range f.Objectives {
		path := "objectives[" + strconv.Itoa(i) + "]"
		o, p := objective(path, fo, m)
		if p != nil {
			return nil, p
		}
		for j, prev := range m.Objectives[:i] {
			if prev.Name == o.Name {
				return nil, fail(path+".name", "%q is already the name of objectives[%d]", o.Name, j)
			}
		}
		m.Objectives[i] = o
	}
	return m, nil
}

// vec converts a JSON vector.
func vec(path string, v []float64) (geom.Vec3, *problem) {
	if len(v) != 3 {
		return geom.Vec3{}, fail(path, "want [x, y, z], got %d numbers", len(v))
	}
	return geom.V(v[0], v[1], v[2]), nil
}

func axes(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

func bounds(fb fileBounds) (geom.AABB, *problem) {
	lo, p := vec("bounds.min", fb.Min)
	if p != nil {
		return geom.AABB{}, p
	}
	hi, p := vec("bounds.max", fb.Max)
	if p != nil {
		return geom.AABB{}, p
	}
	for _, c := range []struct {
		path string
		v    geom.Vec3
	}{{"bounds.min", lo}, {"bounds.max", hi}} {
		for a, x := range axes(c.v) {
			if math.Abs(x) > MaxCoord {
				return geom.AABB{}, fail(c.path, "%s %g is beyond ±%d m", axisNames[a], x, MaxCoord)
			}
		}
	}
	if lo.Z != 0 {
		return geom.AABB{}, fail("bounds.min", "z %g is not 0 (the ground)", lo.Z)
	}
	if p := ordered("bounds.max", lo, hi); p != nil {
		return geom.AABB{}, p
	}
	return geom.AABB{Min: lo, Max: hi}, nil
}

// ordered checks that hi is above lo on every axis.
func ordered(path string, lo, hi geom.Vec3) *problem {
	l, h := axes(lo), axes(hi)
	for a := range 3 {
		if !(h[a] > l[a]) {
			return fail(path, "%s %g is not above min %s %g", axisNames[a], h[a], axisNames[a], l[a])
		}
	}
	return nil
}

func box(path string, fmin, fmax []float64, bounds geom.AABB) (geom.AABB, *problem) {
	lo, p := vec(path+".min", fmin)
	if p != nil {
		return geom.AABB{}, p
	}
	hi, p := vec(path+".max", fmax)
	if p != nil {
		return geom.AABB{}, p
	}
	if p := ordered(path+".max", lo, hi); p != nil {
		return geom.AABB{}, p
	}
	if p := within(path+".min", lo, bounds); p != nil {
		return geom.AABB{}, p
	}
	if p := within(path+".max", hi, bounds); p != nil {
		return geom.AABB{}, p
	}
	return geom.AABB{Min: lo, Max: hi}, nil
}

// within checks that point v lies inside bounds.
func within(path string, v geom.Vec3, bounds geom.AABB) *problem {
	x, lo, hi := axes(v), axes(bounds.Min), axes(bounds.Max)
	for a := range 3 {
		if x[a] < lo[a] || x[a] > hi[a] {
			return fail(path, "%s %g is outside bounds [%g, %g]", axisNames[a], x[a], lo[a], hi[a])
		}
	}
	return nil
}

func spawn(path string, fs fileSpawn, m *Map) (Spawn, *problem) {
	if fs.Team < 0 || fs.Team >= MaxTeams {
		return Spawn{}, fail(path+".team", "%d is not a team (0 to %d)", fs.Team, MaxTeams-1)
	}
	if math.Abs(fs.Yaw) > 2*math.Pi {
		return Spawn{}, fail(path+".yaw", "%g is beyond ±2π", fs.Yaw)
	}
	pos, p := vec(path+".pos", fs.Pos)
	if p != nil {
		return Spawn{}, p
	}
	if p := within(path+".pos", pos, m.Bounds); p != nil {
		return Spawn{}, p
	}
	c := capsuleBounds(pos)
	if c.Min.X < m.Bounds.Min.X || c.Min.Y < m.Bounds.Min.Y ||
		c.Max.X > m.Bounds.Max.X || c.Max.Y > m.Bounds.Max.Y || c.Max.Z > m.Bounds.Max.Z {
		return Spawn{}, fail(path, "capsule reaches outside bounds")
	}
	near := m.Grid.Query(c.Expand(touch), nil)
	slices.Sort(near) // report the lowest-numbered box, whatever the grid's order
	for _, i := range near {
		if capsuleBoxDist(pos, m.Boxes[i].AABB) < playerRadius-touch {
			return Spawn{}, fail(path, "capsule overlaps boxes[%d]", i)
		}
	}
	if pos.Z > touch && !slices.ContainsFunc(near, func(i int) bool { return onTop(pos, m.Boxes[i].AABB) }) {
		return Spawn{}, fail(path+".pos", "feet at z %g are neither on the ground nor on a box top", pos.Z)
	}
	return Spawn{Team: fs.Team, Pos: pos, Yaw: fs.Yaw}, nil
}

// capsuleBounds returns the AABB of the standing player capsule with feet
// at pos.
func capsuleBounds(pos geom.Vec3) geom.AABB {
	return geom.AABB{
		Min: pos.Sub(geom.V(playerRadius, playerRadius, 0)),
		Max: pos.Add(geom.V(playerRadius, playerRadius, playerHeight)),
	}
}

// capsuleBoxDist returns the distance between box b and the core segment of
// the standing capsule with feet at pos. The segment is vertical, so the
// distance splits exactly into a horizontal part (point to rectangle) and a
// vertical part (interval to interval).
func capsuleBoxDist(pos geom.Vec3, b geom.AABB) float64 {
	dx := max(b.Min.X-pos.X, 0, pos.X-b.Max.X)
	dy := max(b.Min.Y-pos.Y, 0, pos.Y-b.Max.Y)
	z0, z1 := pos.Z+playerRadius, pos.Z+playerHeight-playerRadius
	dz := max(b.Min.Z-z1, 0, z0-b.Max.Z)
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// onTop reports whether feet at pos stand on the top face of b.
func onTop(pos geom.Vec3, b geom.AABB) bool {
	return math.Abs(pos.Z-b.Max.Z) <= touch &&
		pos.X >= b.Min.X && pos.X <= b.Max.X && pos.Y >= b.Min.Y && pos.Y <= b.Max.Y
}

// capsulesOverlap reports whether standing capsules with feet at a and b
// intersect.
func capsulesOverlap(a, b geom.Vec3) bool {
	dz := max(math.Abs(a.Z-b.Z)-(playerHeight-2*playerRadius), 0)
	dx, dy := a.X-b.X, a.Y-b.Y
	return dx*dx+dy*dy+dz*dz < (2*playerRadius-touch)*(2*playerRadius-touch)
}

func objective(path string, fo fileObjective, m *Map) (Objective, *problem) {
	if !slices.Contains(objectiveKinds, fo.Kind) {
		return Objective{}, fail(path+".kind", "unknown kind %q (want %s)", fo.Kind, strings.Join(objectiveKinds, ", "))
	}
	if fo.Name == "" {
		return Objective{}, fail(path+".name", "missing")
	}
	if len(fo.Name) > MaxNameLen {
		return Objective{}, fail(path+".name", "longer than %d bytes", MaxNameLen)
	}
	if fo.Team < -1 || fo.Team >= MaxTeams {
		return Objective{}, fail(path+".team", "%d is neither -1 (neutral) nor a team (0 to %d)", fo.Team, MaxTeams-1)
	}
	pos, p := vec(path+".pos", fo.Pos)
	if p != nil {
		return Objective{}, p
	}
	if p := within(path+".pos", pos, m.Bounds); p != nil {
		return Objective{}, p
	}
	near := m.Grid.Query(geom.AABB{Min: pos, Max: pos}, nil)
	slices.Sort(near)
	for _, i := range near {
		b := m.Boxes[i]
		if pos.X > b.Min.X && pos.X < b.Max.X && pos.Y > b.Min.Y && pos.Y < b.Max.Y &&
			pos.Z > b.Min.Z && pos.Z < b.Max.Z {
			return Objective{}, fail(path+".pos", "inside boxes[%d]", i)
		}
	}
	return Objective{Kind: fo.Kind, Name: fo.Name, Team: fo.Team, Pos: pos}, nil
}

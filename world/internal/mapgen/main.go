// Command mapgen writes lagkit's shipped maps (world/maps/*.json). The maps
// are built from a few boxes each, turned about the origin to make them
// symmetric, so that no team is favoured by the layout. Run it from the
// module root after changing a layout:
//
//	go run ./world/internal/mapgen
//
// Its test checks that the committed files match what it generates.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

func main() {
	dir := flag.String("dir", "world/maps", "directory to write the maps to")
	flag.Parse()
	for _, m := range maps() {
		path := filepath.Join(*dir, m.Name+".json")
		if err := os.WriteFile(path, world.Encode(m), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mapgen:", err)
			os.Exit(1)
		}
	}
}

// maps returns the shipped maps.
func maps() []*world.Map { return []*world.Map{metro(), arena(), courtyard()} }

// Heights shared by the maps: walls about 3 m, low covers about 1 m, which
// a crouching player (1.2 m) hides behind and a standing one shoots over,
// as in the ALC study's metro map ([alc]).
const (
	wallH  = 3.0
	coverH = 1.0
	thick  = 0.5 // perimeter wall thickness
)

// builder assembles a map centred on the origin.
type builder struct{ m world.Map }

// newBuilder starts a map whose floor spans [-hx, hx] x [-hy, hy], enclosed
// by perimeter walls inside that area.
func newBuilder(name string, hx, hy, height float64) *builder {
	b := &builder{m: world.Map{
		Name:   name,
		Bounds: geom.AABB{Min: geom.V(-hx, -hy, 0), Max: geom.V(hx, hy, height)},
	}}
	// The four walls overlap like a pinwheel, each taking one corner, so
	// the ring is symmetric under quarter turns when the map is square.
	b.turn2(world.Wall, -hx, -hy, 0, hx-thick, -hy+thick, wallH)
	b.turn2(world.Wall, -hx, -hy+thick, 0, -hx+thick, hy, wallH)
	return b
}

// add adds one box spanning the two corners.
func (b *builder) add(kind string, x0, y0, z0, x1, y1, z1 float64) {
	b.m.Boxes = append(b.m.Boxes, world.Box{Kind: kind, AABB: geom.Box(geom.V(x0, y0, z0), geom.V(x1, y1, z1))})
}

// turn2 adds a box and its copy turned 180 degrees about the Z axis (once
// if the box is its own copy).
func (b *builder) turn2(kind string, x0, y0, z0, x1, y1, z1 float64) {
	b.add(kind, x0, y0, z0, x1, y1, z1)
	if x0 != -x1 || y0 != -y1 {
		b.add(kind, -x0, -y0, z0, -x1, -y1, z1)
	}
}

// turn4 adds a box and its copies turned 90, 180 and 270 degrees about the
// Z axis.
func (b *builder) turn4(kind string, x0, y0, z0, x1, y1, z1 float64) {
	for range 4 {
		b.add(kind, x0, y0, z0, x1, y1, z1)
		x0, y0, x1, y1 = -y0, x0, -y1, x1
	}
}

// spawn2 adds a team 0 spawn and its turned copy for team 1.
func (b *builder) spawn2(x, y, z, yaw float64) {
	b.spawn(0, x, y, z, yaw)
	b.spawn(1, -x, -y, z, yaw+math.Pi)
}

// spawn4 adds a spawn for team 0 in the south-west quadrant and its copies
// turned by 90, 180 and 270 degrees, for teams 3 (south-east), 1
// (north-east) and 2 (north-west).
func (b *builder) spawn4(x, y, z, yaw float64) {
	for _, team := range []int{0, 3, 1, 2} {
		b.spawn(team, x, y, z, yaw)
		x, y, yaw = -y, x, yaw+math.Pi/2
	}
}

func (b *builder) spawn(team int, x, y, z, yaw float64) {
	yaw = math.Remainder(yaw, 2*math.Pi)
	b.m.Spawns = append(b.m.Spawns, world.Spawn{Team: team, Pos: geom.V(x, y, z), Yaw: yaw})
}

// flags adds team 0's flag and team 1's, turned.
func (b *builder) flags(x, y, z float64) {
	b.objective(world.Flag, "flag-0", 0, x, y, z)
	b.objective(world.Flag, "flag-1", 1, -x, -y, z)
}

// point adds a neutral control point.
func (b *builder) point(name string, x, y, z float64) {
	b.objective(world.Point, name, -1, x, y, z)
}

func (b *builder) objective(kind, name string, team int, x, y, z float64) {
	b.m.Objectives = append(b.m.Objectives, world.Objective{Kind: kind, Name: name, Team: team, Pos: geom.V(x, y, z)})
}

// metro is an underground station of 64 x 28 m: the track runs along X
// through the middle with four train cars on it, and a platform on each
// side carries pillars, escalators, benches and kiosks. Each team spawns in
// the concourse at its end, behind a line of ticket barriers.
func metro() *world.Map {
	b := newBuilder("metro", 32, 14, 8)
	// Train cars; the gaps between them are the crossings.
	b.turn2(world.Wall, -21, -1.5, 0, -13, 1.5, wallH)
	b.turn2(world.Wall, -10, -1.5, 0, -2.5, 1.5, wallH)
	// Pillars, 0.75 m square: a row along each platform edge and one
	// along the back.
	for _, x := range []float64{-24, -16, -8, 0, 8, 16, 24} {
		b.turn2(world.Pillar, x-0.25, 4.25, 0, x+0.5, 5, wallH)
	}
	for _, x := range []float64{-20, -4, 4, 20} {
		b.turn2(world.Pillar, x-0.25, 11, 0, x+0.5, 11.75, wallH)
	}
	// Escalators down to the street: long blocks too high to step onto.
	for _, x := range []float64{-14, 6} {
		b.turn2(world.Cover, x, 9.25, 0, x+8, 10.5, coverH)
	}
	// Benches between the edge pillars, kiosks by the escalators.
	for _, x := range []float64{-20, -12, -4, 4, 12, 20} {
		b.turn2(world.Cover, x-1.25, 6.75, 0, x+1.25, 7.5, coverH)
	}
	for _, x := range []float64{-24, -0.75, 22.5} {
		b.turn2(world.Cover, x, 9.25, 0, x+1.5, 10.75, coverH)
	}
	// Ticket barriers across each concourse, with gates by the walls, at
	// the track and in between.
	for _, y := range [][2]float64{{-12, -8.75}, {-6.5, -2.75}, {2.75, 6.5}, {8.75, 12}} {
		b.turn2(world.Cover, -26.5, y[0], 0, -26, y[1], coverH)
	}
	for _, y := range []float64{-10.5, -6.5, -2.5, 2.5, 6.5, 10.5} {
		b.spawn2(-30, y, 0, 0)
	}
	for _, y := range []float64{-8.5, 8.5} {
		b.spawn2(-28.25, y, 0, 0)
	}
	b.flags(-29.5, 0, 0)
	b.point("A", -8, 8, 0)
	b.point("B", 0, 0, 0)
	b.point("C", 8, -8, 0)
	return &b.m
}

// arena is 60 x 60 m of open ground with walls, low covers and pillars, and
// two platforms 1.5 m high (north and south) reached by stairs of 0.25 m
// rises on both ends. Team 0 spawns on the west side, team 1 on the east.
func arena() *world.Map {
	b := newBuilder("arena", 30, 30, 10)
	const top = 1.5 // platform height
	b.turn2(world.Platform, -6, 14, 0, 6, 20, top)
	for i := 1.0; i < top/0.25; i++ {
		run := (top/0.25 - i) * 0.5 // a 0.5 m tread per 0.25 m rise
		b.turn2(world.Step, -6-run, 15.5, 0, -5.5-run, 18.5, i*0.25)
		b.turn2(world.Step, 5.5+run, 15.5, 0, 6+run, 18.5, i*0.25)
	}
	// Parapets along the front of each platform.
	b.turn2(world.Cover, -4.5, 14, top, -1.5, 14.5, top+coverH)
	b.turn2(world.Cover, 1.5, 14, top, 4.5, 14.5, top+coverH)
	// A pinwheel of low covers round the centre point.
	b.turn4(world.Cover, 1, 3, 0, 4.5, 3.75, coverH)
	// Walls and pillars across the field.
	b.turn2(world.Wall, -14.5, -9, 0, -14, -2, wallH)
	b.turn2(world.Wall, -14.5, 4, 0, -10, 4.5, wallH)
	b.turn2(world.Wall, -22, 13, 0, -15, 13.5, wallH)
	b.turn2(world.Wall, 13, 22, 0, 13.5, 27, wallH)
	b.turn2(world.Wall, -6, 7, 0, -5.5, 10, wallH)
	for _, p := range [][2]float64{{-8, -6}, {-20, -20}, {-8, -22}, {-20, 22}, {8, 10}, {-22, 6}} {
		b.turn2(world.Pillar, p[0]-0.5, p[1]-0.5, 0, p[0]+0.5, p[1]+0.5, wallH)
	}
	b.turn2(world.Cover, -20, -8, 0, -19.25, -4, coverH)
	b.turn2(world.Cover, -20, 4, 0, -19.25, 8, coverH)
	b.turn2(world.Cover, -13, -16, 0, -9, -15.25, coverH)
	b.turn2(world.Cover, -4, -9, 0, -1, -8.25, coverH)
	b.turn2(world.Cover, 9, -3, 0, 9.75, 1, coverH)
	b.turn2(world.Cover, -26, 17, 0, -22, 17.75, coverH)
	b.turn2(world.Cover, -26, -17.75, 0, -22, -17, coverH)
	for _, y := range []float64{-10.5, -7.5, -4.5, 4.5, 7.5, 10.5} {
		b.spawn2(-27.5, y, 0, 0)
	}
	b.flags(-25, 0, 0)
	b.point("A", 0, 17, top)
	b.point("B", 0, 0, 0)
	b.point("C", 0, -17, top)
	return &b.m
}

// courtyard is a 40 x 40 m square with a spawn area in each corner behind
// an L of one high and one low wall, and low and high barriers between the
// corners and the centre. It is symmetric under quarter turns, so each
// corner is as good as the others in free-for-all.
func courtyard() *world.Map {
	b := newBuilder("courtyard", 20, 20, 8)
	// The corner shields, leaving 2.5 m gates along the perimeter walls.
	b.turn4(world.Wall, -14.5, -17, 0, -14, -14, wallH)
	b.turn4(world.Cover, -17, -14.5, 0, -14, -14, coverH)
	// Barriers between the corners and the centre.
	b.turn4(world.Cover, -10, -10.5, 0, -5, -9.75, coverH)
	b.turn4(world.Wall, -4, -15, 0, -3.5, -10, wallH)
	b.turn4(world.Wall, -10.5, -5, 0, -10, -1.5, wallH)
	b.turn4(world.Pillar, -7.5, -7.5, 0, -6.5, -6.5, wallH)
	// Low covers round the centre point.
	b.turn4(world.Cover, 1.5, 2.5, 0, 4, 3.25, coverH)
	for _, p := range [][2]float64{{-18.5, -18.5}, {-16.5, -18.5}, {-18.5, -16.5}, {-16.5, -16.5}, {-18.5, -12}, {-12, -18.5}} {
		b.spawn4(p[0], p[1], 0, math.Pi/4)
	}
	b.flags(-12, -12, 0)
	b.point("A", -9, 9, 0)
	b.point("B", 0, 0, 0)
	b.point("C", 9, -9, 0)
	return &b.m
}

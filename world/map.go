package world

import (
	"embed"
	"fmt"
	"strings"

	"github.com/lagkit/lagkit/geom"
)

// Box kinds.
const (
	Wall     = "wall"
	Cover    = "cover"
	Pillar   = "pillar"
	Platform = "platform"
	Step     = "step"
)

// Objective kinds.
const (
	Flag  = "flag"
	Point = "point"
)

// Limits on a map file, so that a hostile file cannot exhaust memory or
// make the broad phase degenerate.
const (
	MaxFileSize   = 1 << 20 // bytes
	MaxBoxes      = 4096
	MaxSpawns     = 256
	MaxObjectives = 64
	MaxTeams      = 4 // spawn and objective teams are 0 to MaxTeams-1
	MaxNameLen    = 64
	// MaxCoord bounds every coordinate, in metres.
	MaxCoord = 1024
)

// The standing player capsule that spawns must fit: radius 0.4 m and
// standing height 1.8 m, the capsule of game.DefaultParams (a Quake III
// sized player, [quake3]).
const (
	playerRadius = 0.4
	playerHeight = 1.8
)

// Map is a loaded, validated map.
type Map struct {
	Name string
	// Bounds is the volume everything lies in; Bounds.Min.Z is 0, the ground.
	Bounds     geom.AABB
	Boxes      []Box
	Spawns     []Spawn
	Objectives []Objective
	// Grid indexes the boxes' AABBs; the box indices it reports are indices
	// into Boxes.
	Grid *geom.Grid
}

// Box is a solid axis-aligned box of the map.
type Box struct {
	// Kind is one of Wall, Cover, Pillar, Platform and Step.
	Kind string
	geom.AABB
}

// Spawn is a place where a player of a team appears.
type Spawn struct {
	// Team is 0 to MaxTeams-1.
	Team int
	// Pos is the player's feet, on the ground or on a box top.
	Pos geom.Vec3
	// Yaw is the initial view yaw in radians: 0 along +X, rising
	// counter-clockwise seen from above.
	Yaw float64
}

// Objective is a flag or control point.
type Objective struct {
	// Kind is Flag or Point.
	Kind string
	// Name is unique within the map.
	Name string
	// Team owns the objective; -1 means neutral.
	Team int
	Pos  geom.Vec3
}

// SpawnsFor returns the spawns of team, in file order.
func (m *Map) SpawnsFor(team int) []Spawn {
	var s []Spawn
	for _, sp := range m.Spawns {
		if sp.Team == team {
			s = append(s, sp)
		}
	}
	return s
}

//go:embed maps/*.json
var shipped embed.FS

// Names returns the names of the shipped maps, sorted.
func Names() []string {
	// The directory is embedded at build time, so reading it cannot fail.
	entries, _ := shipped.ReadDir("maps")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}

// LoadNamed loads a map as lagkit's commands name one: a map file by
// its path when name ends in .json, else the shipped map called name.
func LoadNamed(name string) (*Map, error) {
	if strings.HasSuffix(name, ".json") {
		return LoadFile(name)
	}
	return Load(name)
}

// Load returns a fresh copy of the shipped map called name.
func Load(name string) (*Map, error) {
	names := Names()
	for _, n := range names {
		if n == name {
			data, err := shipped.ReadFile("maps/" + n + ".json")
			if err != nil {
				return nil, err
			}
			return Parse(n+".json", data)
		}
	}
	return nil, fmt.Errorf("world: no shipped map %q (have %s)", name, strings.Join(names, ", "))
}

// LoadFile reads and parses the map file at path.
func LoadFile(path string) (*Map, error) {
	data, err := mapFile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// AABBs returns the boxes of m's solid geometry.
func (m *Map) AABBs() []geom.AABB {
	boxes := make([]geom.AABB, len(m.Boxes))
	for i, b := range m.Boxes {
		boxes[i] = b.AABB
	}
	return boxes
}

// Package arena is a top-down 2D arena game built on lagkit's public
// API: players are circles that run, dash for stamina and shoot; a crate
// slides across the middle until shot to pieces. Its rules (the step,
// the values, the bodies, the events) are shared by the server, the
// clients and the bots, as lagkit's own game shares package game.
package arena

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// The game's values of a player (game.PlayerState.Values).
const (
	Stamina  = 0 // 0 to MaxStamina
	Cooldown = 1 // ticks until the next dash
	// NumValues is how many values the snapshots carry
	// (server.Config.Values, client.Config.Values).
	NumValues = 2
)

// The dash.
const (
	MaxStamina   = 100
	DashCost     = 40
	DashCooldown = 32 // ticks
	DashLength   = 2.0
)

// BtnDash dashes (a button reserved for games).
const BtnDash = game.BtnGame

// Radius is a player's circle.
const Radius = 0.4

// The crate: an entity in a slot above the players, sliding along Y
// across the arena's middle, its health its first game value.
const (
	CrateSlot   = 200
	CrateHealth = 100
	CrateHalf   = 0.6 // half its side
	CrateSpeed  = 5.0 // m/s
	CrateRange  = 6.0 // it slides between -CrateRange and +CrateRange
)

// Damage is what a shot does to a player's circle or the crate.
const Damage = 20

// The game's events (kinds from wire.EventGameMin).
const (
	// EventCrateBroken, to every client: Data is the slot of the player
	// whose shot broke it.
	EventCrateBroken = wire.EventGameMin + iota
	// EventHit, to the player hit: Data is the shooter's slot.
	EventHit
	// EventGG, from a client: a player's salute to the one that broke
	// the crate.
	EventGG
)

// PlayerBody is every player's body.
var PlayerBody lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: Radius}, Damage: Damage}}

// CrateBody is the crate's body: a square, any height.
var CrateBody lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Box{
	Min: geom.V(-CrateHalf, -CrateHalf, -50), Max: geom.V(CrateHalf, CrateHalf, 50)}, Damage: Damage}}

// arenaMap is 40 x 40 m with walls around and four pillars.
const arenaMap = `{
  "name": "arena2d",
  "bounds": {"min": [-21, -21, 0], "max": [21, 21, 10]},
  "boxes": [
    {"kind": "wall", "min": [-21, -21, 0], "max": [21, -20, 3]},
    {"kind": "wall", "min": [-21, 20, 0], "max": [21, 21, 3]},
    {"kind": "wall", "min": [-21, -20, 0], "max": [-20, 20, 3]},
    {"kind": "wall", "min": [20, -20, 0], "max": [21, 20, 3]},
    {"kind": "wall", "min": [-11, -11, 0], "max": [-9, -9, 3]},
    {"kind": "wall", "min": [9, -11, 0], "max": [11, -9, 3]},
    {"kind": "wall", "min": [-11, 9, 0], "max": [-9, 11, 3]},
    {"kind": "wall", "min": [9, 9, 0], "max": [11, 11, 3]}
  ],
  "spawns": [
    {"team": 0, "pos": [-15, 0, 0], "yaw": 0},
    {"team": 1, "pos": [15, 0, 0], "yaw": 3.14159},
    {"team": 0, "pos": [-15, 15, 0], "yaw": 0},
    {"team": 1, "pos": [15, -15, 0], "yaw": 3.14159}
  ],
  "objectives": []
}`

// Map returns the arena.
func Map() *world.Map {
	m, err := world.Parse("arena2d.json", []byte(arenaMap))
	if err != nil {
		panic("arena: the map does not parse: " + err.Error())
	}
	return m
}

// Step is the arena's movement: lagkit's running and shooting, then a
// dash of DashLength along the view for DashCost stamina, at most every
// DashCooldown ticks, unless a wall is in the way; stamina comes back a
// point a tick.
func Step(s game.PlayerState, cmd game.UserCmd, g *geom.Grid, p *game.Params, w []game.Weapon) (game.PlayerState, bool) {
	s, fired := game.Step(s, cmd, g, p, w)
	st, cool := s.Values[Stamina], s.Values[Cooldown]
	if cool > 0 {
		cool--
	}
	if cmd.Buttons.Has(BtnDash) && cool == 0 && st >= DashCost && s.Flags&game.FlagDead == 0 {
		to := game.SnapPos(s.Pos.Add(Aim(s.Yaw).Scale(DashLength)))
		up := geom.V(0, 0, 1)
		if !g.SegmentBlocked(s.Pos.Add(up), to.Add(up)) {
			s.Pos = to
		}
		st, cool = st-DashCost, DashCooldown
	} else if st < MaxStamina {
		st++
	}
	s.Values[Stamina], s.Values[Cooldown] = st, cool
	return s, fired
}

// Aim is the unit vector along yaw in the ground plane.
func Aim(yaw uint16) geom.Vec3 {
	a := game.AngleToRad(int32(yaw))
	return geom.V(math.Cos(a), math.Sin(a), 0)
}

// YawTo is the yaw from a towards b.
func YawTo(a, b geom.Vec3) uint16 {
	return game.YawUnits(math.Atan2(b.Y-a.Y, b.X-a.X))
}

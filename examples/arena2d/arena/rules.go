// Package arena is a top-down 2D arena game built on lagkit's public
// API: players are circles of two teams that run, dash for stamina,
// blink, and shoot from a magazine they reload; a crate slides across
// the middle until shot to pieces, and the server hands the player who
// broke it a shield as loot. Its rules (the step, the declared state,
// the bodies, the events) are shared by the server, the clients and the
// bots, as lagkit's own game shares package game.
package arena

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// State is the arena's own state of a player, declared to lagkit
// (game.Declare): the tags say who is sent each field and in how many
// bits. The crate, an entity, uses HP alone.
type State struct {
	// Arms is lagkit's weapons' state, first so that lagkit's weapon
	// step finds it: the arena fires lagkit's rifle (Sidearm) at its
	// rate of fire (its own magazine is Ammo, below).
	Arms weapon.Arms
	// Stamina feeds the dash; everyone sees it (a bar over each player).
	Stamina int16 `lagkit:"all,max=100"`
	// DashWait is the ticks until the next dash.
	DashWait uint8 `lagkit:"owner,max=32"`
	// Ammo is the rounds in the magazine, Reload the time until a
	// reload ends (0: not reloading).
	Ammo   uint8         `lagkit:"owner,max=12"`
	Reload time.Duration `lagkit:"owner,q=1ms,max=2s"`
	// BlinkWait is the time until the next blink: 45 s, beyond what a
	// tick count in 16 bits could hold.
	BlinkWait time.Duration `lagkit:"owner,q=10ms,max=60s"`
	// Item is the inventory slot: ItemNone or ItemShield. It survives
	// death: loot is kept until used.
	Item uint8 `lagkit:"owner,max=2"`
	// Shield absorbs damage before health; everyone sees it, drawn
	// smoothly between snapshots.
	Shield float32 `lagkit:"all,lerp,q=0.5,max=50"`
	// HP is the crate's health, drawn smoothly.
	HP int16 `lagkit:"all,lerp,max=100"`
}

// Cmd is the arena's own part of a player's command, declared to
// lagkit (game.DeclareCmd): beside lagkit's movement, aim and buttons,
// how far along the view the blink goes, the mouse's distance from the
// player in a desktop client, in eighths of a metre up to BlinkLength.
// Commands carry it to the server in 6 bits (one when unchanged).
type Cmd struct {
	Reach float32 `lagkit:"max=6,q=0.125"`
}

// CmdDecl is the arena's declared command: server.Config.Cmd and
// client.Config.Cmd take CmdDecl.CmdLayout, and CmdDecl.Of reads and
// writes a command's Cmd.
var CmdDecl = game.MustDeclareCmd[Cmd]()

// Decl is the arena's declared state: server.Config.Game and
// client.Config.Game take Decl.Layout, and Decl.Of reads and writes a
// player's State.
var Decl = game.MustDeclare[State]()

// The inventory's items.
const (
	ItemNone   = 0
	ItemShield = 1 // used, it raises a shield of MaxShield
)

// The weapon: a magazine of Magazine rounds, refilled ReloadTime after
// it empties or the player reloads.
const (
	Magazine   = 12
	ReloadTime = 1500 * time.Millisecond
	MaxShield  = 50
)

// The blink: up to BlinkLength along the view (the command's Reach), at
// most every BlinkCooldown.
const (
	BlinkLength   = 6.0
	BlinkCooldown = 45 * time.Second
)

// The dash.
const (
	MaxStamina   = 100
	DashCost     = 40
	DashCooldown = 32 // ticks
	DashLength   = 2.0
)

// The arena's buttons (reserved for games): dash, blink, use the item.
const (
	BtnDash  = game.BtnGame
	BtnBlink = game.BtnGame << 1
	BtnUse   = game.BtnGame << 2
)

// Radius is a player's circle.
const Radius = 0.4

// The crate: an entity in a slot above the players, sliding along Y
// across the arena's middle, its health its State's HP.
const (
	CrateSlot   = 200
	CrateHealth = 100
	CrateHalf   = 0.6 // half its side
	CrateSpeed  = 5.0 // m/s
	CrateRange  = 6.0 // it slides between -CrateRange and +CrateRange
)

// The wreck: where the crate breaks, its debris lie in an entity of
// their own, and a player standing among them wades at half speed.
const (
	WreckSlot   = 201
	WreckRadius = 2.0
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

// Step is the arena's movement and weapon: lagkit's running and its
// weapon's rate of fire, a shot only with a round in the magazine (the
// last starts a reload, as BtnReload does); a dash of DashLength along
// the view for DashCost stamina, at most every DashCooldown ticks, and a
// blink as far as the command's Reach (at most BlinkLength) every
// BlinkCooldown, unless a wall is in the way;
// the item used. Stamina comes back a point a tick. A player standing in
// the wreck (WreckRadius of the WreckSlot entity, as the step's view of
// the match shows it) runs at half speed.
func Step(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	if InWreck(ctx.View, s.Pos) {
		cmd.Forward, cmd.Side = cmd.Forward/2, cmd.Side/2
	}
	s, fired := weapon.Step(s, cmd, ctx.Grid, ctx.Params, Sidearm)
	a := Decl.Of(&s)
	alive := s.Flags&game.FlagDead == 0
	a.BlinkWait = max(0, a.BlinkWait-cmd.Duration)
	if a.Reload > 0 {
		if a.Reload -= cmd.Duration; a.Reload <= 0 {
			a.Reload, a.Ammo = 0, Magazine
		}
	}
	if fired && (a.Ammo == 0 || a.Reload > 0) {
		fired = false // lagkit's weapon was ready, the magazine not
	}
	if fired {
		if a.Ammo--; a.Ammo == 0 {
			a.Reload = ReloadTime
		}
	}
	if alive && cmd.Buttons.Has(game.BtnReload) && a.Reload == 0 && a.Ammo < Magazine {
		a.Reload = ReloadTime
	}
	if a.DashWait > 0 {
		a.DashWait--
	}
	if alive && cmd.Buttons.Has(BtnDash) && a.DashWait == 0 && a.Stamina >= DashCost {
		s.Pos = jump(ctx, s.Pos, s.Yaw, DashLength)
		a.Stamina, a.DashWait = a.Stamina-DashCost, DashCooldown
	} else if a.Stamina < MaxStamina {
		a.Stamina++
	}
	if reach := float64(CmdDecl.Of(&cmd).Reach); alive && cmd.Buttons.Has(BtnBlink) && a.BlinkWait == 0 && reach > 0 {
		if to := jump(ctx, s.Pos, s.Yaw, min(reach, BlinkLength)); to != s.Pos {
			s.Pos, a.BlinkWait = to, BlinkCooldown
			s.Teleport++ // observers jump with it instead of sliding
		}
	}
	if alive && cmd.Buttons.Has(BtnUse) && a.Item == ItemShield {
		a.Item, a.Shield = ItemNone, MaxShield
	}
	return s, fired
}

// InWreck reports whether pos lies in the wreck, as view shows it.
func InWreck(view *game.MatchView, pos geom.Vec3) bool {
	w, ok := view.Entity(WreckSlot)
	if !ok {
		return false
	}
	d := pos.Sub(w.Pos)
	return d.X*d.X+d.Y*d.Y < WreckRadius*WreckRadius
}

// jump returns where a player at pos facing yaw lands after moving
// length along the view: pos itself when a wall is in the way.
func jump(ctx *game.StepCtx, pos geom.Vec3, yaw uint16, length float64) geom.Vec3 {
	to := game.SnapPos(pos.Add(Aim(yaw).Scale(length)))
	up := geom.V(0, 0, 1)
	if ctx.Grid.SegmentBlocked(pos.Add(up), to.Add(up)) {
		return pos
	}
	return to
}

// Sidearm is the weapon whose rate of fire the arena's sidearm keeps:
// lagkit's rifle, stepped by lagkit's weapon step (weapon.Step).
var Sidearm = []weapon.Weapon{weapon.Rifle()}

// Spawn is the arena's respawn rule (server.Config.Spawn): the rifle's
// state handed back (weapon.Rearm), full stamina, a full magazine and no
// shield; the blink's cooldown and the item are kept through death.
func Spawn(_, _ int, st *game.PlayerState) {
	weapon.Rearm(st, Sidearm)
	a := Decl.Of(st)
	a.Stamina, a.DashWait, a.Ammo, a.Reload, a.Shield = MaxStamina, 0, Magazine, 0, 0
}

// Died is the arena's death rule (server.Config.Died): the rifle's
// reload stops (weapon.Disarm).
func Died(_ int, st *game.PlayerState) { weapon.Disarm(st) }

// Aim is the unit vector along yaw in the ground plane.
func Aim(yaw uint16) geom.Vec3 {
	a := game.AngleToRad(int32(yaw))
	return geom.V(math.Cos(a), math.Sin(a), 0)
}

// YawTo is the yaw from a towards b.
func YawTo(a, b geom.Vec3) uint16 {
	return game.YawUnits(math.Atan2(b.Y-a.Y, b.X-a.X))
}

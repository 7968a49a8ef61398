// Package game is the code every game on lagkit shares: a player's state
// and command, the movement step, the humanoid hitbox poses, and the
// game's own declared state and command (Declare, DeclareCmd). The
// server, native clients, bots and the browser client (compiled to
// WebAssembly) all run this exact code, so client prediction reproduces
// the server bit for bit. lagkit's shooter's weapons are its own
// (package shooter/weapon).
package game

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Quantisation steps shared with the wire format. The movement step snaps
// its result onto these grids (as Quake III's SnapVector does), so the state
// a client decodes from a snapshot is exactly the server's state and
// re-simulating from it reproduces the server's result.
const (
	PosQuantum = 1.0 / 512 // metres per position unit
	VelQuantum = 1.0 / 512 // metres per second per velocity unit
	// AngleUnits is the number of angle units in a full turn.
	AngleUnits = 65536
	// MaxPitch is the largest pitch magnitude in angle units (89 degrees).
	MaxPitch = AngleUnits * 89 / 360
)

// Buttons is the set of buttons held during a command.
type Buttons uint16

// Buttons a command may hold.
const (
	BtnFire Buttons = 1 << iota
	BtnAltFire
	BtnJump
	BtnCrouch
	BtnReload
	BtnReportSBC
	BtnSprint
)

// BtnGame is the first of the eight buttons reserved for a game's own
// actions (a dash): BtnGame, BtnGame<<1, ... BtnGame<<7. Commands carry
// them to the server like every button; Step ignores them, and a game's
// StepFunc reads them.
const BtnGame Buttons = 1 << 8

// Has reports whether every button in b2 is held in b.
func (b Buttons) Has(b2 Buttons) bool { return b&b2 == b2 }

// UserCmd is one client tick of input. Its fields are already quantised to
// their wire form, so what a client predicts with is exactly what the server
// executes.
type UserCmd struct {
	// Tick is the command's sequence number: one per client tick, rising by
	// one each tick.
	Tick uint32
	// Duration is the movement time the command covers, in whole
	// microseconds.
	Duration time.Duration
	// Yaw is the view yaw in angle units: 0 looks along +X, rising
	// counter-clockwise seen from above.
	Yaw uint16
	// Pitch is the view pitch in angle units, positive up, within ±MaxPitch.
	Pitch int16
	// Forward, Side and Up are move intents in [-127, 127]; Side is positive
	// to the right.
	Forward, Side, Up int8
	Buttons           Buttons
	// Weapon is the selected slot of the loadout; selecting another slot
	// switches weapons (see Step), and a slot outside the loadout keeps the
	// current one.
	Weapon uint8
	// ViewTime is the server time of the world the client was drawing when
	// it issued the command (its interpolation target); lag compensation
	// rewinds to it.
	ViewTime time.Duration
	// HasPress reports that the fire button went down between the previous
	// command and this one, at the instant and aim Press records. A client
	// that draws faster than it ticks sends it so that the shot leaves
	// where and when the player clicked, not at the tick after (sub-tick
	// input, as Counter-Strike 2's sub-tick commands and Photon Fusion's
	// sub-tick hitboxes keep the instant of a click). A command with a
	// press holds BtnFire, even if the button came up again before the
	// tick. Without HasPress, Press is zero.
	HasPress bool
	Press    Press
	// Shown is the client's own verdict on the hitscan shot the command
	// fired, as it drew the world at the shot's view time: whether the
	// shot met a remote player's hitboxes there. It is a recorded
	// observation, never a claim: the server records it beside its own
	// verdict and nothing in the game reads it. Only a command holding
	// BtnFire carries one.
	Shown Shown
	// Game is the game's own part of the command (DeclareCmd): more
	// buttons, analog axes, a target, as the game declared them, read
	// and written typed through its CmdSchema. Commands carry it to the
	// server delta coded, repeated and stamped like the rest; lagkit's
	// own game declares none and leaves it zero.
	Game CmdState
}

// Shown is a client's verdict on its own shot: unknown (no shot
// predicted, a projectile weapon, or a client that sends none), a miss
// or a hit.
type Shown uint8

// The verdicts a client can send.
const (
	ShownUnknown Shown = iota
	ShownMiss
	ShownHit
)

// String returns "", "miss" or "hit".
func (s Shown) String() string {
	switch s {
	case ShownMiss:
		return "miss"
	case ShownHit:
		return "hit"
	}
	return ""
}

// Press is a fire press within a command: when, where the player aimed,
// and what it saw at that instant.
type Press struct {
	// Offset is the time from the command's start (its issue time minus
	// its Duration) to the press, in whole microseconds, 0 to Duration: a
	// press at Duration is one at the tick itself.
	Offset time.Duration
	// Yaw and Pitch are the view angles at the press, in angle units
	// (Pitch within ±MaxPitch).
	Yaw   uint16
	Pitch int16
	// ViewTime is the server time of the world the client was drawing at
	// the press; lag compensation rewinds to it instead of the command's.
	ViewTime time.Duration
}

// Aimed returns the command its shot is aimed and timed by: with a press,
// the press's view angles and view time replace the command's; without
// one, the command itself.
func (c UserCmd) Aimed() UserCmd {
	if c.HasPress {
		c.Yaw, c.Pitch, c.ViewTime = c.Press.Yaw, c.Press.Pitch, c.Press.ViewTime
	}
	return c
}

// PressEye returns the view origin of a player at command cmd's press:
// the eye of its state before the command. A client draws its player at
// the state its newest command predicted until it issues the next, so a
// press between two ticks was aimed from there; the command's own move
// was not yet on the screen. (Interpolating toward the state after the
// command would move the origin up to a tick's run, 20 cm at 20 Hz,
// away from where the player looked from.) Without a press it is the eye
// after the command, where a shot at the tick leaves from.
func PressEye(before, after PlayerState, cmd UserCmd, p *Params) geom.Vec3 {
	if cmd.HasPress {
		return EyePos(before, p)
	}
	return EyePos(after, p)
}

// YawRad returns the command's yaw in radians.
func (c UserCmd) YawRad() float64 { return AngleToRad(int32(c.Yaw)) }

// PitchRad returns the command's pitch in radians.
func (c UserCmd) PitchRad() float64 { return AngleToRad(int32(c.Pitch)) }

// AngleToRad converts angle units to radians.
func AngleToRad(a int32) float64 { return float64(a) * (2 * math.Pi / AngleUnits) }

// AngleToDeg converts angle units to degrees.
func AngleToDeg(a int32) float64 { return float64(a) * (360.0 / AngleUnits) }

// YawUnits converts a yaw in radians to angle units (wrapping).
func YawUnits(rad float64) uint16 {
	return uint16(int64(math.Round(rad*AngleUnits/(2*math.Pi))) & (AngleUnits - 1))
}

// PitchUnits converts a pitch in radians to angle units, clamped to ±MaxPitch.
func PitchUnits(rad float64) int16 {
	v := math.Round(rad * AngleUnits / (2 * math.Pi))
	v = math.Max(-MaxPitch, math.Min(MaxPitch, v))
	return int16(v)
}

// StateFlags are boolean parts of a player's movement state.
type StateFlags uint8

// Player state flags.
const (
	FlagOnGround StateFlags = 1 << iota
	FlagCrouched
	// FlagJumpHeld is set while the jump button stays held after a jump, so
	// holding it does not jump again on landing.
	FlagJumpHeld
	// FlagDead is set while the player is dead: it neither moves by its
	// own will, fires nor can be hit.
	FlagDead
	// FlagProtected is set during spawn protection: the player cannot be
	// hit, and everyone can see it.
	FlagProtected
	// FlagGame3, FlagGame and FlagGame2 are the game's own flags: its
	// rules (server.Referee.Edit), its step or its server (Server.Edit)
	// set and clear them, every client sees them, and a spawn keeps them
	// as it keeps Game (the game's Config.Spawn and Config.Died write
	// what a spawn and a death do to them). The netcode and lagkit's
	// movement never read or write them. lagkit's shooter marks a reload
	// with FlagGame3 (weapon.FlagReloading) and capture the flag's
	// carrier with FlagGame (mode.FlagCarrier).
	FlagGame3
	FlagGame
	FlagGame2
)

// GameFlags are the flags a game owns: FlagGame, FlagGame2 and
// FlagGame3.
const GameFlags = FlagGame | FlagGame2 | FlagGame3

// PlayerState is everything the movement step reads and writes for one
// player. Pos and Vel always lie on the PosQuantum and VelQuantum grids.
type PlayerState struct {
	// Pos is the bottom centre of the player's upright capsule.
	Pos geom.Vec3
	Vel geom.Vec3
	// Yaw and Pitch are the view angles of the last command, in angle units.
	Yaw   uint16
	Pitch int16
	Flags StateFlags
	// Teleport changes whenever the server moves the player discontinuously
	// (spawn, teleport), so observers reset their interpolation history
	// instead of sliding across the map.
	Teleport uint8

	// Health is decided by the server alone; the owner's client learns it
	// from snapshots.
	Health int16
	// Game is the game's own state of the player (or entity): what a
	// game built on lagkit keeps beyond lagkit's fields (a dash's
	// cooldown, an inventory), declared as a Go struct (Declare) and
	// read and written through its Schema. Its step changes it, and so
	// it is predicted and corrected as the position is; the server
	// writes it too (Server.Edit). lagkit's shooter keeps its weapons'
	// state there (weapon.Arms).
	Game State
}

// Has reports whether flag f is set.
func (s PlayerState) Has(f StateFlags) bool { return s.Flags&f != 0 }

// TickDuration returns the duration of one tick at rate ticks per second,
// rounded to whole microseconds (the wire's time unit) so that command
// durations and server tick times are exact on both ends.
func TickDuration(rate int) time.Duration {
	if rate <= 0 {
		return 0
	}
	return (time.Second / time.Duration(rate)).Round(time.Microsecond)
}

// SnapPos rounds a position onto the PosQuantum grid.
func SnapPos(p geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: math.Round(p.X/PosQuantum) * PosQuantum,
		Y: math.Round(p.Y/PosQuantum) * PosQuantum,
		Z: math.Round(p.Z/PosQuantum) * PosQuantum,
	}
}

package weapon

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Kind is how a weapon's shots travel.
type Kind uint8

// Weapon kinds.
const (
	// Hitscan shots hit at once along their ray, tested by the server's
	// lag compensation policy.
	Hitscan Kind = iota
	// Projectile shots fly at Speed and are simulated by the server, tick
	// by tick, against the present world.
	Projectile
)

var weaponKindNames = [...]string{Hitscan: "hitscan", Projectile: "projectile"}

// String returns the kind's name as a weapons file writes it.
func (k Kind) String() string {
	if int(k) < len(weaponKindNames) {
		return weaponKindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Weapon is one weapon's rules. Server and clients must use the same
// weapons, as with game.Params: clients predict firing, ammunition, reloads and
// weapon switches with them, and the server decides hits. Weapons usually
// come from Defaults or a weapons file (package weaponfile).
type Weapon struct {
	Name string
	Kind Kind
	// FireInterval is the time between shots while the trigger is held
	// (60 s / rounds per minute).
	FireInterval time.Duration
	// Damage is the health a hit on each body part takes (per pellet, and
	// for a projectile its direct hit).
	Damage [game.NumParts]int16
	// Magazine is the rounds per magazine; ReloadTime how long a reload
	// takes. An empty magazine reloads by itself when the trigger is
	// pulled.
	Magazine   uint8
	ReloadTime time.Duration
	// Range is the longest distance a shot reaches (a projectile expires
	// after flying it).
	Range float64
	// Spread is the half-angle in radians of the cone a shot may leave the
	// aim in: Spread for the first shot of a burst, growing by
	// SpreadGrowth per shot up to SpreadMax.
	Spread, SpreadGrowth, SpreadMax float64
	// Recoil raises the aim by this many radians per shot of a burst, up
	// to RecoilMax; releasing the trigger resets it.
	Recoil, RecoilMax float64
	// Pellets is the rays (or projectiles) per shot: 1 for a rifle, a
	// cone of them for a shotgun.
	Pellets int
	// Speed is a projectile's speed in metres per second (0 for hitscan).
	Speed float64
	// SplashRadius is the radius of a projectile's explosion (0: none),
	// and SplashDamage the damage at its centre, falling off linearly to
	// 0 at the radius.
	SplashRadius float64
	SplashDamage int16
}

// Rifle returns the hitscan assault rifle of the ALC study's game, the
// first of Defaults: 600 rounds a minute and 25 damage to the body
// against 100 health, so four hits kill in 0.3 s; spread and recoil grow
// with continuous fire; a 30 round magazine and a 2 s reload.
func Rifle() Weapon { return defaultWeapons[0] }

// Limits on a weapon's fields. The wire format bounds the times (a weapon
// wait travels in at most a minute of microseconds); the rest keep a
// hostile weapons file from making the server's work or numbers absurd.
const (
	MaxRPM          = 6000 // rounds per minute: a 10 ms interval
	MaxReloadTime   = 30 * time.Second
	MaxRange        = 4000 // m: beyond any map's diagonal (maps lie within ±1024 m)
	MaxDamage       = 1000
	MaxPellets      = 32
	MaxSpeed        = 2000 // m/s
	MaxSplashRadius = 50   // m
	MaxName         = 32   // bytes
	// maxCone bounds spread and recoil: beyond 45 degrees a "cone" is no
	// longer aiming.
	maxCone = math.Pi / 4
)

// Error reports a weapon field outside what the rules can work
// with. Field is the field's key in a weapons file, and Problem shows the
// value in that file's units with what was wanted.
type Error struct {
	Weapon  string
	Field   string
	Problem string
}

func (e *Error) Error() string {
	return fmt.Sprintf("weapon %q: %s: %s", e.Weapon, e.Field, e.Problem)
}

// Validate reports the first field of w outside its limits as a
// *Error.
func (w *Weapon) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &Error{Weapon: w.Name, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	deg := func(rad float64) string { return strconv.FormatFloat(rad*180/math.Pi, 'g', 6, 64) }
	switch {
	case w.Name == "" || len(w.Name) > MaxName:
		return bad("name", "%q, want 1 to %d bytes", w.Name, MaxName)
	case int(w.Kind) >= len(weaponKindNames):
		return bad("kind", "%v, want hitscan or projectile", w.Kind)
	case w.FireInterval < time.Minute/MaxRPM || w.FireInterval > time.Minute:
		return bad("rpm", "%.6g, want 1 to %d", float64(time.Minute)/float64(w.FireInterval), MaxRPM)
	case w.Magazine == 0:
		return bad("magazine", "0, want 1 to 255")
	case w.ReloadTime < 0 || w.ReloadTime > MaxReloadTime:
		return bad("reload_s", "%v, want 0 to %v", w.ReloadTime.Seconds(), MaxReloadTime.Seconds())
	case !(w.Range > 0 && w.Range <= MaxRange):
		return bad("range_m", "%v, want above 0 up to %d", w.Range, MaxRange)
	case !(w.Spread >= 0 && w.Spread < maxCone):
		return bad("spread_deg", "%s, want 0 to under 45", deg(w.Spread))
	case !(w.SpreadGrowth >= 0 && w.SpreadGrowth < maxCone):
		return bad("spread_growth_deg", "%s, want 0 to under 45", deg(w.SpreadGrowth))
	case !(w.SpreadMax >= w.Spread && w.SpreadMax < maxCone):
		return bad("spread_max_deg", "%s, want spread_deg (%s) to under 45", deg(w.SpreadMax), deg(w.Spread))
	case !(w.Recoil >= 0 && w.Recoil < maxCone):
		return bad("recoil_deg", "%s, want 0 to under 45", deg(w.Recoil))
	case !(w.RecoilMax >= 0 && w.RecoilMax < maxCone):
		return bad("recoil_max_deg", "%s, want 0 to under 45", deg(w.RecoilMax))
	case w.Pellets < 1 || w.Pellets > MaxPellets:
		return bad("pellets", "%d, want 1 to %d", w.Pellets, MaxPellets)
	case w.Kind == Hitscan && w.Speed != 0:
		return bad("speed_mps", "%v for a hitscan weapon, want none", w.Speed)
	case w.Kind == Projectile && !(w.Speed >= 1 && w.Speed <= MaxSpeed):
		return bad("speed_mps", "%v, want 1 to %d", w.Speed, MaxSpeed)
	case w.Kind == Hitscan && w.SplashRadius != 0:
		return bad("splash_radius_m", "%v for a hitscan weapon, want none (only projectiles explode)", w.SplashRadius)
	case !(w.SplashRadius >= 0 && w.SplashRadius <= MaxSplashRadius):
		return bad("splash_radius_m", "%v, want 0 to %d", w.SplashRadius, MaxSplashRadius)
	case w.SplashDamage < 0 || w.SplashDamage > MaxDamage:
		return bad("splash_damage", "%d, want 0 to %d", w.SplashDamage, MaxDamage)
	case w.SplashDamage != 0 && w.SplashRadius == 0:
		return bad("splash_damage", "%d without a splash_radius_m", w.SplashDamage)
	}
	for k, d := range w.Damage {
		if d < 0 || d > MaxDamage {
			return bad(damageField(game.PartKind(k)), "%d, want 0 to %d", d, MaxDamage)
		}
	}
	return nil
}

// damageField returns the weapons file key of the damage to part k: both
// legs share "damage.legs".
func damageField(k game.PartKind) string {
	switch k {
	case game.PartHead:
		return "damage.head"
	case game.PartTorso:
		return "damage.torso"
	}
	return "damage.legs"
}

// Step advances player s by one command: lagkit's movement
// (game.Step), the choice of weapon from the loadout weapons (see
// Switch), and then the weapon in hand (see Fire). It reports whether
// the command fired a shot. Like game.Step, it is the one function the
// server and the owner's client both run. The state must keep Arms
// where ArmsOf finds it.
func Step(s game.PlayerState, cmd game.UserCmd, g *geom.Grid, p *game.Params, weapons []Weapon) (game.PlayerState, bool) {
	game.StepIn(&s, cmd, g, p)
	if len(weapons) == 0 {
		return s, false // no loadout
	}
	a := ArmsOf(&s)
	if cmd.Weapon != a.Weapon && int(cmd.Weapon) < len(weapons) {
		return Switch(s, cmd.Weapon, &weapons[cmd.Weapon]), false
	}
	if int(a.Weapon) >= len(weapons) {
		return s, false // no weapon in hand
	}
	fired := fire(&s, &cmd, &weapons[a.Weapon])
	return s, fired
}

// StepFunc returns lagkit's shooter's game.StepFunc for a loadout: Step
// with weapons, in the context's world. The server and every client of
// a match must be given the same loadout.
func StepFunc(weapons []Weapon) game.StepFunc {
	return func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		return Step(s, cmd, ctx.Grid, ctx.Params, weapons)
	}
}

// Switch puts weapon w, in loadout slot slot, in player s's hands. The
// weapon is drawn loaded, but drawing it takes its ReloadTime (the player
// is FlagReloading meanwhile, and the switching command does not fire),
// so switching away and back is never a faster reload: every weapon's
// magazine is full when drawn, and drawing costs exactly a reload. The
// burst ends. Step calls it when a command selects a slot of the loadout
// other than the current one; commands selecting a slot outside the
// loadout keep the current weapon.
func Switch(s game.PlayerState, slot uint8, w *Weapon) game.PlayerState {
	a := ArmsOf(&s)
	a.Weapon = slot
	a.Ammo = w.Magazine
	a.Heat = 0
	s.Flags |= FlagReloading
	a.Wait = w.ReloadTime
	return s
}

// Fire advances the weapon of player s by one command and reports whether
// it fired: the trigger (game.BtnFire) fires once every FireInterval while
// rounds remain, an empty magazine or game.BtnReload starts a reload, and
// releasing the trigger ends the burst (Heat back to 0). A dead player
// does not fire.
func Fire(s game.PlayerState, cmd game.UserCmd, w *Weapon) (game.PlayerState, bool) {
	fired := fire(&s, &cmd, w)
	return s, fired
}

// fire is Fire changing the state in place, so that Step passes the
// state and command on without copying them.
func fire(s *game.PlayerState, cmd *game.UserCmd, w *Weapon) bool {
	a := ArmsOf(s)
	d := min(max(cmd.Duration, 0), game.MaxCmdDuration)
	ready := a.Wait <= 0 // since before this command
	a.Wait -= d
	trigger := cmd.Buttons.Has(game.BtnFire) && s.Flags&game.FlagDead == 0
	if s.Flags&FlagReloading != 0 && a.Wait <= 0 {
		s.Flags &^= FlagReloading
		a.Ammo = w.Magazine
	}
	if !trigger {
		a.Heat = 0
	}
	if a.Wait < 0 && (ready || !(trigger && s.Flags&FlagReloading == 0)) {
		// Idle time does not bank shots, nor does a command that starts
		// ready (its shot leaves at its start); only the remainder of an
		// interval that ran out during the command carries over while
		// firing, which keeps the rate exact when the interval is not a
		// whole number of ticks.
		a.Wait = 0
	}
	if s.Flags&game.FlagDead != 0 || s.Flags&FlagReloading != 0 {
		return false
	}
	if cmd.Buttons.Has(game.BtnReload) && a.Ammo < w.Magazine || trigger && a.Ammo == 0 && a.Wait <= 0 {
		s.Flags |= FlagReloading
		a.Wait = w.ReloadTime
		a.Heat = 0
		return false
	}
	if !trigger || a.Wait > 0 {
		return false
	}
	a.Ammo--
	a.Wait += w.FireInterval
	if a.Wait <= 0 {
		a.Wait = w.FireInterval // a command longer than the interval fires once
	}
	a.Heat = min(a.Heat+1, 255)
	return true
}

// ShotRay returns the ray of pellet i of the shot that command cmd fired
// from player s (the state Step returned, Heat already counting this
// shot): from the eye, along the view angles raised by recoil and turned
// by spread. Spread comes from a generator seeded by the shooter's slot,
// the command and the pellet, so the server and the shooter's client draw
// the same numbers.
func ShotRay(s game.PlayerState, cmd game.UserCmd, shooter int, pellet int, w *Weapon, p *game.Params) geom.Ray {
	n := float64(max(int(ArmsOf(&s).Heat)-1, 0)) // shots before this one in the burst
	pitch := game.AngleToRad(int32(cmd.Pitch)) + math.Min(w.Recoil*n, w.RecoilMax)
	pitch = math.Min(pitch, game.AngleToRad(game.MaxPitch))
	yaw := game.AngleToRad(int32(cmd.Yaw))
	sy, cy := math.Sincos(yaw)
	sp, cp := math.Sincos(pitch)
	fwd := geom.Vec3{X: cp * cy, Y: cp * sy, Z: sp}
	cone := math.Min(w.Spread+w.SpreadGrowth*n, w.SpreadMax)
	if cone > 0 {
		// A uniform point on the disc of radius tan(cone) at unit distance.
		h := shotHash(uint64(shooter), uint64(cmd.Tick), uint64(pellet))
		u1 := float64(h>>11) / (1 << 53)
		u2 := float64(shotHash(h, 0, 0)>>11) / (1 << 53)
		r := math.Tan(cone) * math.Sqrt(u1)
		sa, ca := math.Sincos(2 * math.Pi * u2)
		right := geom.Vec3{X: sy, Y: -cy}
		up := right.Cross(fwd)
		fwd = fwd.AddScaled(right, r*ca).AddScaled(up, r*sa).Norm()
	}
	return geom.Ray{Origin: game.EyePos(s, p), Dir: fwd}
}

// shotHash mixes its inputs with SplitMix64's finaliser (Steele, Lea and
// Flood 2014): a stateless generator both ends can evaluate.
func shotHash(a, b, c uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 ^ b*0xbf58476d1ce4e5b9 ^ c*0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ShotRays returns lagkit's weapons' rays of a shot for a client's own
// verdict (client.Config.ShotRays), loadout weapons: a hitscan weapon's
// pellets along ShotRay, up to its Range; none for a projectile weapon,
// whose fate is the server's flight.
func ShotRays(weapons []Weapon) func(dst []geom.Ray, after *game.PlayerState, cmd *game.UserCmd, shooter int, p *game.Params) ([]geom.Ray, float64) {
	return func(dst []geom.Ray, after *game.PlayerState, cmd *game.UserCmd, shooter int, p *game.Params) ([]geom.Ray, float64) {
		a := ArmsOf(after)
		if int(a.Weapon) >= len(weapons) || weapons[a.Weapon].Kind != Hitscan {
			return dst, 0
		}
		w := &weapons[a.Weapon]
		for pellet := range max(w.Pellets, 1) {
			dst = append(dst, ShotRay(*after, *cmd, shooter, pellet, w, p))
		}
		return dst, w.Range
	}
}

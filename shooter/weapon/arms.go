package weapon

import (
	"time"
	"unsafe"

	"github.com/lagkit/lagkit/game"
)

// MaxWait bounds Arms.Wait: no weapon's fire interval or reload takes
// longer (Weapon.Validate).
const MaxWait = time.Minute

// FlagReloading is set while a player's weapon reloads or is drawn
// (Step, Switch): one of the game's own flags (game.FlagGame3), sent
// to everyone, so that the others see the reload.
const FlagReloading = game.FlagGame3

// Arms is the state lagkit's weapons (Step, Switch, Fire, ShotRay) keep
// of a player: the weapon in hand and its magazine, burst and timer. It
// is declared game state like any other (game.Declare), predicted by
// the owner and sent to the owner alone. lagkit's shooter declares Arms
// alone (Layout); a game of its own that fires lagkit's weapons makes it
// the first field of the state it declares (an embedded weapon.Arms), so
// that the weapon step finds it without knowing the rest.
type Arms struct {
	// Weapon is the loadout slot of the weapon in hand (see Step).
	Weapon uint8 `lagkit:"owner"`
	// Ammo is the rounds left in the magazine.
	Ammo uint8 `lagkit:"owner"`
	// Heat counts consecutive shots of the current burst: spread and
	// recoil grow with it, and releasing the trigger resets it.
	Heat uint8 `lagkit:"owner"`
	// Wait is the time until the weapon can fire again, or until a
	// reload completes, in whole microseconds.
	Wait time.Duration `lagkit:"owner,max=1m"`
}

// Decl is Arms declared as a game's state: the schema of lagkit's
// shooter's players.
var Decl = game.MustDeclare[Arms]()

// Layout is lagkit's shooter's declared state (Decl's), for
// server.Config.Game, client.Config.Game and wire sessions.
var Layout = Decl.Layout

// ArmsOf returns the player's weapon state: the first bytes of its game
// state, where a state declaring Arms first keeps it.
func ArmsOf(s *game.PlayerState) *Arms { return (*Arms)(unsafe.Pointer(&s.Game)) }

// With returns s with weapon state a: a player spawned with a weapon in
// hand, in a test or a scenario.
func With(s game.PlayerState, a Arms) game.PlayerState {
	*ArmsOf(&s) = a
	return s
}

// Rearm hands a player (re)appearing in state st the weapon it held
// (the first, if the loadout has no such slot), loaded, with no burst,
// no wait and no reload: the weapons' part of a spawn.
func Rearm(st *game.PlayerState, weapons []Weapon) {
	a := ArmsOf(st)
	slot := a.Weapon
	if int(slot) >= len(weapons) {
		slot = 0
	}
	*a = Arms{Weapon: slot, Ammo: weapons[slot].Magazine}
	st.Flags &^= FlagReloading
}

// Disarm is the weapons' part of a death: a reload in progress stops.
func Disarm(st *game.PlayerState) { st.Flags &^= FlagReloading }

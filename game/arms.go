package game

import (
	"reflect"
	"time"
	"unsafe"
)

// MaxWeaponWait bounds Arms.Wait: no weapon's fire interval or reload
// takes longer (Weapon.Check).
const MaxWeaponWait = time.Minute

// Arms is the state lagkit's weapons (Step, Switch, Fire, ShotRay) keep
// of a player: the weapon in hand and its magazine, burst and timer. It
// is declared game state like any other, predicted by the owner and
// sent to the owner alone. A game that fires lagkit's weapons makes it
// the first field of the state it declares (an embedded game.Arms), so
// that the weapon step finds it without knowing the rest; lagkit's own
// game declares Arms alone (ArmsLayout). A game with weapons of its
// own declares what they need and leaves Arms out.
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

// armsType is Arms's type, which Declare looks for.
var armsType = reflect.TypeOf(Arms{})

// Arms returns the player's weapon state: the first bytes of its game
// state, where a state declaring Arms first keeps it (Layout.Armed).
// For any other game the bytes are the game's own: do not call it.
func (s *PlayerState) Arms() *Arms { return (*Arms)(unsafe.Pointer(&s.Game)) }

// ArmsLayout is lagkit's own game's declared state: Arms alone. A core
// configured with no declared state (a nil Layout) keeps this one.
var ArmsLayout = MustDeclare[Arms]().Layout

// OrArms returns l, or ArmsLayout when l is nil: the declared state
// of a core configured with l.
func OrArms(l *Layout) *Layout {
	if l == nil {
		return ArmsLayout
	}
	return l
}

// Armed reports whether a state of this layout can fire lagkit's
// weapons: it declares Arms as its first field (or is Arms).
func (l *Layout) Armed() bool { return l != nil && l.armed }

// WithArms returns s with weapon state a: a player spawned with a
// weapon in hand, in a test or a scenario.
func (s PlayerState) WithArms(a Arms) PlayerState {
	*s.Arms() = a
	return s
}

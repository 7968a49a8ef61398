package weapon

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

type armedState struct {
	Arms
	Stamina int16 `lagkit:"max=100"`
}

type namedArms struct {
	Arms  Arms
	Charm bool
}

// TestArmsDeclared: lagkit's shooter's declaration is Arms alone,
// sent to the owner alone, and a game's state with Arms as its first
// field, embedded or named, keeps it where ArmsOf and the weapon step
// find it: the schema and ArmsOf read the same bytes.
func TestArmsDeclared(t *testing.T) {
	if Layout.Hash() == 0 || len(Layout.Fields()) != 4 {
		t.Fatalf("lagkit's shooter's declaration: hash %x, %d fields", Layout.Hash(), len(Layout.Fields()))
	}
	for _, f := range Layout.Fields() {
		if f.Vis != game.VisOwner {
			t.Errorf("Arms field %s goes to %s, want the owner alone", f.Name, f.Vis)
		}
	}
	armed := game.MustDeclare[armedState]()
	if armed.Hash() == Layout.Hash() {
		t.Fatal("a state with more than Arms hashes as Arms alone")
	}
	var st game.PlayerState
	armed.Of(&st).Stamina = 40
	st = With(st, Arms{Weapon: 2, Ammo: 7, Heat: 3, Wait: 250 * time.Millisecond})
	if g := armed.Get(&st); g.Ammo != 7 || g.Weapon != 2 || g.Wait != 250*time.Millisecond || g.Stamina != 40 {
		t.Errorf("the schema reads %+v after With", g)
	}
	armed.Of(&st).Heat = 9
	if ArmsOf(&st).Heat != 9 {
		t.Errorf("ArmsOf reads heat %d, the schema wrote 9", ArmsOf(&st).Heat)
	}
	named := game.MustDeclare[namedArms]()
	var n game.PlayerState
	named.Of(&n).Arms.Ammo = 5
	if ArmsOf(&n).Ammo != 5 {
		t.Errorf("a named Arms first field: ArmsOf reads ammo %d, want 5", ArmsOf(&n).Ammo)
	}
}

// TestRearmAndDisarm: a spawn hands back the weapon held, loaded, with
// no burst, wait or reload (the first weapon for a slot beyond the
// loadout); a death stops a reload and keeps the rest.
func TestRearmAndDisarm(t *testing.T) {
	ws := []Weapon{Rifle(), Defaults()[1]}
	st := With(game.PlayerState{Flags: FlagReloading | game.FlagDead}, Arms{Weapon: 1, Ammo: 0, Heat: 4, Wait: time.Second})
	Rearm(&st, ws)
	if a := *ArmsOf(&st); a != (Arms{Weapon: 1, Ammo: ws[1].Magazine}) || st.Flags&FlagReloading != 0 || st.Flags&game.FlagDead == 0 {
		t.Errorf("rearmed: %+v, flags %b", a, st.Flags)
	}
	ArmsOf(&st).Weapon = 7
	Rearm(&st, ws)
	if a := *ArmsOf(&st); a != (Arms{Weapon: 0, Ammo: ws[0].Magazine}) {
		t.Errorf("rearmed from a slot beyond the loadout: %+v", a)
	}
	st = With(game.PlayerState{Flags: FlagReloading | game.FlagGame}, Arms{Ammo: 3, Wait: time.Second})
	Disarm(&st)
	if st.Flags != game.FlagGame || ArmsOf(&st).Ammo != 3 || ArmsOf(&st).Wait != time.Second {
		t.Errorf("disarmed: flags %b, arms %+v", st.Flags, *ArmsOf(&st))
	}
}

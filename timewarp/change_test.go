package timewarp_test

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/timewarp"
)

type loot struct {
	weapon.Arms
	Shield float32 `lagkit:"max=50,q=0.5"`
	Item   uint8   `lagkit:"max=3"`
	Charge int16   `lagkit:"max=1000"`
}

var lootDecl = game.MustDeclare[loot]()

// TestEditWritesOnlyWhatChanged: an edit applied to a re-simulated state
// writes the fields it changed (lagkit's, a flag bit, the declared
// state's) with the values it gave them, and leaves the rest as the
// re-simulation has them.
func TestEditWritesOnlyWhatChanged(t *testing.T) {
	before := weapon.With(game.PlayerState{Pos: geom.V(1, 2, 0), Health: 100, Flags: game.FlagCrouched}, weapon.Arms{Ammo: 30})
	lootDecl.Of(&before).Charge = 7
	after := before
	weapon.ArmsOf(&after).Ammo = 3
	after.Flags |= game.FlagProtected
	a := lootDecl.Of(&after)
	a.Shield, a.Item = 20, 2
	ed := timewarp.Diff(&before, &after, lootDecl.Layout)
	if ed.Empty() {
		t.Fatal("an edit that changed fields is empty")
	}
	if same := timewarp.Diff(&before, &before, lootDecl.Layout); !same.Empty() {
		t.Fatal("an edit that changed nothing is not empty")
	}

	// The re-simulated state: moved elsewhere, hurt, crouch released,
	// charged further.
	re := weapon.With(game.PlayerState{Pos: geom.V(5, 6, 0), Health: 70}, weapon.Arms{Ammo: 30})
	lootDecl.Of(&re).Charge = 9
	ed.Apply(&re, lootDecl.Layout)
	got := lootDecl.Get(&re)
	switch {
	case re.Pos != geom.V(5, 6, 0) || re.Health != 70:
		t.Errorf("fields the edit left were written: pos %v, health %d", re.Pos, re.Health)
	case weapon.ArmsOf(&re).Ammo != 3 || got.Shield != 20 || got.Item != 2:
		t.Errorf("fields the edit wrote: ammo %d, shield %v, item %d; want 3, 20, 2", weapon.ArmsOf(&re).Ammo, got.Shield, got.Item)
	case got.Charge != 9:
		t.Errorf("the declared field the edit left: charge %d, want the re-simulation's 9", got.Charge)
	case !re.Has(game.FlagProtected) || re.Has(game.FlagCrouched):
		t.Errorf("flags %b: want the bit the edit set, and the re-simulation's others", re.Flags)
	}
}

// TestChangesClearedWithTheTick: the ring's record of a tick starts
// without changes, whatever the tick it replaced held.
func TestChangesClearedWithTheTick(t *testing.T) {
	r := timewarp.NewRing[int, struct{}](2, 2)
	e := r.Begin(1)
	e.Change(timewarp.Change{Slot: 1, Damage: 10})
	if e, _ := r.Entry(1); len(e.Changes) != 1 {
		t.Fatalf("%d changes recorded", len(e.Changes))
	}
	if e := r.Begin(4); len(e.Changes) != 0 { // tick 4 replaces tick 1
		t.Fatalf("tick 4 starts with %d changes", len(e.Changes))
	}
}

// TestDamageAppliedAgain: recorded damage takes its health from the
// re-simulated state as the host's damage did: not from a dead or spawn
// protected player, never below none; a kill it now deals is news to a
// player not settled and silent on a settled one, and a kill it dealt
// when made is dealt again on a settled player whatever the health the
// re-simulation left it.
func TestDamageAppliedAgain(t *testing.T) {
	for _, c := range []struct {
		name    string
		health  int16
		flags   game.StateFlags
		ch      timewarp.Change
		settled bool
		kills   bool
		health2 int16
		dead    bool
		died    bool // silently: the game's death rule to run
	}{
		{"hurt", 100, 0, timewarp.Change{Damage: 30}, false, false, 70, false, false},
		{"hurt, re-simulated lower", 50, 0, timewarp.Change{Damage: 30}, false, false, 20, false, false},
		{"now kills", 20, game.FlagGame3, timewarp.Change{Damage: 30}, false, true, 0, false, false},
		{"now kills a settled player", 20, game.FlagGame3, timewarp.Change{Damage: 30}, true, false, 0, true, true},
		{"killed when made, settled", 100, game.FlagGame3, timewarp.Change{Damage: 80, Killed: true}, true, false, 0, true, true},
		{"dead", 0, game.FlagDead, timewarp.Change{Damage: 30}, false, false, 0, true, false},
		{"protected", 100, game.FlagProtected, timewarp.Change{Damage: 30}, false, false, 100, false, false},
	} {
		st := game.PlayerState{Health: c.health, Flags: c.flags}
		kills, died := c.ch.Apply(&st, nil, c.settled)
		if kills != c.kills || died != c.died || st.Health != c.health2 || st.Has(game.FlagDead) != c.dead || c.flags&game.GameFlags != st.Flags&game.GameFlags {
			t.Errorf("%s: kills %v, died %v, health %d, flags %b; want %v, %v, %d, dead %v", c.name, kills, died, st.Health, st.Flags, c.kills, c.died, c.health2, c.dead)
		}
	}
}

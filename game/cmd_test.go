package game

import (
	"strings"
	"testing"
	"time"
)

// TestDeclareCmd: a game's command compiles as its state does, within
// CmdSize, with ranges and quanta but no visibility or interpolation;
// Of reads and writes a command's own bytes; the hash tells
// declarations apart; nil is lagkit's own game.
func TestDeclareCmd(t *testing.T) {
	type aim struct {
		Target  uint8   `lagkit:"max=63"`
		Axes    [2]int8 `lagkit:"min=-100,max=100"`
		Ability uint8   `lagkit:"min=1,max=4"`
		Charge  time.Duration
	}
	d, err := DeclareCmd[aim]()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range d.Fields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "Target Axes[0] Axes[1] Ability Charge" {
		t.Errorf("fields %s", got)
	}
	if d.MaxBits() != 1+6+2*(1+8)+1+2+1+32 {
		t.Errorf("MaxBits %d", d.MaxBits())
	}
	var c UserCmd
	d.Of(&c).Target, d.Of(&c).Axes[1] = 9, -3
	if got := d.Get(&c); got.Target != 9 || got.Axes[1] != -3 || c.Game == (CmdState{}) {
		t.Errorf("Of wrote %+v into %x", got, c.Game)
	}
	// The zero command's Ability is below its minimum: refused, named;
	// Snap clamps it into range.
	if err := d.Check(&c.Game); err == nil || !strings.Contains(err.Error(), "field Ability: 0 outside 1..4") {
		t.Errorf("Check: %v", err)
	}
	d.Snap(&c.Game)
	if d.Get(&c).Ability != 1 || d.Check(&c.Game) != nil {
		t.Errorf("snapped %+v", d.Get(&c))
	}
	for _, tc := range []struct {
		decl func() error
		want string
	}{
		{func() error { _, err := DeclareCmd[struct{ A [5]uint64 }](); return err }, "more than CmdSize 32"},
		{func() error {
			_, err := DeclareCmd[struct {
				A uint8 `lagkit:"owner"`
			}]()
			return err
		}, "field A: a command field takes min, max and q only"},
		{func() error {
			_, err := DeclareCmd[struct {
				A int16 `lagkit:"lerp"`
			}]()
			return err
		}, "a command field takes"},
		{func() error { _, err := DeclareCmd[struct{ P *int }](); return err }, "cannot be declared"},
		{func() error {
			_, err := DeclareCmd[struct {
				F float32
			}]()
			return err
		}, "a float needs a positive quantum"},
	} {
		if err := tc.decl(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
	other := MustDeclareCmd[struct {
		Target uint8 `lagkit:"max=31"`
	}]()
	if d.Hash() == 0 || d.Hash() == other.Hash() {
		t.Errorf("hashes %x, %x", d.Hash(), other.Hash())
	}
	var none *CmdLayout
	if none.Hash() != 0 || none.Fields() != nil || none.MaxBits() != 0 || none.Check(&c.Game) != nil {
		t.Error("a nil CmdLayout is not lagkit's game")
	}
	none.Snap(&c.Game)
	if c.Game != (CmdState{}) {
		t.Error("a nil CmdLayout's Snap kept a game part")
	}
}

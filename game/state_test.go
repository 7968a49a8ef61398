package game

import (
	"strings"
	"testing"
	"time"
)

type testState struct {
	Alive    bool
	Ammo     uint8         `lagkit:"owner,max=30"`
	Team     int8          `lagkit:"min=-1,max=1"`
	Shield   float32       `lagkit:"all,lerp,q=0.5,min=0,max=100"`
	Cooldown time.Duration `lagkit:"owner,q=1ms,max=90s"`
	Secret   int32         `lagkit:"-"`
	Slots    [3]uint16     `lagkit:"owner"`
	Pos      struct {
		X, Y int16 `lagkit:"lerp"`
	}
	Big uint64
}

func TestDeclareFields(t *testing.T) {
	s, err := Declare[testState]()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name+":"+f.Kind.String()+":"+f.Vis.String())
	}
	want := "Alive:bool:all Ammo:uint:owner Team:int:all Shield:float:all Cooldown:duration:owner Secret:int:none " +
		"Slots[0]:uint:owner Slots[1]:uint:owner Slots[2]:uint:owner Pos.X:int:all Pos.Y:int:all Big:uint:all"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("fields\n got %s\nwant %s", got, want)
	}
	bitsWant := map[string]uint{"Alive": 1, "Ammo": 5, "Team": 2, "Shield": 8, "Cooldown": 17, "Secret": 32, "Slots[1]": 16, "Big": 64}
	for _, f := range s.Fields() {
		if w, ok := bitsWant[f.Name]; ok && f.Bits != w {
			t.Errorf("%s: %d bits, want %d", f.Name, f.Bits, w)
		}
	}
	s2 := MustDeclare[testState]()
	if s.Hash() == 0 || s.Hash() != s2.Hash() {
		t.Errorf("hash %x, again %x", s.Hash(), s2.Hash())
	}
	type other struct {
		Alive bool
		Ammo  uint8 `lagkit:"owner,max=31"`
	}
	if MustDeclare[other]().Hash() == s.Hash() {
		t.Error("different declarations, one hash")
	}
	var none *Layout
	if none.Hash() != 0 || none.Fields() != nil {
		t.Error("no declaration has fields")
	}
}

func TestDeclareRejects(t *testing.T) {
	type ptr struct{ P *int }
	type str struct{ S string }
	type big struct{ A [9]uint64 }
	type nofloatq struct{ F float64 }
	type badtag struct {
		A int8 `lagkit:"max=200"`
	}
	type badword struct {
		A int8 `lagkit:"sometimes"`
	}
	type one struct {
		A int8 `lagkit:"min=3,max=3"`
	}
	for name, err := range map[string]error{
		"pointer": declErr[ptr](), "string": declErr[str](), "too big": declErr[big](),
		"float without q": declErr[nofloatq](), "range beyond type": declErr[badtag](),
		"unknown word": declErr[badword](), "one value": declErr[one](), "not a struct": declErr[int](),
	} {
		if err == nil {
			t.Errorf("%s: declared", name)
		}
	}
}

func declErr[T any]() error { _, err := Declare[T](); return err }

func TestSchemaAccessAndUnits(t *testing.T) {
	s := MustDeclare[testState]()
	var st PlayerState
	g := s.Of(&st)
	g.Ammo, g.Team, g.Shield, g.Cooldown, g.Slots[2], g.Big = 40, -1, 12.3, 61*time.Second+400*time.Microsecond, 7, 1<<63
	if s.Get(&st).Slots[2] != 7 {
		t.Fatal("typed write not kept in PlayerState.Game")
	}
	idx := map[string]int{}
	for i, f := range s.Fields() {
		idx[f.Name] = i
	}
	for name, want := range map[string]int64{"Ammo": 30, "Team": -1, "Shield": 25, "Cooldown": 61000, "Slots[2]": 7} {
		if got := s.Units(&st.Game, idx[name]); got != want {
			t.Errorf("%s: %d units, want %d", name, got, want)
		}
	}
	s.Snap(&st.Game)
	if g.Ammo != 30 || g.Shield != 12.5 || g.Cooldown != 61*time.Second || g.Big != 1<<63 {
		t.Errorf("snapped %+v", *g)
	}
}

// TestLayoutLerp: the lerp fields blend in units, rounded to even; the
// others stay as out had them.
func TestLayoutLerp(t *testing.T) {
	s := MustDeclare[testState]()
	var a, b, out PlayerState
	s.Of(&a).Shield, s.Of(&b).Shield = 10, 20
	s.Of(&a).Pos.X, s.Of(&b).Pos.X = -4, 4
	s.Of(&a).Ammo, s.Of(&b).Ammo = 1, 9
	s.Of(&out).Ammo = 5
	s.Lerp(&out.Game, &a.Game, &b.Game, 0.25)
	if o := s.Get(&out); o.Shield != 12.5 || o.Pos.X != -2 || o.Ammo != 5 {
		t.Errorf("lerped %+v", o)
	}
}

// TestDeclareTeam: the tag word team sends a field to the owner's team
// (VisTeam), a declaration of its own; Hide and Public zero it, and a
// command refuses it.
func TestDeclareTeam(t *testing.T) {
	type squad struct {
		Health int16    `lagkit:"team,max=200"`
		Mark   uint8    `lagkit:"all"`
		Inv    [2]uint8 `lagkit:"team"`
		Cool   uint8    `lagkit:"owner"`
	}
	type owned struct {
		Health int16    `lagkit:"owner,max=200"`
		Mark   uint8    `lagkit:"all"`
		Inv    [2]uint8 `lagkit:"owner"`
		Cool   uint8    `lagkit:"owner"`
	}
	s := MustDeclare[squad]()
	var got []string
	for _, f := range s.Fields() {
		got = append(got, f.Name+":"+f.Vis.String())
	}
	if g, want := strings.Join(got, " "), "Health:team Mark:all Inv[0]:team Inv[1]:team Cool:owner"; g != want {
		t.Errorf("fields %s, want %s", g, want)
	}
	if !s.SentToTeam() || !s.SentToOthers() || MustDeclare[owned]().SentToTeam() {
		t.Error("SentToTeam: the squad's, not the owned one's")
	}
	if s.Hash() == MustDeclare[owned]().Hash() {
		t.Error("team and owner fields, one hash")
	}
	var st PlayerState
	s.Set(&st, squad{Health: 150, Mark: 4, Inv: [2]uint8{1, 2}, Cool: 9})
	hidden := st
	s.Hide(&hidden.Game, VisTeam)
	if g := s.Get(&hidden); g != (squad{Mark: 4, Cool: 9}) {
		t.Errorf("hidden: %+v", g)
	}
	s.Public(&st.Game)
	if g := s.Get(&st); g != (squad{Mark: 4}) {
		t.Errorf("public: %+v", g)
	}
	type teamCmd struct {
		A uint8 `lagkit:"team"`
	}
	if _, err := DeclareCmd[teamCmd](); err == nil {
		t.Error("a command field sent to the team")
	}
	var none *Layout
	if none.SentToTeam() {
		t.Error("no declaration sends to the team")
	}
}

package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// quote: shape
// manyParts is a body of twelve parts, rings around its origin: a shot
// enters the outermost, the last part, first.
var manyParts = func() lagcomp.Body {
	ps := make(lagcomp.Parts, 12)
	for i := range ps {
		ps[i] = lagcomp.Part{Shape: lagcomp.Circle{R: 0.05 + 0.04*float64(i)}, Damage: i}
	}
	return ps
}()

// classes is each player's full health, by slot: a scout's, a heavy's.
var classes = []int16{150, 250}

// shaped is the server of a game whose bodies have twelve parts and
// whose clients draw every player's health bar.
func shaped(shots server.Shots) server.Config {
	return server.Config{
		Map: world.Field(), Seed: 5, Body: manyParts, Shots: shots,
		Shape:     wire.Shape{Parts: 12, HealthToAll: true},
		MaxHealth: func(id int, _ game.PlayerState) int16 { return classes[id] },
	}
}

// quote: end

// marksman aims at the other player as drawn and fires every half
// second; it stands still.
type marksman struct{}

func (marksman) Input(now time.Duration, c *client.Client) game.UserCmd {
	var cmd game.UserCmd
	if o, ok := other(c, now); ok {
		d := o.Pos.Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		if now%(500*time.Millisecond) < 20*time.Millisecond {
			cmd.Buttons |= game.BtnFire
		}
	}
	return cmd
}

// stander stands.
type stander struct{}

func (stander) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{} }

// partsReferee registers every pellet that hits, for 10 damage, and
// keeps what the server recorded and what the two clients were told:
// the shooter's (player 0's) confirmations and the victim's (player
// 1's) hits.
type partsReferee struct {
	records  []server.ShotRecord
	confirms []client.ConfirmReport
	hits     []client.HitReport
}

func (r *partsReferee) Fire(w *server.ShotWorld) {
	f := &w.Shot
	yaw := game.AngleToRad(int32(f.State.Yaw))
	if _, hit := w.Trace(geom.Ray{Origin: f.State.Pos, Dir: geom.V(math.Cos(yaw), math.Sin(yaw), 0)}, 300); hit {
		w.Hit(10)
	}
}

func (r *partsReferee) Delivered(_ time.Duration, i int, _ *sim.Player, rd *client.Ready) {
	r.took(i, rd)
}
func (r *partsReferee) Ticked(_ time.Duration, i int, _ *sim.Player, rd *client.Ready) { r.took(i, rd) }
func (r *partsReferee) ServerTicked(time.Duration, *server.Server)                     {}

func (r *partsReferee) took(i int, rd *client.Ready) {
	switch i {
	case 0:
		r.confirms = append(r.confirms, rd.Confirms...)
	case 1:
		r.hits = append(r.hits, rd.Hits...)
	}
}
func (r *partsReferee) ServerReady(_ time.Duration, _ *server.Server, rd *server.Ready) {
	r.records = append(r.records, rd.Shots...)
}

// TestShapePartsAndHealth: a game whose bodies have twelve parts, whose
// players' full health depends on their class (here their slot), and
// which sends every player's health to every client. Over a lossy link
// each hit names the twelfth part (index 11, beyond lagkit's four) in
// the server's record, in the victim's hit and the shooter's
// confirmation; each player spawns with its class's health; and the
// shooter draws the victim's health falling as the server has it.
func TestShapePartsAndHealth(t *testing.T) {
	link := netem.Config{Latency: 30 * time.Millisecond, Loss: 0.05}
	cc := client.Config{InterpDelay: 50 * time.Millisecond}
	ref := &partsReferee{}
	full := classes
	cfg := rifled(shaped(ref))
	cfg.SpawnProtection = time.Millisecond // shots pass a spawn-protected player
	d, err := sim.NewDriver(cfg, []sim.PlayerConfig{
		{Client: cc, Brain: marksman{}, Up: link, Down: link},
		{Client: cc, Brain: stander{}, Up: link, Down: link, JoinAt: 20 * time.Millisecond},
	}, 9)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int16]bool{} // the victim's health as the shooter draws it
	var spawned [2]bool
	for at := 50 * time.Millisecond; at <= 4*time.Second; at += 50 * time.Millisecond {
		d.Run(at, ref)
		if o, ok := other(d.Players[0].Client, at); ok {
			seen[o.Health] = true
		}
		for id, want := range full {
			if st, _, ok := d.Server.PlayerState(id); ok && !spawned[id] {
				spawned[id] = true
				if st.Health != want {
					t.Fatalf("player %d spawned with health %d, want its class's %d", id, st.Health, want)
				}
			}
		}
	}
	hits, confirms := ref.hits, ref.confirms
	if !spawned[0] || !spawned[1] || len(ref.records) < 5 || len(hits) < 5 || len(confirms) < 5 {
		t.Fatalf("%d records, %d hits, %d confirmations", len(ref.records), len(hits), len(confirms))
	}
	for i, rec := range ref.records {
		if !rec.Hit || rec.Part != 11 || !rec.Registered {
			t.Errorf("record %d: hit %v, part %d, registered %v; want a registered hit on part 11", i, rec.Hit, rec.Part, rec.Registered)
		}
	}
	for i, h := range hits {
		if h.Part != 11 || h.Damage != 10 {
			t.Errorf("hit %d: part %d, damage %d", i, h.Part, h.Damage)
		}
	}
	for i, c := range confirms {
		if c.Part != 11 || c.Victim != 1 {
			t.Errorf("confirmation %d: part %d, victim %d", i, c.Part, c.Victim)
		}
	}
	st, _, _ := d.Server.PlayerState(1)
	if !seen[250] || !seen[240] || !seen[st.Health] || st.Health >= 200 {
		t.Errorf("the shooter drew the victim's health as %v; the server has %d", seen, st.Health)
	}
}

// TestShapeHealthToOwnerAlone: without HealthToAll (lagkit's own
// shape) no client learns another's health: it draws 0.
func TestShapeHealthToOwnerAlone(t *testing.T) {
	cc := client.Config{InterpDelay: 50 * time.Millisecond}
	ref := &partsReferee{}
	d, err := sim.NewDriver(rifled(server.Config{Map: world.Field(), Seed: 5, Body: manyParts, Shots: ref, Shape: wire.Shape{Parts: 12}, SpawnProtection: time.Millisecond}),
		[]sim.PlayerConfig{{Client: cc, Brain: marksman{}}, {Client: cc, Brain: stander{}}}, 9)
	if err != nil {
		t.Fatal(err)
	}
	drawn := 0
	for at := 50 * time.Millisecond; at <= 2*time.Second; at += 50 * time.Millisecond {
		d.Run(at, ref)
		if o, ok := other(d.Players[0].Client, at); ok {
			drawn++
			if o.Health != 0 {
				t.Fatalf("another's health drawn as %d", o.Health)
			}
		}
	}
	if st := d.Players[1].Client.Predicted(); drawn == 0 || st.Health >= game.MaxHealth || len(ref.records) == 0 {
		t.Errorf("drawn %d times; the victim's own health %d after %d shots", drawn, st.Health, len(ref.records))
	}
}

// slider moves entity id along +X at 2 m/s every server tick.
type slider struct {
	sim.NoObserver
	id  int
	err error
}

func (m *slider) ServerTicked(now time.Duration, s *server.Server) {
	st := game.PlayerState{Pos: geom.V(2*now.Seconds(), -30, 0), Vel: geom.V(2, 0, 0), Health: 7}
	if err := s.SetEntity(m.id, st, nil); err != nil && m.err == nil {
		m.err = err
	}
}

// TestManySlots: a game of 64 players and 600 entities, more than
// lagkit's 256 slots, declares 664 (wire.Shape.Slots). Over a lossy
// link every client comes to draw every other player and every entity,
// the moving one where it was at the view time, and the entities'
// health (HealthToAll); lag compensation rewinds an entity in a slot
// above 255; an entity beyond the slots is refused.
func TestManySlots(t *testing.T) {
	const players, slots = 64, 664
	link := netem.Config{Latency: 30 * time.Millisecond, Loss: 0.02}
	pcs := make([]sim.PlayerConfig, players)
	for i := range pcs {
		pcs[i] = sim.PlayerConfig{Client: client.Config{InterpDelay: 50 * time.Millisecond}, Brain: stander{}, Up: link, Down: link}
	}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 3, MaxClients: players,
		Shape: wire.Shape{Slots: slots, HealthToAll: true}}, pcs, 4)
	if err != nil {
		t.Fatal(err)
	}
	crate := lagcomp.Body(lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-0.3, -0.3, 0), Max: geom.V(0.3, 0.3, 1)}, Damage: 5}})
	at := func(id int) geom.Vec3 { return geom.V(float64(id%40)*2-40, float64(id/40)*2-20, 0) }
	for id := players; id < slots-1; id++ {
		if err := d.Server.SetEntity(id, game.PlayerState{Pos: at(id), Health: int16(id)}, crate); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Server.SetEntity(slots, game.PlayerState{}, crate); !errors.Is(err, server.ErrNotEntitySlot) {
		t.Fatalf("an entity beyond the slots: %v", err)
	}
	m := &slider{id: slots - 1}
	d.Run(5*time.Second, m)
	if m.err != nil {
		t.Fatal(m.err)
	}
	now := d.Now()
	for i, p := range d.Players {
		c := p.Client
		if ids := c.RemoteIDs(nil); len(ids) != slots-1 || ids[len(ids)-1] != slots-1 {
			seen := map[int]bool{}
			for _, id := range ids {
				seen[id] = true
			}
			var missing []int
			for id := range slots {
				if id != i && !seen[id] {
					missing = append(missing, id)
				}
			}
			t.Fatalf("client %d draws %d of the %d others: missing %v", i, len(ids), slots-1, missing)
		}
		view := c.ViewTime(now)
		for _, id := range []int{players, 300, slots - 2} {
			if st, ok := c.Remote(id, view); !ok || st.Pos != game.SnapPos(at(id)) || st.Health != int16(id) {
				t.Fatalf("client %d draws entity %d at %v, health %d", i, id, st.Pos, st.Health)
			}
		}
		st, ok := c.Remote(slots-1, view)
		wantX := 2 * (view - d.Server.TickDuration()).Seconds()
		if !ok || st.Pos.Dist(geom.V(wantX, -30, 0)) > 0.05 || st.Health != 7 {
			t.Fatalf("client %d draws the moving entity at %v (health %d) at %v, want x %.3f", i, st.Pos, st.Health, view, wantX)
		}
	}
	// A shot rewound 200 ms hits the crate of slot 600 where it stands.
	then := d.Server.Time() - 200*time.Millisecond
	p := at(600)
	h, ok := d.Server.TraceAt(geom.Ray{Origin: p.Add(geom.V(-5, 0, 0.5)), Dir: geom.V(1, 0, 0)}, 10, then, nil)
	if !ok || h.ID != 600 {
		t.Fatalf("rewound shot at slot 600: %+v %v", h, ok)
	}
}

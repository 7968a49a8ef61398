package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// doorState is a door's game state: its opening in centimetres, drawn
// interpolated, and again as the nearer snapshot's.
type doorState struct {
	Opening int16 `lagkit:"lerp"`
	Near    int16
}

var doorDecl = game.MustDeclare[doorState]()

// doorMover slides a door entity along +X at 2 m/s, its opening in
// centimetres, every server tick.
type doorMover struct {
	sim.NoObserver
	id    int
	body  lagcomp.Body
	start time.Duration
	err   error
}

func (m *doorMover) ServerTicked(now time.Duration, s *server.Server) {
	x := 2 * (now - m.start).Seconds()
	st := game.PlayerState{Pos: geom.V(x, 20, 0), Vel: geom.V(2, 0, 0)}
	doorDecl.Set(&st, doorState{int16(100 * x), int16(100 * x)})
	if err := s.SetEntity(m.id, st, m.body); err != nil && m.err == nil {
		m.err = err
	}
}

// TestEntities: a game's entities beside the players reach every
// client, which draws a moving one between its states, its values
// interpolated where the game asks; a shot rewound to the past hits it
// where it was; removed, it leaves every client's world.
func TestEntities(t *testing.T) {
	link := netem.Config{Latency: 40 * time.Millisecond, Loss: 0.05}
	door := 100
	crate := lagcomp.Body(lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-0.5, -0.5, 0), Max: geom.V(0.5, 0.5, 1)}, Damage: 50}})
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 5, Game: doorDecl.Layout},
		[]sim.PlayerConfig{{Up: link, Down: link, Client: client.Config{}}, {Up: link, Down: link}}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Server.SetEntity(3, game.PlayerState{}, crate); !errors.Is(err, server.ErrNotEntitySlot) {
		t.Fatalf("a player's slot taken for an entity: %v", err)
	}
	plain, err := server.New(server.Config{Map: world.Field()})
	if err != nil {
		t.Fatal(err)
	}
	var withState game.PlayerState
	doorDecl.Of(&withState).Near = 5
	if err := plain.SetEntity(101, withState, crate); err == nil {
		t.Fatal("an entity with game state on a server that declares none")
	}
	if err := d.Server.SetEntity(200, game.PlayerState{Pos: geom.V(10, 10, 0)}, crate); err != nil {
		t.Fatal(err)
	}
	m := &doorMover{id: door, body: crate}
	d.Run(2*time.Second, m)
	if m.err != nil {
		t.Fatal(m.err)
	}
	for i, p := range d.Players {
		c := p.Client
		ids := c.RemoteIDs(nil)
		if len(ids) != 3 || ids[1] != door || ids[2] != 200 {
			t.Fatalf("client %d draws %v, want the other player, %d and 200", i, ids, door)
		}
		now := d.Now()
		view := c.ViewTime(now)
		st, ok := c.Remote(door, view)
		// Set after each tick, the door's state goes out with the next.
		wantX := 2 * (view - d.Server.TickDuration()).Seconds()
		if !ok || st.Pos.Dist(geom.V(wantX, 20, 0)) > 0.02 {
			t.Fatalf("client %d draws the door at %v at %v, want x %.3f", i, st.Pos, view, wantX)
		}
		// The door's opening is in centimetres of x: interpolated where
		// declared lerp, the nearer state's where not.
		g, want := doorDecl.Get(&st), int16(100*wantX)
		if g.Opening < want-2 || g.Opening > want+2 {
			t.Errorf("client %d: interpolated opening %d, want %d", i, g.Opening, want)
		}
		perTick := int16(200 * d.Server.TickDuration().Seconds())
		if g.Near < want-perTick-2 || g.Near > want+perTick+2 {
			t.Errorf("client %d: nearer opening %d, want within %d of %d", i, g.Near, perTick, want)
		}
		if c, ok := c.Remote(200, view); !ok || c.Pos != geom.V(10, 10, 0) {
			t.Fatalf("client %d: crate %v %v", i, c, ok)
		}
	}
	// A shot down the X axis' parallel at y = 20, from behind, rewound
	// 300 ms, hits the door where it was then.
	now := d.Server.Time()
	then := now - 300*time.Millisecond
	x := 2 * (then - d.Server.TickDuration()).Seconds()
	shot := geom.Ray{Origin: geom.V(x, 10, 0.5), Dir: geom.V(0, 1, 0)}
	h, ok := d.Server.TraceAt(shot, 50, then, nil)
	if !ok || h.ID != door || h.Damage != 50 {
		t.Fatalf("rewound shot: %+v %v", h, ok)
	}
	if h, ok := d.Server.TraceAt(shot, 50, now, nil); ok && h.ID == door {
		t.Fatal("the live door, 60 cm on, was hit")
	}
	d.Server.RemoveEntity(200)
	d.Run(d.Now()+time.Second, m)
	for i, p := range d.Players {
		if _, ok := p.Client.Remote(200, p.Client.ViewTime(d.Now())); ok {
			t.Errorf("client %d still draws the removed crate", i)
		}
	}
	if _, ok := d.Server.Entity(200); ok {
		t.Error("the server still has the removed crate")
	}
}

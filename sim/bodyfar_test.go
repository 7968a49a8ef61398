package sim_test

import (
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

// hull is the body of TestFarBodyBehindCoverAppealed: a hull 6.4 m long
// and 80 cm wide, 2.5 m high, that trails 6 m behind its origin (its
// yaw points at its nose), its one part beyond lagkit's four.
var hull lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-6, -0.4, 0), Max: geom.V(0.4, 0.4, 2.5)}, Damage: 10}}

// hullTail is the point in the hull's frame a tailAimer aims at, 10 cm
// from its far end.
var hullTail = geom.V(-5.9, 0, 0)

// tailAimer aims, level, at the far end of the other player's hull as
// drawn, and holds the trigger while fire is set.
type tailAimer struct{ fire bool }

func (b *tailAimer) Input(now time.Duration, c *client.Client) game.UserCmd {
	var cmd game.UserCmd
	if o, ok := other(c, now); ok {
		d := lagcomp.PoseOf(o).ToWorld(hullTail).Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		if b.fire {
			cmd.Buttons = game.BtnFire
		}
	}
	return cmd
}

// TestFarBodyBehindCoverAppealed is TestBodyBehindCoverAppealed on a
// body larger than wire.MaxLocal: under alc the victim, its hull
// trailing 6 m behind it, walks along +Y until the hull's tail is
// behind the wall (worldtest.Cover: x 10 to 10.5, y 0 to 4) while a
// shooter 250 ms behind it fires, through a game's resolver, at the
// tail as drawn. Every hit is at the far end, more than wire.MaxLocal
// from the body's origin: the victim's client is told of each with the
// Local the server traced, on the LocalQuantum grid, judges it on the
// hull at its predicted pose, and denies the hits its tail took in the
// open once it is behind the wall; the server, judging the same,
// upholds the denials. Without the far code the hits could not be sent:
// the victim would hear of none and they would all time out.
func TestFarBodyBehindCoverAppealed(t *testing.T) {
	sh, vi := &tailAimer{}, &crosser{stopY: 1.5 - hullTail.X}
	d, ref, victim := appealScene(t, hull, sh, &sh.fire, vi, -hullTail.X)
	upheld, confirmed := appealOutcomes(t, ref, victim)
	denied := 0
	q := func(v float64) float64 { return math.Round(v/wire.LocalQuantum) * wire.LocalQuantum }
	for _, h := range ref.hits[1] {
		if !h.OnBody || h.Part != 0 || h.Appeal == 0 {
			t.Errorf("victim's hit %+v: want a provisional hit on the body's part 0", h)
		}
		traced, ok := ref.locals[h.ShotTick]
		if want := geom.V(q(traced.X), q(traced.Y), q(traced.Z)); !ok || h.Local != want {
			t.Errorf("victim's hit %+v: local %v, want %v (traced %v)", h, h.Local, want, traced)
		}
		if h.Local.X > -wire.MaxLocal || h.Local.X < hullTail.X-0.5 {
			t.Errorf("victim's hit %+v: local %v, want one at the hull's far end", h, h.Local)
		}
		if h.Denied != h.SBC {
			t.Errorf("honest client's hit %+v: denied %v, behind cover %v", h, h.Denied, h.SBC)
		}
		if h.Denied {
			denied++
		}
	}
	t.Logf("%d hits: %d denied and upheld, %d confirmed; victim told of %d, denied %d", upheld+confirmed, upheld, confirmed, len(ref.hits[1]), denied)
	if upheld == 0 || confirmed == 0 || denied != upheld || len(ref.hits[1]) != upheld+confirmed {
		t.Fatalf("%d upheld, %d confirmed; the victim told of %d, denied %d", upheld, confirmed, len(ref.hits[1]), denied)
	}
	if st, _, _ := d.Server.PlayerState(victim); int(st.Health) != int(game.MaxHealth)-10*confirmed {
		t.Errorf("victim's health %d after %d confirmed hits of 10", st.Health, confirmed)
	}
}

// longHull trails 75 m behind its origin: a hit at its tail lies beyond
// wire.MaxBodyLocal, which no HitEvent carries.
var longHull lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-75, -0.4, 0), Max: geom.V(0.4, 0.4, 2.5)}, Damage: 10}}

// TestBodyBeyondMaxBodyLocal: a body of BodyOf reaching 75 m, hit at
// its tail, 75 m from its origin, under alc. Its victim cannot be told
// where (no HitEvent carries the spot), so it cannot answer an appeal:
// each hit is registered without one, dealing its damage, and the
// victim's client hears of none, rather than each waiting out an
// appeal its victim never saw.
func TestBodyBeyondMaxBodyLocal(t *testing.T) {
	m := world.Field()
	ref := newWallReferee(m)
	far := netem.Config{Latency: 100 * time.Millisecond}
	near := netem.Config{Latency: 10 * time.Millisecond}
	sh := &level{}
	body := func(int, game.PlayerState) lagcomp.Body { return longHull }
	d, err := sim.NewDriver(rifled(server.Config{Map: m, Seed: 5, BodyOf: body, Shots: ref, Policy: lagcomp.Config{Name: "alc"}}),
		[]sim.PlayerConfig{
			{Client: client.Config{InterpDelay: 100 * time.Millisecond}, Brain: sh, Up: far, Down: far},
			{Client: client.Config{InterpDelay: 50 * time.Millisecond}, Brain: stander{}, Up: near, Down: near},
		}, 7)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(time.Second, nil)
	shooter, victim := d.Players[0].Client.ID(), d.Players[1].Client.ID()
	d.Server.Place(shooter, geom.V(-40, 0, 0), 0)
	d.Server.Place(victim, geom.V(40, 0, 0), 0)
	d.Run(2*time.Second, nil)
	sh.fire = true
	d.Run(3*time.Second, ref)
	sh.fire = false
	d.Run(4*time.Second, ref)

	hits := 0
	for _, rec := range ref.records {
		if !rec.Hit {
			continue
		}
		hits++
		local, ok := ref.locals[rec.ShotTick]
		if rec.Victim != victim || rec.Appealed || rec.Outcome != wire.OutcomeRegistered || !rec.Registered || rec.Damage != 10 {
			t.Errorf("hit %+v: want a registered hit on the victim, not appealed", rec)
		}
		if !ok || local.X > -wire.MaxBodyLocal {
			t.Errorf("hit %+v at %v: want one beyond %g m", rec, local, wire.MaxBodyLocal)
		}
	}
	t.Logf("%d hits at the tail, the victim told of %d", hits, len(ref.hits[1]))
	if hits == 0 || len(ref.hits[1]) != 0 {
		t.Fatalf("%d hits, the victim told of %d: want hits, none told", hits, len(ref.hits[1]))
	}
	if st, _, _ := d.Server.PlayerState(victim); int(st.Health) != max(0, int(game.MaxHealth)-10*hits) {
		t.Errorf("victim's health %d after %d hits of 10", st.Health, hits)
	}
}

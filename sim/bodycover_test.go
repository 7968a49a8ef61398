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
	"github.com/lagkit/lagkit/world/worldtest"
)

// wallReferee is a game's resolver on a map with walls: each shot is a
// ray along the shooter's yaw from its eye, cut at the map's first box,
// traced through the players' bodies and registered for 10 damage.
// With tracers set it shows every ray it traces (ShotWorld.ShowTracer).
// It keeps the server's records and sightings, and what each client
// handed over.
type wallReferee struct {
	m         *world.Map
	tracers   bool
	records   []server.ShotRecord
	sightings []server.ShotRecord
	hits      map[int][]client.HitReport
	verdicts  map[int][]wire.VerdictEvent
	seen      map[int][]wire.TracerEvent
}

func newWallReferee(m *world.Map) *wallReferee {
	return &wallReferee{m: m, hits: map[int][]client.HitReport{}, verdicts: map[int][]wire.VerdictEvent{}, seen: map[int][]wire.TracerEvent{}}
}

func (r *wallReferee) Fire(w *server.ShotWorld) {
	f := &w.Shot
	yaw := game.AngleToRad(int32(f.State.Yaw))
	ray := geom.Ray{Origin: f.Eye, Dir: geom.V(math.Cos(yaw), math.Sin(yaw), 0)}
	reach := 100.0
	if wall, ok := r.m.Grid.Raycast(ray, reach); ok {
		reach = wall.Dist
	}
	_, hit := w.Trace(ray, reach)
	if hit {
		w.Hit(10)
	}
}

func (r *wallReferee) Delivered(_ time.Duration, i int, _ *sim.Player, rd *client.Ready) {
	r.took(i, rd)
}
func (r *wallReferee) Ticked(_ time.Duration, i int, _ *sim.Player, rd *client.Ready) { r.took(i, rd) }
func (r *wallReferee) ServerTicked(time.Duration, *server.Server)                     {}

func (r *wallReferee) took(i int, rd *client.Ready) {
	r.hits[i] = append(r.hits[i], rd.Hits...)
	r.verdicts[i] = append(r.verdicts[i], rd.Verdicts...)
	r.seen[i] = append(r.seen[i], rd.Tracers...)
}

func (r *wallReferee) ServerReady(_ time.Duration, _ *server.Server, rd *server.Ready) {
	r.records = append(r.records, rd.Shots...)
	r.sightings = append(r.sightings, rd.Sightings...)
}

// aimer aims along +X at the other player as drawn, level, and holds
// the trigger while fire is set.
type aimer struct{ fire bool }

func (b *aimer) Input(now time.Duration, c *client.Client) game.UserCmd {
	var cmd game.UserCmd
	if o, ok := other(c, now); ok {
		d := o.Pos.Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		if b.fire {
			cmd.Buttons = game.BtnFire
		}
	}
	return cmd
}

// crosser walks along +Y, once walk is set, until its client predicts
// it at stopY.
type crosser struct {
	walk  bool
	stopY float64
}

func (b *crosser) Input(_ time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Yaw: game.YawUnits(math.Pi / 2)}
	if b.walk && c.Predicted().Pos.Y < b.stopY {
		cmd.Forward = 127
	}
	return cmd
}

// tallDisc is the body of TestBodyBehindCoverAppealed: a disc of 30 cm, of
// any height, its one part beyond lagkit's four.
var tallDisc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}

// TestBodyBehindCoverAppealed: under alc, a victim on a 20 ms round trip
// walks behind a wall 3 m high (worldtest.Cover: x 10 to 10.5, y 0 to
// 4) while a shooter 250 ms behind it fires at it as drawn, through a
// game's resolver against the game's bodies (a disc as tall as the
// sky). The hits that find the victim still in the open, rewound, reach
// its client when it stands behind the wall on its predicted pose: the
// client judges them on the disc at that pose, finds them behind cover
// and denies them, and the server, judging the same, upholds the
// denials; the records say so, the victim's health is untouched by
// them, and the client's sightings reach the server as behind cover.
// Judged on lagkit's humanoid instead (its head, with the impact 1.6 m
// above the body's origin), the point would clear the wall and the
// client would confirm: the denials show the body is used.
func TestBodyBehindCoverAppealed(t *testing.T) {
	m := worldtest.Cover(t)
	ref := newWallReferee(m)
	far := netem.Config{Latency: 100 * time.Millisecond}
	near := netem.Config{Latency: 10 * time.Millisecond}
	sh, vi := &aimer{}, &crosser{stopY: 1.5}
	d, err := sim.NewDriver(server.Config{Map: m, Seed: 4, Body: tallDisc, Shots: ref, Policy: lagcomp.Config{Name: "alc"}},
		[]sim.PlayerConfig{
			{Client: client.Config{InterpDelay: 100 * time.Millisecond}, Brain: sh, Up: far, Down: far},
			{Client: client.Config{InterpDelay: 50 * time.Millisecond}, Brain: vi, Up: near, Down: near},
		}, 7)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(time.Second, nil)
	shooter, victim := d.Players[0].Client.ID(), d.Players[1].Client.ID()
	d.Server.Place(shooter, geom.V(0, 0, 0), 0)
	d.Server.Place(victim, geom.V(12, -3, 0), math.Pi/2)
	d.Run(3*time.Second, nil)
	sh.fire, vi.walk = true, true
	d.Run(6*time.Second, ref)
	sh.fire = false
	d.Run(7*time.Second, ref)

	upheld, confirmed := 0, 0
	for _, rec := range ref.records {
		if !rec.Hit {
			continue
		}
		if rec.Victim != victim || !rec.Appealed || !rec.Rewound {
			t.Errorf("hit %+v: want an appealed, rewound hit on the victim", rec)
		}
		switch rec.Outcome {
		case wire.OutcomeDeniedUpheld:
			upheld++
			if rec.Registered || rec.Damage != 0 {
				t.Errorf("upheld denial %+v dealt damage", rec)
			}
		case wire.OutcomeConfirmed:
			confirmed++
		default:
			t.Errorf("hit %+v: outcome %v", rec, rec.Outcome)
		}
	}
	denied := 0
	for _, h := range ref.hits[1] {
		if !h.OnBody || h.Part != 0 || h.Appeal == 0 {
			t.Errorf("victim's hit %+v: want a provisional hit on the body's part 0", h)
		}
		if h.Denied != h.SBC {
			t.Errorf("honest client's hit %+v: denied %v, behind cover %v", h, h.Denied, h.SBC)
		}
		if h.Denied {
			denied++
		}
	}
	t.Logf("%d hits: %d denied and upheld, %d confirmed; victim told of %d, denied %d", upheld+confirmed, upheld, confirmed, len(ref.hits[1]), denied)
	if upheld == 0 || confirmed == 0 || denied != upheld {
		t.Fatalf("%d upheld, %d confirmed, %d denied by the client", upheld, confirmed, denied)
	}
	sbc := 0
	for _, rec := range ref.sightings {
		if rec.Sight.Known && rec.Sight.SBC {
			sbc++
			if rec.Outcome != wire.OutcomeDeniedUpheld {
				t.Errorf("sighted behind cover, outcome %v", rec.Outcome)
			}
		}
	}
	if sbc != upheld {
		t.Errorf("%d sightings behind cover, %d denials upheld", sbc, upheld)
	}
	if st, _, _ := d.Server.PlayerState(victim); int(st.Health) != int(game.MaxHealth)-10*confirmed {
		t.Errorf("victim's health %d after %d confirmed hits of 10", st.Health, confirmed)
	}
}

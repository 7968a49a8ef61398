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
	lkshooter "github.com/lagkit/lagkit/shooter"
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
	// locals is the impact in the body's frame of each hit traced, by
	// the shooter's command that fired.
	locals map[uint32]geom.Vec3
}

func newWallReferee(m *world.Map) *wallReferee {
	return &wallReferee{m: m, hits: map[int][]client.HitReport{}, verdicts: map[int][]wire.VerdictEvent{}, seen: map[int][]wire.TracerEvent{}, locals: map[uint32]geom.Vec3{}}
}

func (r *wallReferee) Fire(w *server.ShotWorld) {
	f := &w.Shot
	yaw := game.AngleToRad(int32(f.State.Yaw))
	ray := geom.Ray{Origin: f.Eye, Dir: geom.V(math.Cos(yaw), math.Sin(yaw), 0)}
	reach := 100.0
	if wall, ok := r.m.Grid.Raycast(ray, reach); ok {
		reach = wall.Dist
	}
	h, hit := w.Trace(ray, reach)
	if hit {
		r.locals[f.Cmd.Tick] = h.Local
	}
	if r.tracers {
		w.ShowTracer()
		w.ShowTracer() // a ray is shown once: this does nothing
	}
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
	sh, vi := &aimer{}, &crosser{stopY: 1.5}
	d, ref, victim := appealScene(t, tallDisc, sh, &sh.fire, vi, 0)
	upheld, confirmed := appealOutcomes(t, ref, victim)
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

// level fires along +X, level, while fire is set.
type level struct{ fire bool }

func (b *level) Input(time.Duration, *client.Client) game.UserCmd {
	if b.fire {
		return game.UserCmd{Buttons: game.BtnFire}
	}
	return game.UserCmd{}
}

// TestGameShotTracers: a game's resolver that shows its shots' rays
// (ShotWorld.ShowTracer) has them drawn as lagkit's pellets are: a
// bystander 8 m from the line of fire is told of each shot, from the
// shooter's eye to the body it hit, and once the victim is dead to the
// field's edge, in its client's Ready.Tracers; the shooter, which draws
// its own shots, is told of none; the victim of every one, except under
// ShowRewind of those that hit it (it draws the rewind event instead). A
// resolver that does not show its rays has none drawn.
func TestGameShotTracers(t *testing.T) {
	for _, tc := range []struct {
		name         string
		show, rewind bool
	}{
		{"shown", true, false},
		{"shown with rewind", true, true},
		{"not shown", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := world.Field()
			ref := newWallReferee(m)
			ref.tracers = tc.show
			link := netem.Config{Latency: 30 * time.Millisecond}
			cc := client.Config{InterpDelay: 50 * time.Millisecond}
			sh := &level{}
			d, err := sim.NewDriver(rifled(server.Config{Map: m, Seed: 6, Body: tallDisc, Shots: ref, ShowTracers: true, ShowRewind: tc.rewind}),
				[]sim.PlayerConfig{
					{Client: cc, Brain: sh, Up: link, Down: link},
					{Client: cc, Brain: stander{}, Up: link, Down: link},
					{Client: cc, Brain: stander{}, Up: link, Down: link},
				}, 3)
			if err != nil {
				t.Fatal(err)
			}
			d.Run(time.Second, nil)
			ids := [3]int{}
			for i, p := range d.Players {
				ids[i] = p.Client.ID()
			}
			d.Server.Place(ids[0], geom.V(0, 0, 0), 0)
			d.Server.Place(ids[1], geom.V(20, 0, 0), math.Pi)
			d.Server.Place(ids[2], geom.V(10, 8, 0), -math.Pi/2)
			d.Run(2*time.Second, nil)
			sh.fire = true
			d.Run(4*time.Second, ref)
			sh.fire = false
			d.Run(5*time.Second, ref)
			hits := 0
			for _, rec := range ref.records {
				if rec.Hit && rec.Victim == ids[1] {
					hits++
				}
			}
			shots := len(ref.records)
			if hits < 5 || shots-hits < 5 {
				t.Fatalf("%d shots, %d hits on the victim", shots, hits)
			}
			want := [3]int{0, shots, shots}
			if tc.rewind {
				want[1] = shots - hits
			}
			if !tc.show {
				want = [3]int{}
			}
			for i, n := range want {
				if got := len(ref.seen[i]); got != n {
					t.Errorf("player %d told of %d tracers, want %d", i, got, n)
				}
			}
			eye := geom.V(0, 0, 1.6)
			for i, e := range ref.seen[2] {
				to := geom.V(19.7, 0, 1.6) // the front of the victim's disc
				if i >= hits {
					to.X = e.To.X // past the dead victim to the field's edge
				}
				if int(e.Shooter) != ids[0] || e.From.Sub(eye).Len() > 0.1 || e.To.Sub(to).Len() > 0.1 || e.To.X <= 20 && i >= hits {
					t.Errorf("tracer %d %+v: want from the shooter's eye to %v", i, e, to)
				}
			}
		})
	}
}

// appealScene plays the scene of TestBodyBehindCoverAppealed with every
// player's body: under alc, on worldtest.Cover, the shooter (brain sh,
// its trigger fire) at the origin 250 ms behind, the victim (vi) at 20
// ms placed at (12, back-3) facing +Y. The victim walks, and the
// shooter fires, from 3 to 6 s of the match. It returns the driver, the
// referee (the game's resolver) and the victim's slot.
func appealScene(t *testing.T, body lagcomp.Body, sh sim.Brain, fire *bool, vi *crosser, back float64) (*sim.Driver, *wallReferee, int) {
	t.Helper()
	m := worldtest.Cover(t)
	ref := newWallReferee(m)
	far := netem.Config{Latency: 100 * time.Millisecond}
	near := netem.Config{Latency: 10 * time.Millisecond}
	d, err := sim.NewDriver(rifled(server.Config{Map: m, Seed: 4, Body: body, Shots: ref, Policy: lagcomp.Config{Name: "alc"}}),
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
	d.Server.Place(victim, geom.V(12, back-3, 0), math.Pi/2)
	d.Run(3*time.Second, nil)
	*fire, vi.walk = true, true
	d.Run(6*time.Second, ref)
	*fire = false
	d.Run(7*time.Second, ref)
	return d, ref, victim
}

// appealOutcomes counts the hits in ref's records whose denial was
// upheld and those confirmed; each must be an appealed, rewound hit on
// victim, an upheld denial dealing nothing.
func appealOutcomes(t *testing.T, ref *wallReferee, victim int) (upheld, confirmed int) {
	t.Helper()
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
	return upheld, confirmed
}

// rifled returns cfg with its players firing lagkit's rifle
// (shooter.Arm: its step, state, spawn and death), its shots resolved
// by cfg.Shots, the game's own.
func rifled(cfg server.Config) server.Config {
	if err := lkshooter.Arm(&cfg, nil); err != nil {
		panic(err)
	}
	return cfg
}

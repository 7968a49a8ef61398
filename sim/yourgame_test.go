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
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// A game of its own on lagkit's netcode, written against exported names
// only: a dash as movement, stamina as replicated state, a circle as
// body.

// dashState is the game's own state of a player: stamina, replicated to
// everyone, and the dash's cooldown, the owner's alone.
type dashState struct {
	weapon.Arms       // lagkit's weapons' state, first: the game fires the rifle
	Stamina     int16 `lagkit:"all,max=100"`
	Cooldown    uint8 `lagkit:"owner,max=32"` // ticks until the next dash
}

var dashDecl = game.MustDeclare[dashState]()

// dashLoadout is the game's weapons: lagkit's rifle, handed back loaded
// at each spawn (dashSpawn) and its reload stopped at a death
// (dashDied).
var dashLoadout = []weapon.Weapon{weapon.Rifle()}

func dashSpawn(_, _ int, st *game.PlayerState) { weapon.Rearm(st, dashLoadout) }
func dashDied(_ int, st *game.PlayerState)     { weapon.Disarm(st) }

const (
	btnDash   = game.BtnGame
	dashCost  = 40
	dashTicks = 32
	dashLen   = 2.0 // metres
)

// dashStep is the game's movement: lagkit's step, then a dash of 2 m
// along the view for 40 stamina, at most every 32 ticks; stamina comes
// back a point a tick.
func dashStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := weapon.Step(s, cmd, ctx.Grid, ctx.Params, dashLoadout)
	ds := dashDecl.Of(&s)
	st, cool := ds.Stamina, ds.Cooldown
	if cool > 0 {
		cool--
	}
	if cmd.Buttons.Has(btnDash) && cool == 0 && st >= dashCost && s.Flags&game.FlagDead == 0 {
		yaw := game.AngleToRad(int32(s.Yaw))
		up := geom.V(0, 0, 1)
		to := game.SnapPos(s.Pos.Add(geom.V(math.Cos(yaw), math.Sin(yaw), 0).Scale(dashLen)))
		if !ctx.Grid.SegmentBlocked(s.Pos.Add(up), to.Add(up)) {
			s.Pos = to
		}
		st, cool = st-dashCost, dashTicks
	} else if st < 100 {
		st++
	}
	ds.Stamina, ds.Cooldown = st, cool
	return s, fired
}

// circle is every player's body: a disc of 25 cm, which a player
// running for 150 ms leaves by twice its radius.
var circle lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.25}, Damage: 34}}

// other returns the first remote player c draws.
func other(c *client.Client, now time.Duration) (game.PlayerState, bool) {
	ids := c.RemoteIDs(nil)
	if len(ids) == 0 {
		return game.PlayerState{}, false
	}
	return c.Remote(ids[0], c.ViewTime(now))
}

// shooter walks on a circle, dashes every second and shoots at the other
// player as drawn every half second.
type shooter struct{}

func (shooter) Input(now time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Forward: 60, Side: 40}
	me := c.Predicted()
	if o, ok := other(c, now); ok {
		d := o.Pos.Sub(me.Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		if now%(500*time.Millisecond) < 100*time.Millisecond {
			cmd.Buttons |= game.BtnFire
		}
	}
	if now%time.Second >= 250*time.Millisecond && now%time.Second < 270*time.Millisecond {
		cmd.Buttons |= btnDash // between shots: a shot flies from where it was aimed
	}
	return cmd
}

// target strafes around the shooter as fast as it runs, facing it.
type target struct{}

func (target) Input(now time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Side: 127}
	if o, ok := other(c, now); ok {
		d := o.Pos.Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
	}
	return cmd
}

// shotResult is what the game's server found for one shot.
type shotResult struct {
	rewind        time.Duration
	hit, liveMiss bool
	moved         float64 // how far the circle hit moved from the rewound time to now
}

// referee is the game's server loop and its shot resolution
// (server.Config.Shots): it traces each shot where the lag compensation
// policy tests it, and counts dashes. It registers no hit (the target
// would die and the test's shots miss it dead): each pellet that hit is
// recorded as one the game discarded.
type referee struct {
	shots   []shotResult
	records []server.ShotRecord
	dashes  int
	values  map[int]int // distinct stamina values each player had
	told    *told
}

func (r *referee) Fire(w *server.ShotWorld) {
	s, f := w.Server(), &w.Shot
	yaw := game.AngleToRad(int32(f.State.Yaw))
	ray := geom.Ray{Origin: f.State.Pos, Dir: geom.V(math.Cos(yaw), math.Sin(yaw), 0)}
	h, hit := w.Trace(ray, 300)
	_, live := s.TraceAt(ray, 300, f.Now, func(id int) bool { return id == f.Shooter })
	res := shotResult{rewind: f.Now - w.Time(), hit: hit && h.Damage == 34, liveMiss: !live}
	if hit {
		now, _ := s.BodyAt(h.ID, f.Now)
		res.moved = now.Pos.Dist(h.Pose.Pos)
	}
	r.shots = append(r.shots, res)
}

func (r *referee) Delivered(now time.Duration, i int, p *sim.Player, rd *client.Ready) {
	r.told.observe(now, i, p, rd)
}
func (r *referee) Ticked(time.Duration, int, *sim.Player, *client.Ready) {}

func (r *referee) ServerTicked(time.Duration, *server.Server) {}

func (r *referee) ServerReady(now time.Duration, s *server.Server, rd *server.Ready) {
	if rd.Ticks == 0 {
		return
	}
	for id := range s.MaxClients() {
		if st, _, ok := s.PlayerState(id); ok && dashDecl.Of(&st).Cooldown == dashTicks {
			r.dashes++
		}
	}
	r.records = append(r.records, rd.Shots...)
}

// TestYourGame: a game's own movement (a dash), state (stamina) and body
// (a circle) over a 100 ms round trip with 5% loss each way: its
// players predict their position and stamina without error, and every
// shot at the moving circle as the shooter drew it, 150 ms (and a tick
// or so) before the server resolves it, hits once rewound and misses the
// live circle, which has moved on by more than its radius.
func TestYourGame(t *testing.T) {
	link := netem.Config{Latency: 50 * time.Millisecond, Loss: 0.05}
	cc := client.Config{InterpDelay: 50 * time.Millisecond}
	ref := &referee{told: newTold(2)}
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 11, Step: dashStep, Game: dashDecl.Layout, Spawn: dashSpawn, Died: dashDied, Body: circle, Shots: ref,
		SpawnProtection: time.Millisecond, // shots pass a spawn-protected player
	}, []sim.PlayerConfig{
		{Client: cc, Brain: shooter{}, Up: link, Down: link},
		{Client: cc, Brain: target{}, Up: link, Down: link, JoinAt: 30 * time.Millisecond},
	}, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int16]bool{}
	for at := 100 * time.Millisecond; at <= 10*time.Second; at += 100 * time.Millisecond {
		d.Run(at, ref)
		if o, ok := other(d.Players[0].Client, at); ok {
			seen[dashDecl.Of(&o).Stamina] = true // the target's stamina, as replicated
		}
	}
	errs := append(ref.told.errs[0], ref.told.errs[1]...)
	of := ref.told.of[0] + ref.told.of[1]
	missed := map[string]int{}
	for _, w := range ref.told.wrong {
		for f, n := range w {
			if n > 0 {
				missed[f] += n
			}
		}
	}
	if len(errs) < 1000 || of != len(errs) {
		t.Fatalf("%d prediction samples, %d of them field by field", len(errs), of)
	}
	for i, e := range errs {
		if e != 0 {
			t.Fatalf("prediction error %d is %v m", i, e)
		}
	}
	// The server's hits take health and kill (the dead flag), which no
	// client predicts; every other field, the game's included, is
	// predicted exactly.
	delete(missed, "health")
	delete(missed, "flags")
	if len(missed) != 0 {
		t.Fatalf("fields mispredicted in %d predictions: %v", of, missed)
	}
	if ref.dashes < 5 {
		t.Fatalf("%d dashes", ref.dashes)
	}
	if len(seen) < 10 || !seen[100] {
		t.Fatalf("the shooter saw the target's stamina take %d values (100: %v), want its climb to 100", len(seen), seen[100])
	}
	hits := 0
	for i, s := range ref.shots {
		// The round trip and the interpolation delay, and the wait for
		// the tick that runs the command.
		if s.rewind < 150*time.Millisecond || s.rewind > 200*time.Millisecond {
			t.Errorf("shot %d rewound %v, want 150 ms and up to a few ticks more", i, s.rewind)
		}
		if s.hit {
			hits++
			if s.moved < 0.4 {
				t.Errorf("shot %d: the circle moved only %.2f m", i, s.moved)
			}
			if !s.liveMiss {
				t.Errorf("shot %d also hit the live circle, %.2f m on", i, s.moved)
			}
		}
	}
	if len(ref.shots) < 5 || hits != len(ref.shots) {
		t.Fatalf("%d of %d shots hit the rewound circle", hits, len(ref.shots))
	}
	// Each shot's record, as lagkit's own are made: the shooter, the
	// victim, how far it was rewound, and the outcome of a hit the game
	// traced and did not register.
	if len(ref.records) != len(ref.shots) {
		t.Fatalf("%d shot records for %d shots", len(ref.records), len(ref.shots))
	}
	for i, rec := range ref.records {
		if rec.Shooter != 0 || rec.Victim != 1 || !rec.Hit || rec.Registered || rec.Outcome != wire.OutcomeDiscarded ||
			!rec.Rewound || time.Duration(rec.RewindMS*float64(time.Millisecond)) != ref.shots[i].rewind {
			t.Errorf("record %d: %+v", i, rec)
		}
	}
}

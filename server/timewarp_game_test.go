package server_test

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
	"github.com/lagkit/lagkit/world"
)

// Time warp for a game that resolves its own shots (Config.GameShots)
// and hurts and edits its players between ticks (Damage, Edit).

// warpCircle is the game's body of a player.
var warpCircle lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}, Damage: 25}}

// warpGame returns a game's server under time warp with two idle
// players, connected.
func warpGame(t *testing.T) *sim.Driver {
	t.Helper()
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 3, Policy: lagcomp.Config{Name: "none"}, TimeWarp: 200 * time.Millisecond,
		SpawnProtection: time.Millisecond, GameShots: true, Body: warpCircle,
	}, []sim.PlayerConfig{{Brain: idle{}}, {Brain: idle{}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(400*time.Millisecond, nil)
	return d
}

// TestTimeWarpReplaysDamage: damage and an edit a game makes between
// ticks are facts of the tick just run, which a warp re-running the
// player through it applies again to the re-simulated state: the health
// taken and the field written stand, on the state re-simulated from the
// player's late (here: turned) commands, and a kill stays one kill.
func TestTimeWarpReplaysDamage(t *testing.T) {
	d := warpGame(t)
	s := d.Server
	if killed, err := s.Damage(1, 30, 0); killed || err != nil {
		t.Fatalf("damage under time warp: %v, %v", killed, err)
	}
	if err := s.Edit(1, func(st *game.PlayerState) { st.Ammo = 3 }); err != nil {
		t.Fatalf("edit under time warp: %v", err)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	before, _, _ := s.PlayerState(1)
	server.TurnWarpCmds(s, 1, 10)
	if n, err := s.Resimulate(1, 10); n != 10 || err != nil {
		t.Fatalf("resimulate: %d, %v", n, err)
	}
	after, _, _ := s.PlayerState(1)
	if after.Yaw == before.Yaw {
		t.Fatalf("the warp did not re-simulate player 1: yaw %d", after.Yaw)
	}
	if after.Health != game.MaxHealth-30 || after.Ammo != 3 {
		t.Errorf("after the warp: health %d, ammo %d; want %d and 3 (the damage and the edit replayed)", after.Health, after.Ammo, game.MaxHealth-30)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	if st, _, _ := s.PlayerState(1); st.Health != game.MaxHealth-30 || st.Ammo != 3 {
		t.Errorf("ticks after the warp: health %d, ammo %d", st.Health, st.Ammo)
	}

	// A kill: the death is announced once, and no warp revives the
	// player or kills it again.
	if killed, err := s.Damage(1, 500, 0); !killed || err != nil {
		t.Fatalf("killing damage: %v, %v", killed, err)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	server.TurnWarpCmds(s, 1, 10)
	if _, err := s.Resimulate(1, 10); err != nil {
		t.Fatal(err)
	}
	st, _, _ := s.PlayerState(1)
	k, _ := s.Client(0)
	v, _ := s.Client(1)
	if !st.Has(game.FlagDead) || st.Health != 0 || k.Kills != 1 || v.Deaths != 1 {
		t.Errorf("after a warp over the kill: dead %v, health %d, kills %d, deaths %d; want dead, 0, 1, 1", st.Has(game.FlagDead), st.Health, k.Kills, v.Deaths)
	}
}

// warpShooter fires every tick, aimed at the other player as drawn.
type warpShooter struct{}

func (warpShooter) Input(now time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Buttons: game.BtnFire}
	if o, ok := c.Remote(1, now); ok {
		d := o.Pos.Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
	}
	return cmd
}

// warpStrafer strafes, so that each late command of its moves it in the
// past.
type warpStrafer struct{}

func (warpStrafer) Input(time.Duration, *client.Client) game.UserCmd {
	return game.UserCmd{Side: 127}
}

// firedLog keeps the shots handed to the game.
type firedLog struct {
	shots []server.FiredShot
	ticks []time.Duration // the server's time at each shot's handover
}

func (*firedLog) Delivered(time.Duration, int, *sim.Player)  {}
func (*firedLog) Ticked(time.Duration, int, *sim.Player)     {}
func (*firedLog) ServerTicked(time.Duration, *server.Server) {}
func (l *firedLog) ServerReady(_ time.Duration, s *server.Server, r *server.Ready) {
	for _, f := range r.Fired {
		l.shots = append(l.shots, f)
		l.ticks = append(l.ticks, s.Time())
	}
}

// warpBig is a bigger body, which warpBodyOf gives a player on every
// other quarter metre of Y: a body that changes as the player moves.
var warpBig lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.8}, Damage: 25}}

func warpBodyOf(_ int, st game.PlayerState) lagcomp.Body {
	if int(math.Floor(st.Pos.Y*4))%2 == 0 {
		return warpCircle
	}
	return warpBig
}

// TestTimeWarpGameShots: under time warp a game's shots are handed over
// at the tick their commands were issued. Over 60 ms each way, every
// command arrives after its tick ran and is inserted there: its shot is
// handed over Warped, with that tick's time as Now and as Target (no
// rewinding on top of the warp), and the bodies TraceAt tests at those
// ticks are where the re-simulations settled the players, the strafing
// target moved by its own late commands, with the body BodyOf gives its
// settled state.
func TestTimeWarpGameShots(t *testing.T) {
	for _, name := range []string{"Body", "BodyOf"} {
		t.Run(name, func(t *testing.T) { warpGameShots(t, name == "BodyOf") })
	}
}

func warpGameShots(t *testing.T, bodyOf bool) {
	link := netem.Config{Latency: 60 * time.Millisecond}
	cfg := server.Config{
		Map: world.Field(), Seed: 5, Policy: lagcomp.Config{Name: "none"}, TimeWarp: 200 * time.Millisecond,
		SpawnProtection: time.Millisecond, GameShots: true, Body: warpCircle,
	}
	if bodyOf {
		cfg.Body, cfg.BodyOf = nil, warpBodyOf
	}
	d, err := sim.NewDriver(cfg, []sim.PlayerConfig{
		{Brain: warpShooter{}, Up: link, Down: link},
		{Brain: warpStrafer{}, Up: link, Down: link},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var log firedLog
	d.Run(2*time.Second, &log)
	warped := 0
	for i, f := range log.shots {
		if !f.Warped {
			continue
		}
		warped++
		if f.Target != f.Now || f.Now >= log.ticks[i] {
			t.Fatalf("warped shot %d: now %v, target %v, handed over at %v", i, f.Now, f.Target, log.ticks[i])
		}
	}
	if warped == 0 || warped < len(log.shots)/2 {
		t.Fatalf("%d of %d shots warped", warped, len(log.shots))
	}
	if st := d.Server.TimeWarpStats(); st.Warps == 0 {
		t.Fatalf("no warps: %+v", st)
	}
	if err := server.WarpBodiesSettled(d.Server); err != nil {
		t.Error(err)
	}
	// The game traces a warped shot at its tick's bodies.
	f := log.shots[len(log.shots)-1]
	p, ok := d.Server.BodyAt(1, f.Target)
	if !ok {
		t.Fatalf("no body of the target at %v", f.Target)
	}
	from := f.State.Pos.Add(geom.V(0, 0, 1))
	to := p.Pos.Add(geom.V(0, 0, 1))
	ray := geom.Ray{Origin: from, Dir: to.Sub(from).Norm()}
	if h, ok := d.Server.TraceAt(ray, 100, f.Target, func(id int) bool { return id == 0 }); !ok || h.ID != 1 {
		t.Errorf("a ray at the target's body at the shot's tick missed: %+v, %v", h, ok)
	}
	t.Logf("%d shots, %d warped; %+v", len(log.shots), warped, d.Server.TimeWarpStats())
}

package server

import (
	"math"
	"testing"
	"time"

	lkclient "github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
	"github.com/lagkit/lagkit/world/worldtest"
)

// shootingRange is a server whose players are placed by hand and stand
// still; player 0 shoots, one command a tick.
type shootingRange struct {
	t       *testing.T
	s       *Server
	cmd     uint32 // the shooter's last command
	records []ShotRecord
}

// newShootingRange places a player at each of pos, all facing +X, in
// free-for-all unless cfg sets a mode.
func newShootingRange(t *testing.T, m *world.Map, cfg Config, pos ...geom.Vec3) *shootingRange {
	t.Helper()
	cfg.Map = m
	if cfg.Rules == nil {
		cfg.Rules = modeRules(mode.Config{Mode: mode.FFA})
	}
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pos {
		id := join(t, s, 0, Peer(i))
		s.Place(id, p, 0)
	}
	s.Ready()
	return &shootingRange{t: t, s: s}
}

// tick sends the shooter's next command with input and runs one tick.
func (r *shootingRange) tick(input game.UserCmd) {
	r.t.Helper()
	r.cmd++
	input.Tick, input.Duration = r.cmd, r.s.TickDuration()
	now := r.s.NextTick()
	sendCmds(r.t, r.s, now, 0, []game.UserCmd{input})
	r.records = append(r.records, r.s.Advance(now).Shots...)
}

// fireOnce fires one shot with aim and returns the server time it was
// fired at (the tick its projectile appeared).
func (r *shootingRange) fireOnce(aim game.UserCmd) time.Duration {
	r.t.Helper()
	aim.Buttons = game.BtnFire
	for range 10 {
		r.tick(aim)
		if len(r.s.Projectiles(nil)) > 0 {
			return r.s.Time()
		}
	}
	r.t.Fatal("no projectile launched")
	return 0
}

// settle runs idle ticks until the projectiles in flight are gone (at
// most limit) and returns the records settled.
func (r *shootingRange) settle(aim game.UserCmd, limit time.Duration) []ShotRecord {
	r.t.Helper()
	end := r.s.Time() + limit
	for len(r.s.Projectiles(nil)) > 0 && r.s.Time() < end {
		r.tick(aim)
	}
	if n := len(r.s.Projectiles(nil)); n > 0 {
		r.t.Fatalf("%d projectiles still in flight after %v", n, limit)
	}
	return r.records
}

func (r *shootingRange) health(id int) int16 {
	info, _ := r.s.Client(id)
	return info.State.Health
}

// testProjectile is a projectile weapon without spread or recoil.
func testProjectile(speed float64) weapon.Weapon {
	return weapon.Weapon{
		Name: "launcher", Kind: weapon.Projectile, FireInterval: time.Second, Magazine: 10,
		ReloadTime: time.Second, Range: 100, Pellets: 1, Speed: speed,
		Damage: [game.NumParts]int16{40, 20, 15, 15},
	}
}

func rocket() weapon.Weapon { return weapon.Defaults()[4] }

// TestProjectileFlightTime: a projectile hits a standing player when it
// has flown to the hitbox, not at once as a hitscan shot would, and deals
// the part's damage (the testbed's projectile pistol).
func TestProjectileFlightTime(t *testing.T) {
	w := testProjectile(20)
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, w), geom.V(0, 0, 0), geom.V(10, 0, 0))
	fired := r.fireOnce(game.UserCmd{})
	target, _ := r.s.Client(1)
	p := r.s.Projectiles(nil)[0]
	h, ok := lagcomp.TraceParts(geom.Ray{Origin: p.Pos, Dir: p.Velocity.Norm()}, 100, target.State, r.s.Config().Movement)
	if !ok {
		t.Fatal("the projectile's line misses the target")
	}
	recs := r.settle(game.UserCmd{}, 2*time.Second)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	rec := recs[0]
	flight := rec.Time - fired
	exact := time.Duration(h.Dist / p.Velocity.Len() * float64(time.Second))
	if flight < exact || flight >= exact+r.s.TickDuration() {
		t.Errorf("hit %v after firing, want the flight time %v (to within a tick later)", flight, exact)
	}
	want := w.Damage[h.Part]
	if !rec.Projectile || rec.Rewound || rec.Victim != 1 || rec.Part != h.Part || !rec.Registered || rec.Damage != want {
		t.Errorf("record %+v, want a registered projectile hit on player 1's %v for %d", rec, h.Part, want)
	}
	if got := r.health(1); got != game.MaxHealth-want {
		t.Errorf("target health %d, want %d", got, game.MaxHealth-want)
	}
	if info, _ := r.s.Client(0); info.Shots != 1 || info.Hits != 1 {
		t.Errorf("shooter counts %d shots, %d hits; want 1 and 1", info.Shots, info.Hits)
	}
}

// TestProjectileStoppedByWall: a wall between shooter and target stops
// the projectile at the wall.
func TestProjectileStoppedByWall(t *testing.T) {
	w := testProjectile(40)
	// The cover map's wall spans x 10 to 10.5, y 0 to 4, 3 m high.
	r := newShootingRange(t, worldtest.Cover(t), armed(Config{}, w), geom.V(0, 2, 0), geom.V(12, 2, 0))
	fired := r.fireOnce(game.UserCmd{})
	recs := r.settle(game.UserCmd{}, 2*time.Second)
	if len(recs) != 1 || recs[0].Victim != -1 || recs[0].Hit || recs[0].Registered {
		t.Fatalf("records %+v, want one miss", recs)
	}
	// It stopped at the wall, 10 m out (0.25 s), not at the target 12 m
	// out.
	if flight := recs[0].Time - fired; flight > 250*time.Millisecond+r.s.TickDuration() {
		t.Errorf("settled %v after firing, beyond the wall's distance", flight)
	}
	if got := r.health(1); got != game.MaxHealth {
		t.Errorf("target behind the wall lost health: %d", got)
	}
}

// TestRocketSplash: a rocket exploding on a wall damages a player near
// the impact through open air, by the falloff with distance, and not one
// just as near behind the wall.
func TestRocketSplash(t *testing.T) {
	w := rocket()
	open, behind := geom.V(8.5, 4.8, 0), geom.V(11.5, 2.5, 0)
	r := newShootingRange(t, worldtest.Cover(t), armed(Config{}, w), geom.V(0, 2, 0), open, behind)
	r.fireOnce(game.UserCmd{})
	recs := r.settle(game.UserCmd{}, 2*time.Second)
	if len(recs) != 1 || recs[0].Victim != -1 || recs[0].Splashed != 1 {
		t.Fatalf("records %+v, want one rocket with no direct hit and one player splashed", recs)
	}
	// Level from the eye along +X, the rocket meets the wall's face at
	// x = 10.
	eye := game.SnapPos(game.EyePos(game.PlayerState{Pos: geom.V(0, 2, 0)}, nil))
	centre := geom.V(10-blastLift, 2, eye.Z)
	torso := game.Hitboxes(game.PlayerState{Pos: open}, nil)[game.PartTorso].Origin
	d := torso.Dist(centre)
	want := int16(math.Round(100 * (1 - d/4)))
	if got := game.MaxHealth - r.health(1); got != want || want <= 0 {
		t.Errorf("player %.2f m from the blast in the open took %d, want %d", d, got, want)
	}
	if got := r.health(2); got != game.MaxHealth {
		t.Errorf("player behind the wall took %d", game.MaxHealth-got)
	}
}

// TestSplashFalloff: splash damage falls off linearly from the centre to
// nothing at the radius, so half the radius takes half the damage.
func TestSplashFalloff(t *testing.T) {
	w := rocket()
	s := testServer(t, Config{})
	st := game.PlayerState{Pos: geom.V(3, 3, 0)}
	torso := game.Hitboxes(st, nil)[game.PartTorso].Origin
	for _, tc := range []struct {
		d    float64
		want int16
	}{{0, 100}, {1, 75}, {2, 50}, {3, 25}, {4, 0}, {5, 0}} {
		if got := s.splash(&Shell{SplashRadius: w.SplashRadius, SplashDamage: w.SplashDamage}, torso.Add(geom.V(0, tc.d, 0)), st); got != tc.want {
			t.Errorf("%v m from the torso: %d damage, want %d", tc.d, got, tc.want)
		}
	}
}

// TestRocketDirectHit: the player a rocket hits takes the larger of the
// direct and the splash damage, not both, and dies of 100; a team mate in
// the way is passed through, as hitscan shots pass through team mates.
func TestRocketDirectHit(t *testing.T) {
	w := rocket()
	// Team deathmatch: players join teams 0, 1, 0, so player 2 is the
	// shooter's team mate, standing in the line of fire.
	r := newShootingRange(t, worldtest.Open(t), armed(Config{Rules: modeRules(mode.Config{Mode: mode.TDM})}, w),
		geom.V(0, 0, 0), geom.V(10, 0, 0), geom.V(5, 0, 0))
	r.fireOnce(game.UserCmd{})
	recs := r.settle(game.UserCmd{}, 2*time.Second)
	if len(recs) != 1 || recs[0].Victim != 1 || recs[0].Damage != 100 || !recs[0].Kill || recs[0].Splashed != 0 {
		t.Fatalf("records %+v, want a direct kill of player 1 for 100", recs)
	}
	if got := r.health(2); got != game.MaxHealth {
		t.Errorf("the team mate in the way took %d", game.MaxHealth-got)
	}
	if info, _ := r.s.Client(0); info.Kills != 1 {
		t.Errorf("shooter has %d kills, want 1", info.Kills)
	}
}

// TestProjectileCap: a client firing as many projectiles as it can never
// gets more than MaxProjectiles in flight, the shots beyond are misses,
// and it is not dropped for the events they would send.
func TestProjectileCap(t *testing.T) {
	w := weapon.Weapon{
		Name: "swarm", Kind: weapon.Projectile, FireInterval: time.Minute / weapon.MaxRPM, Magazine: 255,
		Range: weapon.MaxRange, Pellets: weapon.MaxPellets, Speed: 1, Damage: [game.NumParts]int16{1, 1, 1, 1},
	}
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, w), geom.V(0, 0, 0))
	most := 0
	for range 64 {
		r.tick(game.UserCmd{Buttons: game.BtnFire, Pitch: game.PitchUnits(0.5)})
		most = max(most, len(r.s.Projectiles(nil)))
	}
	if most != MaxProjectiles {
		t.Fatalf("at most %d in flight, want the cap %d", most, MaxProjectiles)
	}
	dropped := r.s.Stats().ProjectilesDropped
	if dropped == 0 || len(r.records) != dropped {
		t.Fatalf("%d dropped, %d records; want every dropped pellet recorded as a miss", dropped, len(r.records))
	}
	if _, ok := r.s.Client(0); !ok {
		t.Fatal("the shooter was dropped")
	}
}

// TestPredictionAcrossWeaponSwitches: a client predicting with the
// server's loadout predicts the server's state exactly, command by
// command, through switches (including to a slot outside the loadout),
// firing, reloads and empty magazines, over a link with latency, so
// that every prediction is replayed during reconciliation.
func TestPredictionAcrossWeaponSwitches(t *testing.T) {
	loadout := weapon.Defaults()
	m := worldtest.Open(t)
	s, err := New(armed(Config{Map: m}, loadout...))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lkclient.New(lkclient.Config{Map: m, Step: weapon.StepFunc(loadout), Game: weapon.Layout})
	if err != nil {
		t.Fatal(err)
	}
	const delay = 6 // ticks each way
	type packet struct {
		at   uint32
		data []byte
	}
	var up, down []packet
	predicted := map[uint32]game.PlayerState{} // by command
	served := map[uint32]game.PlayerState{}
	input := func(n uint32) game.UserCmd {
		cmd := game.UserCmd{Buttons: game.BtnFire, Yaw: uint16(n * 97)}
		switch {
		case n < 60:
		case n < 200:
			cmd.Weapon = 1 // the sniper
		case n < 260:
			cmd.Weapon = 3 // the shotgun
		case n < 300:
			cmd.Weapon = 9 // no such slot: keep the shotgun
		case n < 320:
			cmd.Weapon, cmd.Buttons = 3, game.BtnReload
		case n < 500:
			cmd.Weapon = 4 // the rocket: one round and a reload
		default:
			cmd.Weapon = uint8(n / 40 % 5)
		}
		if n%50 > 40 {
			cmd.Buttons = 0
		}
		return cmd
	}
	// pending holds what the client handed over to send, until the
	// next tick puts it on the way.
	var pending [][]byte
	hold := func(r *lkclient.Ready) {
		for _, d := range r.Messages {
			pending = append(pending, append([]byte(nil), d.Data...))
		}
	}
	c.Connect(0)
	hold(c.Ready())
	var cmds uint32
	for tick := uint32(1); tick <= 900; tick++ {
		now := time.Duration(tick) * s.TickDuration()
		for _, b := range pending {
			up = append(up, packet{tick + delay, b})
		}
		pending = pending[:0]
		for len(up) > 0 && up[0].at <= tick {
			_ = s.Step(now, 1, up[0].data)
			up = up[1:]
		}
		ready := s.Advance(now)
		if info, ok := s.Client(0); ok {
			served[info.LastCmd] = info.State
		}
		for _, d := range ready.Messages {
			down = append(down, packet{tick + delay, append([]byte(nil), d.Data...)})
		}
		for len(down) > 0 && down[0].at <= tick {
			_ = c.Step(now, down[0].data)
			down = down[1:]
		}
		hold(c.Ready())
		if c.Phase() == lkclient.Connected {
			cmds++
			hold(c.Tick(now, input(cmds)))
			predicted[cmds] = c.Predicted()
		}
	}
	compared, switches := 0, 0
	var last uint8
	for n := uint32(2 * delay); n <= cmds; n++ {
		srv, ok := served[n]
		if !ok {
			continue
		}
		pred := predicted[n]
		// Health and spawn protection are the server's alone.
		pred.Health = srv.Health
		pred.Flags = pred.Flags&^game.FlagProtected | srv.Flags&game.FlagProtected
		if pred != srv {
			t.Fatalf("command %d: predicted %+v\nserver has %+v", n, pred, srv)
		}
		if weapon.ArmsOf(&srv).Weapon != last {
			switches++
			last = weapon.ArmsOf(&srv).Weapon
		}
		compared++
	}
	if compared < 700 || switches < 8 {
		t.Fatalf("compared %d commands with %d switches, want a long run with many", compared, switches)
	}
}

// BenchmarkProjectileTick flies MaxProjectiles projectiles one tick on
// the metro map among 64 players: the cost the cap bounds.
func BenchmarkProjectileTick(b *testing.B) {
	m, err := world.Load("metro")
	if err != nil {
		b.Fatal(err)
	}
	w := testProjectile(60)
	w.Damage, w.Range = [game.NumParts]int16{}, weapon.MaxRange
	s, err := New(armed(Config{Map: m, MaxClients: 64}, w))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 64 {
		join(b, s, 0, Peer(i))
	}
	template := make([]projectile, MaxProjectiles)
	for i := range template {
		c := s.clients[i%64]
		yaw := float64(i) * 2.39996 // golden angle: directions all round
		dir := geom.V(math.Cos(yaw), math.Sin(yaw), 0)
		template[i] = projectile{
			id: uint32(i + 1), shooter: c.id, owner: c, shell: Shell{Speed: w.Speed, Range: w.Range, SplashRadius: w.SplashRadius, SplashDamage: w.SplashDamage},
			pos: game.EyePos(c.state, s.cfg.Movement), vel: dir.Scale(60), dir: dir, speed: 60, left: w.Range,
		}
	}
	now := s.NextTick()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.projectiles = append(s.projectiles[:0], template...)
		s.moveProjectiles(now)
		s.Ready()
		for _, c := range s.clients {
			c.events = c.events[:0]
		}
	}
}

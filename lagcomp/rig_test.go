package lagcomp_test

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// rig drives a server through its public API as its clients' network
// would: every tick each player sends one command and acknowledges the
// snapshot it received one round trip ago (so the server measures exactly
// that round trip), and the events reaching each player are decoded.
type rig struct {
	t       testing.TB
	s       *server.Server
	cfg     server.Config
	dt      time.Duration
	players []*player
	records []server.ShotRecord // settled and not yet taken
	fired   []server.FiredShot  // a game's shots, of the last tick (keeper)
}

// player is one scripted client.
type player struct {
	peer   server.Peer
	id     int
	joined uint32        // the server tick it joined at
	rtt    time.Duration // the round trip its acknowledgements show
	interp time.Duration // the interpolation delay it declared
	// cmd is the command it sends every tick; tick fills in Tick, Duration
	// and ViewTime.
	cmd  game.UserCmd
	next uint32
	// view, when set, gives the view time its commands claim at server
	// time now; otherwise they claim the honest now - rtt - interp.
	view func(now time.Duration) time.Duration

	snaps     [64]wire.Snapshot // delta baselines by tick
	scratch   wire.Snapshot
	nextEvent uint32
	hits      []wire.HitEvent
	confirms  []wire.ConfirmEvent
	verdicts  []wire.VerdictEvent
}

// laser returns the study's rifle without spread or recoil and with a
// magazine that does not run dry, so that a test's shots go exactly where
// they are aimed.
func laser() *weapon.Weapon {
	w := weapon.Rifle()
	w.Spread, w.SpreadGrowth, w.SpreadMax, w.Recoil, w.RecoilMax = 0, 0, 0, 0, 0
	w.Magazine = 255
	return &w
}

// newRig starts a server with cfg, by default a free-for-all (everyone
// can hit everyone) on the cover test map with the laser.
func newRig(t testing.TB, cfg server.Config, loadout ...weapon.Weapon) *rig {
	t.Helper()
	if cfg.Rules == nil {
		cfg.Rules = shooter.Rules(mode.Config{Mode: mode.FFA})
	}
	if cfg.Map == nil {
		cfg.Map = worldtest.Cover(t)
	}
	if len(loadout) == 0 {
		loadout = []weapon.Weapon{*laser()}
	}
	if cfg.Movement == nil {
		p := game.DefaultParams()
		cfg.Movement = &p
	}
	if err := shooter.Arm(&cfg, loadout); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, s: s, cfg: cfg, dt: s.TickDuration()}
}

// join connects a player whose round trip is rtt and whose interpolation
// delay is interp.
func (m *rig) join(rtt, interp time.Duration) *player {
	m.t.Helper()
	p := &player{peer: server.Peer(100 + len(m.players)), rtt: rtt, interp: interp, next: 1, nextEvent: 1, joined: m.s.Tick()}
	// The handshake: a Connect, the server's Challenge, the Connect again
	// with its token, the Accept.
	c := wire.Connect{Version: wire.Version, Name: "p", InterpDelay: interp, Game: m.cfg.Game.Hash()}
	var out []server.Datagram
	for range 2 {
		b, err := wire.AppendConnect(nil, &c)
		if err != nil {
			m.t.Fatal(err)
		}
		if err := m.s.Step(m.s.Time(), p.peer, b); err != nil {
			m.t.Fatal(err)
		}
		var ch wire.Challenge
		if out = m.s.Ready().Messages; len(out) == 1 && wire.DecodeChallenge(out[0].Data, &ch) == nil {
			c.Token = ch.Token
		}
	}
	var a wire.Accept
	if len(out) != 1 || wire.DecodeAccept(out[0].Data, &a) != nil {
		m.t.Fatalf("join: no accept in %d datagrams", len(out))
	}
	p.id = int(a.ClientID)
	m.players = append(m.players, p)
	return p
}

// place moves p to pos facing yaw (radians), still and upright.
func (m *rig) place(p *player, pos geom.Vec3, yaw float64) {
	m.s.Place(p.id, pos, yaw)
	p.cmd = game.UserCmd{Yaw: game.YawUnits(yaw)}
}

// walk makes p walk (or sprint) along yaw from now on.
func (m *rig) walk(p *player, yaw float64, buttons game.Buttons) {
	p.cmd.Yaw, p.cmd.Forward, p.cmd.Buttons = game.YawUnits(yaw), 127, buttons
}

// tick sends every player's command and acknowledgement and runs one
// server tick.
func (m *rig) tick() {
	m.t.Helper()
	now := m.s.NextTick()
	for _, p := range m.players {
		cmd := p.cmd
		cmd.Tick, cmd.Duration, cmd.ViewTime = p.next, m.dt, max(0, now-p.rtt-p.interp)
		if p.view != nil {
			cmd.ViewTime = p.view(now)
		}
		p.next++
		msg := wire.Commands{ClientTime: now, Cmds: []game.UserCmd{cmd}}
		// The snapshot of tick k left at k*dt; acknowledging it now, held
		// for the remainder (at most a tick, as a client holds it),
		// makes the server's sample exactly rtt.
		if seen := now - p.rtt; seen >= 0 {
			k := min(uint32(seen/m.dt), m.s.Tick())
			if k > p.joined {
				msg.AckTick, msg.AckDelay = k, seen-time.Duration(k)*m.dt
			}
		}
		b, err := wire.AppendCommands(nil, &msg)
		if err != nil {
			m.t.Fatal(err)
		}
		if err := m.s.Step(now, p.peer, b); err != nil {
			m.t.Fatal(err)
		}
	}
	r := m.s.Advance(now)
	for _, d := range r.Messages {
		for _, p := range m.players {
			if p.peer == d.To {
				m.receive(p, d.Data)
			}
		}
	}
	m.records = append(m.records, r.Shots...)
	m.fired = m.fired[:0]
	if k, ok := m.cfg.Shots.(*keeper); ok {
		m.fired = append(m.fired, k.shots...)
		k.shots = k.shots[:0]
	}
}

// keeper is a game's shot resolution that registers no hit: it keeps
// each shot it is handed, for a test to trace at the times it chooses.
type keeper struct{ shots []server.FiredShot }

func (k *keeper) Fire(w *server.ShotWorld) { k.shots = append(k.shots, w.Shot) }

// receive decodes a snapshot to p and collects the events it has not
// seen.
func (m *rig) receive(p *player, data []byte) {
	m.t.Helper()
	sn := &p.scratch
	sn.SetGame(m.cfg.Game)
	err := wire.DecodeSnapshot(data, sn, func(tick uint32) *wire.Snapshot {
		if b := &p.snaps[tick%64]; b.Tick == tick {
			return b
		}
		return nil
	})
	if err != nil {
		m.t.Fatalf("player %d: %v", p.id, err)
	}
	for _, ev := range sn.Events {
		if ev.Seq < p.nextEvent {
			continue // lossless: every event arrives in order the first time
		}
		p.nextEvent = ev.Seq + 1
		var err error
		switch ev.Kind {
		case wire.EventHit:
			var h wire.HitEvent
			err = wire.DecodeHitEvent(ev.Data, &h)
			p.hits = append(p.hits, h)
		case wire.EventConfirm:
			var c wire.ConfirmEvent
			err = wire.DecodeConfirmEvent(ev.Data, &c)
			p.confirms = append(p.confirms, c)
		case wire.EventVerdict:
			var v wire.VerdictEvent
			err = wire.DecodeVerdictEvent(ev.Data, &v)
			p.verdicts = append(p.verdicts, v)
		}
		if err != nil {
			m.t.Fatalf("player %d: event %d: %v", p.id, ev.Kind, err)
		}
	}
	p.snaps[sn.Tick%64] = *sn
	p.snaps[sn.Tick%64].Events = nil // they alias the datagram
}

// run runs the server for d.
func (m *rig) run(d time.Duration) {
	m.t.Helper()
	for end := m.s.Time() + d; m.s.Time() < end; {
		m.tick()
	}
}

// state returns p's authoritative state.
func (m *rig) state(p *player) game.PlayerState {
	info, ok := m.s.Client(p.id)
	if !ok {
		m.t.Fatalf("player %d is gone", p.id)
	}
	return info.State
}

// next returns p's state after the server executes its next command, by
// the same shared movement code.
func (m *rig) next(p *player) game.PlayerState {
	cmd := p.cmd
	cmd.Duration = m.dt
	st, _ := m.cfg.Step(m.state(p), cmd, &game.StepCtx{Grid: m.cfg.Map.Grid, Params: m.cfg.Movement})
	return st
}

// past returns p's recorded pose rewound to server time t.
func (m *rig) past(p *player, t time.Duration) game.PlayerState {
	m.t.Helper()
	st, ok := m.s.History().At(p.id, t)
	if !ok {
		m.t.Fatalf("no pose of player %d at %v", p.id, t)
	}
	return st
}

// part returns the centre of body part k of a player in state st.
func (m *rig) part(st game.PlayerState, k game.PartKind) geom.Vec3 {
	return game.Hitboxes(st, m.cfg.Movement)[k].Origin
}

// aim turns p, from the next tick on, towards point from where its eye
// will be after that tick's movement.
func (m *rig) aim(p *player, point geom.Vec3) {
	// The view angles steer movement too: settle them by iteration.
	for range 3 {
		d := point.Sub(game.EyePos(m.next(p), m.cfg.Movement))
		p.cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		p.cmd.Pitch = game.PitchUnits(math.Atan2(d.Z, math.Hypot(d.X, d.Y)))
	}
}

// fire makes p fire one shot at point during the next tick and returns
// the records settled in that tick. Shots less than the weapon's fire
// interval apart do not fire.
func (m *rig) fire(p *player, point geom.Vec3) []server.ShotRecord {
	m.t.Helper()
	m.aim(p, point)
	p.cmd.Buttons |= game.BtnFire
	m.tick()
	p.cmd.Buttons &^= game.BtnFire
	return m.take()
}

// take returns the records settled since the last take.
func (m *rig) take() []server.ShotRecord {
	out := m.records
	m.records = nil
	return out
}

// only returns the single record in recs.
func only(t testing.TB, recs []server.ShotRecord) server.ShotRecord {
	t.Helper()
	if len(recs) != 1 {
		t.Fatalf("%d shot records, want 1: %+v", len(recs), recs)
	}
	return recs[0]
}

// answer sends p's answer to a provisional hit now.
func (m *rig) answer(p *player, a wire.Appeal) {
	m.t.Helper()
	b, err := wire.AppendAppeal(nil, &a)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := m.s.Step(m.s.Time(), p.peer, b); err != nil {
		m.t.Fatal(err)
	}
}

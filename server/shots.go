package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// ShotRecord is the server's account of one shot (one pellet): who fired
// at whom, how the policy treated it, and what became of it. The victim's
// own view of the hit (was it behind cover when it arrived) and the time
// until the shooter heard of it are measured on the clients.
type ShotRecord struct {
	// Time is the server time the shot was resolved.
	Time     time.Duration
	Shooter  int
	ShotTick uint32 // the shooter's command
	Pellet   int
	// Victim is the player hit, -1 for a miss.
	Victim int
	Part   game.PartKind
	Policy string
	// Hit reports whether the policy's test (rewound if it rewinds) hit a
	// player; Registered whether damage was applied.
	Hit, Registered bool
	// Rewound reports whether the test ran in the past; RewindMS is how
	// far back, RollbackM how far the victim's tested position lay from
	// its current one along the ground: how far the victim was moved
	// back, in the terms of the study's bound RTT x running speed
	// (vertical motion, a jump or a fall, is left out).
	Rewound   bool
	RewindMS  float64
	RollbackM float64
	// Tested is the server time the hit test ran at (Time when not
	// rewound), and Yaw and Pitch the aim it traced (before recoil and
	// spread): a fire press's when the command carried one (sub-tick
	// input), else the command's.
	Tested time.Duration
	Yaw    uint16
	Pitch  int16
	// Eye is where a hitscan shot left from (the shooter's eye as its
	// commands put it, at the fire press when there was one) and
	// ViewTime the server time its command or press claimed the client
	// was showing: the shot as the client sent it. Both are zero for a
	// projectile's record.
	Eye      geom.Vec3
	ViewTime time.Duration
	// ClientShown is the shooter's client's own verdict on the shot (all
	// its pellets: did any meet an enemy as that client drew them),
	// carried by the command: unknown for a projectile, or from a client
	// that sent none.
	ClientShown game.Shown
	// Appealed reports whether the victim was asked (alc); Outcome is
	// what became of the hit.
	Appealed bool
	Outcome  wire.Outcome
	Damage   int16
	Kill     bool
	// Weapon is the shooter's loadout slot. Projectile reports a shot of
	// a projectile weapon, settled when the projectile hit or expired
	// (never rewound); Splashed counts the players other than Victim its
	// explosion damaged.
	Weapon     uint8
	Projectile bool
	Splashed   int
	// Scale is the factor attribute scaling scaled the hitboxes by for
	// the shot (0: not scaled), and Scaled reports a hit found only on
	// the scaled hitboxes.
	Scale  float64
	Scaled bool
	// Assisted reports a hit aim assistance found after the shot missed.
	Assisted bool
	// ServerSBC reports, for a registered hit, whether its victim stood
	// behind cover from the shooter's eye at the server's present when
	// the hit was settled: the server's own approximation of a shot
	// behind cover, tested on its state of the victim, not on the pose
	// the victim's client drew (Sight).
	ServerSBC bool
	// Told reports a hit its victim's client was told of (a
	// wire.HitEvent): the record comes again, once, in Ready.Sightings,
	// with Sight set to that client's judgment of it.
	Told bool
	// Sight is the victim's client's judgment of the hit: set only in
	// the records of Ready.Sightings (zero in Ready.Shots).
	Sight Sight
	// Entity is the slot of the game entity a game's shot hit
	// (ShotWorld.Hit; Victim is then -1), 0 for none: entity slots lie
	// above the players'.
	Entity int
	// Warped reports a record made by a time warp's re-simulation, at
	// the shot's own tick (Time): the first judgement of a late command's
	// shot, or a new judgement of one recorded before whose outcome the
	// re-simulation changed. A shot's newest record is its outcome.
	Warped bool
}

// pendingShot is a shot fired during a tick's command execution, resolved
// once every player's pose for the tick is recorded.
type pendingShot struct {
	shooter int
	cmd     game.UserCmd
	state   game.PlayerState // the shooter's state after the command
	eye     geom.Vec3        // the shooter's eye when it fired (see shotEye)
	weapon  uint8            // what fired, and whether hitscan alone (Armoury)
	hitscan bool
}

// firedShot returns the shot command cmd of shooter fired, leaving it
// in state st, from eye: with its weapon as the resolver names it.
func (s *Server) firedShot(shooter int, cmd game.UserCmd, st game.PlayerState, eye geom.Vec3) pendingShot {
	ps := pendingShot{shooter: shooter, cmd: cmd, state: st, eye: eye}
	if a, ok := s.cfg.Shots.(Armoury); ok {
		// The resolver is handed the server's copy: a pointer to the
		// caller's would move it to the heap at every command.
		s.armState = st
		ps.weapon, ps.hitscan = a.Weapon(&s.armState)
	}
	return ps
}

// shotEye returns where a shot of command cmd leaves from: the eye of
// the shooter's state after the command, or with a fire press within the
// command, the eye its client drew at the press (see game.PressEye),
// before and after being its states around the command.
func (s *Server) shotEye(before, after game.PlayerState, cmd game.UserCmd) geom.Vec3 {
	return game.PressEye(before, after, cmd, s.cfg.Movement)
}

// targetTime is the server time a shot from c is tested at: the view
// time its command carries if that lies within ViewTimeTolerance of the
// server's estimate (now minus the measured round trip, the client's
// interpolation delay and the time delay its snapshots are held by),
// else the estimate; never older than MaxUnlag.
func (s *Server) targetTime(c *client, view, now time.Duration) time.Duration {
	est := now - c.rtt.Smoothed() - c.interpDelay - s.delay.SnapshotHold(c.id)
	t := view
	if d := view - est; view <= 0 || view > now || d > s.cfg.ViewTimeTolerance || d < -s.cfg.ViewTimeTolerance {
		t = est
	}
	return max(t, now-s.cfg.MaxUnlag, 0)
}

// hittable reports whether the shooter can hit player id now: alive,
// not spawn protected, and an enemy (no friendly fire: shots pass through
// team mates).
func (s *Server) hittable(shooter, id int) bool {
	c, sh := s.clients[id], s.clients[shooter]
	return c != nil && !c.state.Has(game.FlagDead) && !c.state.Has(game.FlagProtected) &&
		(sh == nil || s.rules.Enemies(sh.id, sh.team, c.id, c.team))
}

// resolveShots resolves the shots fired this tick, in the order fired,
// through the game's resolver (Config.Shots; lagkit's weapons by
// default): the one path every game's shots take (resolve.go).
func (s *Server) resolveShots(now time.Duration) {
	w := &s.shotWorld
	for i := range s.shots {
		ps := &s.shots[i]
		c := s.clients[ps.shooter]
		if c != nil && s.deferShot(c, ps) {
			continue // judged at its issue tick by the next tick's warp
		}
		if c == nil || c.state.Has(game.FlagDead) {
			s.recorder.shot(ps, true)
			continue // killed earlier this tick: no kill trading through lag
		}
		s.recorder.shot(ps, false)
		if ps.cmd.HasPress {
			c.pressShots++
		}
		w.begin(s, now, c, ps)
		s.cfg.Shots.Fire(w)
		w.end()
	}
	s.shots = s.shots[:0]
}

// wallReach returns how far along ray a shot traced up to maxDist can
// meet a player: maxDist, cut short by the first box on the ray.
func (s *Server) wallReach(ray geom.Ray, maxDist float64) float64 {
	if wall, hit := s.cfg.Map.Grid.Raycast(ray, maxDist); hit {
		return wall.Dist
	}
	return maxDist
}

// pelletRecord starts the record of pellet of hitscan shot ps, resolved
// at now and tested then unless it is rewound: the shooter, its command,
// the aim it traced and its weapon. Every traced pellet's record starts
// here (ShotWorld.Trace).
func (s *Server) pelletRecord(now time.Duration, ps *pendingShot, pellet int) ShotRecord {
	rec := s.shotRecord(now, ps.shooter, ps.cmd.Tick, pellet, ps.weapon)
	aim := ps.cmd.Aimed()
	rec.Yaw, rec.Pitch, rec.Tested = aim.Yaw, aim.Pitch, now
	rec.Eye, rec.ViewTime, rec.ClientShown = ps.eye, aim.ViewTime, ps.cmd.Shown
	return rec
}

// settled completes rec, the record of a pellet that hit (Hit, Victim
// and Part set), as outcome (with damage applied, registered: the
// damage dealt and whether it killed), and emits it.
func (s *Server) settled(rec *ShotRecord, outcome wire.Outcome, registered bool, damage int16, kill bool) {
	rec.Outcome = outcome
	if registered {
		rec.Registered, rec.Damage, rec.Kill = true, damage, kill
	}
	s.emit(rec)
}

// emit completes a shot's record: it hands it over (Ready.Shots) and, for a
// hit, tests the server's present for cover (ServerSBC), ties it to its
// victim's judgment (sighting.go) and keeps it as its victim's latest for
// the victim's reports. Every
// record ends here, a hitscan pellet's or a projectile's, made by the
// live tick or by a time warp's re-simulation.
func (s *Server) emit(rec *ShotRecord) {
	if rec.Registered {
		rec.ServerSBC = s.coverNow(rec)
	}
	s.joinSight(rec)
	s.noteHit(rec)
	s.ready.cur.Shots = append(s.ready.cur.Shots, *rec)
}

// hitInfo is a hit on its way to being applied or appealed.
type hitInfo struct {
	shooter, victim int
	shotTick        uint32
	part            game.PartKind
	local, eye      geom.Vec3
	damage          int16
	tested          tested
	// impact is where the hit met the victim in the world (the blast's
	// centre for splash), for the rewind view.
	impact geom.Vec3
	// onBody marks a hit on a game's body (ShotWorld.Hit): local is in
	// the body's frame, not in a humanoid part's.
	onBody bool
}

// apply settles a hit: with damage it takes health (perhaps killing), and
// tells the victim (unless it already heard through its appeal), the
// shooter and, for a kill, everyone. It completes and emits the record.
func (s *Server) apply(now time.Duration, h *hitInfo, rec *ShotRecord, outcome wire.Outcome, damage bool) {
	v, sh := s.clients[h.victim], s.clients[h.shooter]
	if damage && (v == nil || !s.hittable(h.shooter, h.victim)) {
		damage = false // the victim died, left or respawned meanwhile
	}
	var dealt int16
	kill := false
	if damage {
		dealt = h.damage
		kill = s.hurt(now, h, !rec.Appealed)
		if k := s.ready.cur.Kills; kill && len(k) > 0 {
			k[len(k)-1].Weapon = int(rec.Weapon) // hurt's kill, by this shot
		}
		if sh != nil {
			sh.hitsLanded++
		}
	}
	if sh != nil {
		s.confirm(sh, h, dealt, outcome)
	}
	s.showRewind(h, outcome)
	s.settled(rec, outcome, damage, dealt, kill)
}

// hurt takes h's damage from its victim, which must be connected, and
// kills it at no health; tell sends the victim the HitEvent. It reports
// whether the hit killed.
func (s *Server) hurt(now time.Duration, h *hitInfo, tell bool) bool {
	v := s.clients[h.victim]
	v.hitsTaken++
	if tell {
		s.sendHit(v, h, 0, 0)
	}
	v.state.Health -= s.lost(v.id, &v.state, h.damage)
	kill := v.state.Health <= 0
	s.recorder.dealt(h, kill)
	if kill {
		s.kill(now, h.shooter, h.victim)
	}
	return kill
}

// lost returns the health the victim in slot id, in state st, loses to
// a hit of damage: all of it, or what the game's Absorber leaves of it,
// with st as Absorb changed it kept sendable. A time warp re-simulation
// takes its hits through it too, from the re-simulated states.
func (s *Server) lost(id int, st *game.PlayerState, damage int16) int16 {
	if s.absorber == nil || damage <= 0 {
		// No hit to absorb: a re-simulation's replayed damage (Damage)
		// took its health already and is dealt here with none.
		return damage
	}
	d := max(0, min(damage, s.absorber.Absorb(id, st, damage)))
	s.cfg.Game.Snap(&st.Game)
	return d
}

// confirm tells shooter sh what became of hit h: damage dealt and outcome.
func (s *Server) confirm(sh *client, h *hitInfo, damage int16, outcome wire.Outcome) {
	ev := wire.ConfirmEvent{ShotTick: h.shotTick, Victim: uint8(h.victim), Part: h.part, Damage: damage, Outcome: outcome, Parts: s.cfg.Shape.Parts}
	if data, err := wire.AppendConfirmEvent(nil, &ev); err == nil {
		s.sendEvent(sh, wire.EventConfirm, data)
	}
}

// sendHit tells the victim of a hit; appeal is non-zero for a provisional
// hit it may answer before deadline.
func (s *Server) sendHit(v *client, h *hitInfo, appeal uint32, deadline time.Duration) {
	if data, err := s.hitEvent(h, appeal, deadline); err == nil {
		s.sendHitEvent(v, h, data)
	}
}

// hitEvent returns the HitEvent data of hit h, or an error for a hit no
// HitEvent can carry: a spot on a game's body beyond wire.MaxBodyLocal
// (a body of BodyOf reaching further).
func (s *Server) hitEvent(h *hitInfo, appeal uint32, deadline time.Duration) ([]byte, error) {
	ev := wire.HitEvent{
		Shooter: uint8(h.shooter), ShotTick: h.shotTick, Part: h.part, Damage: h.damage,
		Local: h.local, ShooterEye: h.eye, Appeal: appeal, Deadline: deadline, Parts: s.cfg.Shape.Parts, OnBody: h.onBody,
	}
	return wire.AppendHitEvent(nil, &ev)
}

// sendHitEvent sends the victim of hit h its HitEvent data.
func (s *Server) sendHitEvent(v *client, h *hitInfo, data []byte) {
	s.sendEvent(v, wire.EventHit, data)
	s.awaitSight(v, h)
}

// kill marks victim dead, schedules its respawn and tells everyone.
func (s *Server) kill(now time.Duration, killer, victim int) {
	v := s.clients[victim]
	s.died(victim, &v.state)
	v.respawnAt = now + s.cfg.RespawnDelay
	v.deaths++
	killerTeam := v.team
	if k := s.clients[killer]; k != nil && killer != victim {
		k.kills++
		killerTeam = k.team
	}
	play := now - s.PausedFor()
	s.rules.Kill(play, killer, killerTeam, victim, v.team)
	s.rules.Died(play, victim, v.state.Pos)
	s.record(LogEntry{Kind: "kill", Player: killer, Other: victim, Team: killerTeam, Pos: v.state.Pos})
	s.ready.cur.Kills = append(s.ready.cur.Kills, Kill{
		Time: now, Killer: killer, Victim: victim, KillerTeam: killerTeam, VictimTeam: v.team, Weapon: -1, Pos: v.state.Pos,
	})
	ev := wire.KillEvent{Killer: uint8(killer), Victim: uint8(victim)}
	if data, err := wire.AppendKillEvent(nil, &ev); err == nil {
		for _, c := range s.clients {
			if c != nil {
				s.sendEvent(c, wire.EventKill, data)
			}
		}
	}
}

// lifecycle respawns the dead whose delay is over and ends spawn
// protection that has run out.
func (s *Server) lifecycle(now time.Duration) {
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		if c.state.Has(game.FlagDead) && now >= c.respawnAt {
			s.spawn(c, c.state.Teleport, now)
			s.record(LogEntry{Kind: "spawn", Player: c.id, Team: c.team, Pos: c.state.Pos})
		}
		if c.state.Has(game.FlagProtected) && now >= c.protectedUntil {
			c.state.Flags &^= game.FlagProtected
		}
	}
}

// died marks player id, in state st, dead (no health, game.FlagDead)
// and runs the game's death rule (Config.Died): a kill, live or in time
// warp's re-simulation.
func (s *Server) died(id int, st *game.PlayerState) {
	st.Health = 0
	st.Flags |= game.FlagDead
	if s.cfg.Died != nil {
		s.cfg.Died(id, st)
	}
}

package study

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/peek"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
)

// PathRate is how often the simulation driver records each living
// player's position, per second: 20 Hz, lagkit match's default, which
// lagkit trend reads as well as its own path files.
const PathRate = 20

// Simulation is the simulation driver: every seat is played by a bot
// through the real client over an emulated link (package match), on a
// virtual clock, faster than real time. A round under one seed gives the
// same records bit for bit.
//
// A round's warm-up and countdown are played and not recorded: the bots
// press ready at once, and the simulation lets them keep playing through
// the 3 s countdown, where a live round would hold them still. A
// cancelled context stops the study between rounds: a round under way
// plays to its end (a 10-minute round of 12 bots takes some 10 s).
type Simulation struct {
	// BotPolicy, when set before Play, makes the bots in the seats
	// (match.Config.BotPolicy): bot i from its seed under the round's;
	// nil is lagkit's shooter bot with the round's skill.
	BotPolicy bot.Maker
	clock     time.Time
	// synthetic has the bots answer the questionnaires from the
	// schedule's models, drawn under syntheticSeed (SyntheticAnswers).
	synthetic     bool
	syntheticSeed uint64
}

// NewSimulation returns a simulation driver whose virtual clock starts at
// start.
func NewSimulation(start time.Time) *Simulation { return &Simulation{clock: start} }

// Simulated reports true.
func (*Simulation) Simulated() bool { return true }

// Now reads the virtual clock.
func (d *Simulation) Now() time.Time { return d.clock }

// Wait moves the virtual clock on by t.
func (d *Simulation) Wait(ctx context.Context, t time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.clock = d.clock.Add(t)
	return nil
}

// Play plays round p with a bot in every seat.
func (d *Simulation) Play(ctx context.Context, p *Plan, seats []Seat, seed uint64, start func(at time.Time, teams []int), out record.Sink) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	cfg, err := simConfig(p, seats, seed)
	if err != nil {
		return time.Time{}, err
	}
	var paths bytes.Buffer
	cfg.Paths, cfg.PathRate, cfg.PathLooks = &paths, PathRate, true
	cfg.NetCheck, cfg.NetCheckFrom = true, p.LeadIn()
	cfg.Duels = true // the round's duels records
	cfg.BotPolicy = d.BotPolicy
	res, err := match.Run(cfg, nil)
	if err != nil {
		return time.Time{}, err
	}
	samples, err := reckoning.ReadPaths("paths", &paths)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading back the paths: %w", err)
	}
	if len(res.Looks) != len(samples) {
		return time.Time{}, fmt.Errorf("reading back the paths: %d samples, %d looks", len(samples), len(res.Looks))
	}
	joined := d.clock
	begin := joined.Add(p.LeadIn())
	end := begin.Add(p.Duration)
	// Seat i is the match's player i, whose server id is the order it
	// connected in.
	seats = seats[:len(res.Players)]
	bySeat, teams := map[int]int{}, make([]int, len(res.Players))
	for i, pr := range res.Players {
		bySeat[pr.ID], teams[i] = i, pr.Team
	}
	start(begin, teams)
	seat := func(id int) int {
		if s, ok := bySeat[id]; ok {
			return s
		}
		return -1
	}
	recs := simRecords(p, res, samples, seat)
	for _, e := range res.Log {
		if e.Kind == "connect" {
			out.Put(record.Session{Round: p.Index, Seat: seat(e.Player), Kind: record.Connect, Transport: "sim", At: joined.Add(e.Time)})
		}
	}
	for _, r := range recs {
		out.Put(r.rec)
	}
	for i, pr := range res.Players {
		n, l := pr.Net, p.Links[i]
		out.Put(record.Network{Round: p.Index, Seat: seats[i].Index, LatencyMS: l.LatencyMS, JitterMS: l.JitterMS, Loss: l.Loss, TargetRTTMS: l.TargetRTTMS,
			RTTMeanMS: n.Server.Mean, RTTP50MS: n.Server.P50, RTTP95MS: n.Server.P95, RTTJitterMS: n.Server.Jitter, RTTSamples: n.Server.N,
			ClientRTTMeanMS: n.Client.Mean, ClientRTTJitterMS: n.Client.Jitter, ClientSamples: n.Client.N,
			LossUp: n.Up.Loss(), LossDown: n.Down.Loss(), DelayUpMS: n.Up.MeanDelayMS(), DelayDownMS: n.Down.MeanDelayMS()})
	}
	for _, s := range seats {
		out.Put(record.Session{Round: p.Index, Seat: s.Index, Kind: record.Disconnect, Reason: "round over", Transport: "sim", At: end})
	}
	d.clock = end
	return end, nil
}

// Validate checks that a run of s can play every round: simulated (bots
// in every seat on the simulation driver, which gives every seat of a
// round one jitter and loss) or live. Run calls it before it stores
// anything, lagkit study check and study run call it before they open
// anything, so that a schedule check passes is one run plays.
func (s *Schedule) Validate(simulated bool) error {
	for _, p := range s.plans {
		var mc match.Config
		var err error
		if simulated {
			mc, err = simConfig(p, s.seats, 0)
		} else {
			mc, err = p.MatchConfig(len(s.seats), 0)
		}
		if err == nil {
			_, err = mc.Weapons()
		}
		if err != nil {
			return fmt.Errorf("round %d (%s): %w", p.Index+1, p.Name, err)
		}
	}
	return nil
}

// simConfig returns the match that plays round p: player i holds seat
// i.
func simConfig(p *Plan, seats []Seat, seed uint64) (match.Config, error) {
	first := p.Links[0]
	latency := make(map[int]float64, len(seats))
	for i, l := range p.Links {
		if l.JitterMS != first.JitterMS || l.Loss != first.Loss {
			return match.Config{}, fmt.Errorf("the simulation driver gives every seat of a round one jitter and loss, "+
				"but seat 0 has %v ms and %v and seat %d %v ms and %v (a live run injects each seat's own)", first.JitterMS, first.Loss, i, l.JitterMS, l.Loss)
		}
		latency[i] = l.RTTMS() // the simulation's links add nothing of their own: a target is injected whole
	}
	cfg, err := p.MatchConfig(len(seats), seed)
	if err != nil {
		return match.Config{}, err
	}
	cfg.Latency, cfg.JitterMS, cfg.Loss = latency, first.JitterMS, first.Loss
	return cfg, nil
}

// MatchConfig returns the match that plays round p with seats players,
// its bots under seed: the map, mode, loadout and technique, lasting the
// lead-in and the measured part. The links are the driver's to set
// (Plan.Links).
func (p *Plan) MatchConfig(seats int, seed uint64) (match.Config, error) {
	t := p.Technique
	rep, err := server.ThresholdReplication(t.Replication, p.MapPath)
	if err != nil {
		return match.Config{}, err
	}
	return match.Config{
		Map: p.MapPath, Mode: p.Mode, Bots: seats, Duration: p.LeadIn() + p.Duration, Seed: seed,
		Policy: t.Policy, Skill: p.BotSkill,
		WeaponsFile: p.WeaponsFile, Loadout: p.Weapons, Replication: rep, Delay: t.delayConfig(),
		TimeWarp: time.Duration(t.TimeWarp), Display: t.display(), PredictionOff: t.PredictionOff(), Scaling: t.Scaling,
		AimAssist: t.AimAssist,
	}, nil
}

// timed is a record with the match time it happened at.
type timed struct {
	at  time.Duration
	rec record.Record
}

// simRecords turns a match's shots, log and paths into the round's
// records in match time order, leaving out the lead-in and counting At
// from the measured part's start.
func simRecords(p *Plan, res *match.Result, samples []reckoning.Sample, seat func(int) int) []timed {
	lead := p.LeadIn()
	var recs []timed
	// A time warp judges a late shot again at its own tick: a shot's
	// newest record is its outcome.
	type shotKey struct {
		shooter  int
		shotTick uint32
		pellet   int
	}
	newest := map[shotKey]int{}
	for i, s := range res.Shots {
		newest[shotKey{s.Shooter, s.ShotTick, s.Pellet}] = i
	}
	type killKey struct {
		at             time.Duration
		killer, victim int
	}
	killWeapon := map[killKey]uint8{}
	for i, s := range res.Shots {
		if newest[shotKey{s.Shooter, s.ShotTick, s.Pellet}] != i || s.Time < lead {
			continue
		}
		victim := -1
		part := ""
		if s.Victim >= 0 {
			victim, part = seat(s.Victim), s.Part.String()
		}
		appeal := ""
		if s.Appealed {
			appeal = s.Outcome.String()
		}
		if s.Kill {
			killWeapon[killKey{s.Time, s.Shooter, s.Victim}] = s.Weapon
		}
		rec := record.Shot{
			Round: p.Index, At: s.Time - lead, Shooter: seat(s.Shooter), ShotTick: s.ShotTick, Victim: victim,
			Weapon: s.Weapon, Part: part, Policy: s.Policy, Hit: s.Hit, Registered: s.Registered, Damage: int(s.Damage),
			RewindMS: s.RewindMS, RollbackM: s.RollbackM, Appeal: appeal, Kill: s.Kill,
			// The victim's client's judgment as the server received it,
			// the measure a live study stores (realtime), beside the
			// server's present-time test.
			ObjectiveSBC: s.Sight.SBC, SBCKnown: s.Sight.Known, ServerSBC: s.ServerSBC,
		}
		if !s.Projectile {
			rec.EyeX, rec.EyeY, rec.EyeZ = s.Eye.X, s.Eye.Y, s.Eye.Z
			rec.AimYawDeg, rec.AimPitchDeg = game.AngleToDeg(int32(s.Yaw)), game.AngleToDeg(int32(s.Pitch))
			rec.ViewAt = s.ViewTime - lead
			rec.ClientVerdict = s.ClientShown.String()
		}
		recs = append(recs, timed{s.Time, rec})
	}
	for _, e := range res.Log {
		if e.Time < lead {
			continue
		}
		switch {
		case e.Kind == "kill":
			recs = append(recs, timed{e.Time, record.Kill{Round: p.Index, At: e.Time - lead, Killer: seat(e.Player),
				Victim: seat(e.Other), Weapon: killWeapon[killKey{e.Time, e.Player, e.Other}]}})
		case objectiveKind(e):
			for _, who := range e.Doers() {
				recs = append(recs, timed{e.Time, record.Objective{Round: p.Index, At: e.Time - lead, Seat: seat(who),
					Team: e.Team, Kind: e.Kind}})
			}
		}
	}
	for _, d := range res.DuelList {
		if d.Start < lead {
			continue
		}
		recs = append(recs, timed{d.Start, duelRecord(p.Index, d, lead, seat)})
	}
	for i, s := range samples {
		if s.T < lead {
			continue
		}
		rec := record.Path{Round: p.Index, At: s.T - lead, Seat: seat(s.Player), Team: s.Team, X: s.Pos.X, Y: s.Pos.Y, Z: s.Pos.Z}
		// The looks were kept sample by sample as the paths were written
		// (match.Config.PathLooks).
		if i < len(res.Looks) && res.Looks[i].Player == s.Player {
			l := res.Looks[i]
			rec.YawDeg, rec.PitchDeg = game.AngleToDeg(int32(l.Yaw)), game.AngleToDeg(int32(l.Pitch))
		}
		recs = append(recs, timed{s.T, rec})
	}
	slices.SortStableFunc(recs, func(a, b timed) int { return cmp.Compare(a.at, b.at) })
	return recs
}

// duelRecord is a match's duel as the study records it: seats for
// players, times from the measured part's start, a duel's instants in ms
// after its first sighting.
func duelRecord(round int, d match.Duel, lead time.Duration, seat func(int) int) record.Duel {
	after := func(t time.Duration) float64 {
		if t == peek.Never {
			return -1
		}
		return float64(t-d.Start) / float64(time.Millisecond)
	}
	who := func(id int) int {
		if id < 0 {
			return -1
		}
		return seat(id)
	}
	return record.Duel{Round: round, At: d.Start - lead, A: seat(d.A), B: seat(d.B),
		SightAMS: after(d.SightA), SightBMS: after(d.SightB), ShotAMS: after(d.ShotA), ShotBMS: after(d.ShotB),
		FirstHit: who(d.FirstHit), Killer: who(d.Killer), Both: d.Both, First: who(d.First),
		AdvantageMS: d.AdvantageMS, ExpectedMS: d.ExpectedMS}
}

// objectiveKind reports a log entry of the mode's objectives: a flag
// taken, dropped, returned or captured, a point captured or lost.
func objectiveKind(e server.LogEntry) bool {
	return strings.HasPrefix(e.Kind, "flag_") || strings.HasPrefix(e.Kind, "point_")
}

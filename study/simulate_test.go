package study

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// TestSimRecords: the simulation driver turns a match's shots, log and
// paths into records: the lead-in left out and At counted from the
// measured start, players named by seat, a time warp's newer judgement
// of a shot kept in place of the older, objectives and kills from the
// log.
func TestSimRecords(t *testing.T) {
	p := &Plan{Index: 2, Warmup: time.Second, Ready: true, Duration: time.Minute} // lead-in 4 s
	// Server ids 5 and 9 hold seats 0 and 1.
	seat := func(id int) int {
		switch id {
		case 5:
			return 0
		case 9:
			return 1
		}
		return -1
	}
	lead := p.LeadIn()
	shot := func(at time.Duration, tick uint32, victim int, outcome wire.Outcome, warped bool) match.Shot {
		return match.Shot{ShotRecord: server.ShotRecord{Time: at, Shooter: 5, ShotTick: tick, Victim: victim, Part: game.PartTorso,
			Hit: victim >= 0, Registered: victim >= 0 && outcome != wire.OutcomeDeniedUpheld, Appealed: outcome != wire.OutcomeRegistered,
			Outcome: outcome, Warped: warped, Damage: 25, Told: victim >= 0, Sight: server.Sight{Known: victim >= 0, SBC: true}}}
	}
	withShown := func(s match.Shot, v game.Shown) match.Shot {
		s.ClientShown = v
		return s
	}
	res := &match.Result{
		Looks: []match.Look{{T: lead - 50*time.Millisecond, Player: 5}, {T: lead, Player: 9, Yaw: game.AngleUnits / 4, Pitch: -game.AngleUnits / 32}},
		Shots: []match.Shot{
			shot(lead-time.Millisecond, 1, 9, wire.OutcomeRegistered, false), // in the lead-in
			shot(lead+time.Second, 2, -1, wire.OutcomeRegistered, false),     // a miss, judged again below
			withShown(shot(lead+time.Second, 2, 9, wire.OutcomeDeniedUpheld, true), game.ShownHit),
			shot(lead+2*time.Second, 3, 9, wire.OutcomeConfirmed, false),
		},
		Log: []server.LogEntry{
			{Time: lead - time.Second, Kind: "flag_taken", Player: 5, Team: 0},
			{Time: lead + 3*time.Second, Kind: "flag_captured", Player: 9, Team: 1},
			{Time: lead + 4*time.Second, Kind: "kill", Player: 5, Other: 9},
			{Time: lead + 5*time.Second, Kind: "spawn", Player: 9},
		},
	}
	samples := []reckoning.Sample{{T: lead - 50*time.Millisecond, Player: 5}, {T: lead, Player: 9, Team: 1}}
	recs := simRecords(p, res, samples, seat)
	var got []record.Record
	for _, r := range recs {
		got = append(got, r.rec)
	}
	if len(got) != 5 {
		t.Fatalf("%d records %+v, want the judged shot, the confirmed shot, the capture, the kill and a path point", len(got), got)
	}
	if pt, ok := got[0].(record.Path); !ok || pt.At != 0 || pt.Seat != 1 || pt.Team != 1 || pt.Round != 2 ||
		math.Abs(pt.YawDeg-90) > 1e-9 || math.Abs(pt.PitchDeg+11.25) > 1e-9 {
		t.Errorf("first record %+v, want seat 1's path point at 0, looking 90 degrees left and 11.25 down", got[0])
	}
	if s, ok := got[1].(record.Shot); !ok || s.At != time.Second || s.Shooter != 0 || s.Victim != 1 || s.Registered ||
		s.Appeal != "denied_upheld" || s.Part != "torso" || !s.ObjectiveSBC || !s.SBCKnown || s.ServerSBC || s.ClientVerdict != record.VerdictHit {
		t.Errorf("second record %+v, want the warped judgement of the shot at 1 s", got[1])
	}
	if s, ok := got[2].(record.Shot); !ok || s.Appeal != "confirmed" || !s.Registered || s.ClientVerdict != "" {
		t.Errorf("third record %+v, want the confirmed hit", got[2])
	}
	if o, ok := got[3].(record.Objective); !ok || o.Kind != "flag_captured" || o.Seat != 1 || o.Team != 1 || o.At != 3*time.Second {
		t.Errorf("fourth record %+v, want seat 1's capture at 3 s", got[3])
	}
	if k, ok := got[4].(record.Kill); !ok || k.Killer != 0 || k.Victim != 1 || k.At != 4*time.Second {
		t.Errorf("fifth record %+v, want seat 0 killing seat 1 at 4 s", got[4])
	}
}

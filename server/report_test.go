package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// sendReport sends m from peer at the server's present and returns Step's
// error.
func (d *duel) sendReport(peer Peer, m wire.Report) error {
	d.t.Helper()
	b, err := wire.AppendReport(nil, &m)
	if err != nil {
		d.t.Fatal(err)
	}
	return d.s.Step(d.s.Time(), peer, b)
}

// strafeAndShoot makes the victim strafe and the shooter fire at where
// the victim was at the shooter's view time (100 ms back): a hit that
// only a rewind finds, with a rollback.
func (d *duel) strafeAndShoot() {
	d.t.Helper()
	d.cmd[2] = game.UserCmd{Yaw: game.YawUnits(math.Pi), Side: 127}
	d.run(300 * time.Millisecond)
	past, ok := d.s.History().At(1, d.s.NextTick()-100*time.Millisecond)
	if !ok {
		d.t.Fatal("no history of the victim")
	}
	cmd := d.cmd[1]
	cmd.Yaw = game.YawUnits(math.Atan2(past.Pos.Y, past.Pos.X))
	d.cmd[1] = cmd
	d.shoot(nil)
	d.run(50 * time.Millisecond)
}

// TestSBCReportTiedToLastHit checks that a victim's report is kept and
// logged with the server's account of the newest hit on it (shooter, shot
// tick, rewind, rollback, outcome), and with the victim client's own SBC
// verdict when the report names that hit.
func TestSBCReportTiedToLastHit(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "tlc"}})
	d.strafeAndShoot()
	if len(d.hits[2]) != 1 {
		t.Fatalf("victim heard of %d hits, want 1", len(d.hits[2]))
	}
	var shot ShotRecord
	for _, r := range d.records {
		if r.Hit {
			shot = r
		}
	}
	h := d.hits[2][0]
	d.s.Ready()
	if err := d.sendReport(2, wire.Report{Seen: true, Shooter: h.Shooter, ShotTick: h.ShotTick, SBC: true}); err != nil {
		t.Fatal(err)
	}
	ready := d.s.Ready()
	reps := ready.Reports
	if len(reps) != 1 {
		t.Fatalf("%d reports kept, want 1", len(reps))
	}
	r := reps[0]
	if !r.Hit || r.Reporter != 1 || r.Shooter != 0 || r.ShotTick != shot.ShotTick || r.HitTime != shot.Time {
		t.Errorf("report %+v does not name the hit %+v", r, shot)
	}
	if !r.Rewound || r.RewindMS != shot.RewindMS || r.RewindMS < 50 || r.RollbackM != shot.RollbackM || r.RollbackM <= 0 {
		t.Errorf("report rewind %v %.1f ms, rollback %.3f m; the hit's %.1f ms, %.3f m", r.Rewound, r.RewindMS, r.RollbackM, shot.RewindMS, shot.RollbackM)
	}
	if !r.Registered || r.Outcome != wire.OutcomeRegistered || r.Appealed {
		t.Errorf("report outcome %v registered %v appealed %v, want a registered hit", r.Outcome, r.Registered, r.Appealed)
	}
	if !r.SBCKnown || !r.ObjectiveSBC {
		t.Errorf("report names the hit and says SBC, got known %v sbc %v", r.SBCKnown, r.ObjectiveSBC)
	}
	log := ready.Log
	if len(log) != 1 || log[0].Kind != "sbc_report" || log[0].Player != 1 || log[0].Other != 0 {
		t.Errorf("log %+v, want one sbc_report by 1 about shooter 0", log)
	}
	// A report naming another shot keeps the server's account but not the
	// client's verdict, which was about something else.
	if err := d.sendReport(2, wire.Report{Seen: true, Shooter: h.Shooter, ShotTick: h.ShotTick + 1, SBC: true}); err != nil {
		t.Fatal(err)
	}
	if reps := d.s.Ready().Reports; len(reps) != 1 || reps[0].SBCKnown || reps[0].ShotTick != shot.ShotTick {
		t.Errorf("report of another shot: %+v", reps)
	}
	// The shooter was never hit: its report has no hit.
	if err := d.sendReport(1, wire.Report{}); err != nil {
		t.Fatal(err)
	}
	if reps := d.s.Ready().Reports; len(reps) != 1 || reps[0].Hit || reps[0].Shooter != -1 || reps[0].Reporter != 0 {
		t.Errorf("report with no hit: %+v", reps)
	}
}

// TestSBCReportsAreRateLimited checks the per-client limit: a burst of
// reportBurst, then one every reportRefill.
func TestSBCReportsAreRateLimited(t *testing.T) {
	d := newDuel(t, Config{})
	for i := range reportBurst + 4 {
		if err := d.sendReport(2, wire.Report{Seen: true, ShotTick: uint32(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.s.Ready().Reports); n != reportBurst || d.s.ReportsRefused(1) != 4 {
		t.Fatalf("%d reports kept and %d refused of %d, want %d and 4", n, d.s.ReportsRefused(1), reportBurst+4, reportBurst)
	}
	// The other client's bucket is its own.
	if err := d.sendReport(1, wire.Report{}); err != nil || len(d.s.Ready().Reports) != 1 {
		t.Fatalf("the shooter's first report was refused: %v", err)
	}
	d.run(reportRefill + 100*time.Millisecond)
	for i := range 2 {
		if err := d.sendReport(2, wire.Report{Seen: true, ShotTick: uint32(100 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.s.Ready().Reports); n != 1 || d.s.ReportsRefused(1) != 5 {
		t.Errorf("after %v: %d reports kept of 2, %d refused in all; want 1 and 5", reportRefill, n, d.s.ReportsRefused(1))
	}
}

// TestBadReports checks that a report from a stranger or a malformed one
// is refused with an error and counted, and keeps nothing.
func TestBadReports(t *testing.T) {
	d := newDuel(t, Config{})
	if err := d.sendReport(99, wire.Report{}); err == nil {
		t.Error("a report from an unknown peer was taken")
	}
	before := d.s.Stats().Malformed
	b, _ := wire.AppendReport(nil, &wire.Report{Seen: true, ShotTick: 3})
	for _, bad := range [][]byte{b[:2], append(b[:len(b):len(b)], 1), {byte(wire.MsgReport), 0x02, 0, 0, 0, 0}} {
		if err := d.s.Step(d.s.Time(), 2, bad); err == nil {
			t.Errorf("report %x taken", bad)
		}
	}
	if got := d.s.Stats().Malformed - before; got != 3 {
		t.Errorf("%d malformed counted, want 3", got)
	}
	if n := len(d.s.Ready().Reports); n != 0 {
		t.Errorf("%d reports kept from bad datagrams", n)
	}
}

// TestRewindEventShowsTestedPose checks the rewind view's data: with
// ShowRewind the shooter and the victim of a hit each get one
// RewindEvent whose pose is where the server tested the victim (the
// impact lies on that pose's hit part), whose rewind and rollback are the
// shot record's, and none without it.
func TestRewindEventShowsTestedPose(t *testing.T) {
	for _, show := range []bool{true, false} {
		d := newDuel(t, Config{Policy: lagcomp.Config{Name: "tlc"}, ShowRewind: show})
		d.strafeAndShoot()
		if len(d.hits[2]) != 1 {
			t.Fatalf("show %v: victim heard of %d hits, want 1", show, len(d.hits[2]))
		}
		if !show {
			if len(d.rewinds[1])+len(d.rewinds[2]) != 0 {
				t.Errorf("without ShowRewind: rewind events %+v", d.rewinds)
			}
			continue
		}
		var shot ShotRecord
		for _, r := range d.records {
			if r.Hit {
				shot = r
			}
		}
		if len(d.rewinds[1]) != 1 || len(d.rewinds[2]) != 1 || d.rewinds[1][0] != d.rewinds[2][0] {
			t.Fatalf("rewind events to shooter %+v and victim %+v, want one each, the same", d.rewinds[1], d.rewinds[2])
		}
		e := d.rewinds[1][0]
		if e.Shooter != 0 || e.Victim != 1 || e.ShotTick != shot.ShotTick || e.Part != shot.Part || e.Outcome != wire.OutcomeRegistered {
			t.Errorf("event %+v does not match the record %+v", e, shot)
		}
		if got := float64(e.Rewind) / float64(time.Millisecond); math.Abs(got-shot.RewindMS) > 0.001 || got < 50 {
			t.Errorf("event rewind %.3f ms, record %.3f ms", got, shot.RewindMS)
		}
		if got := math.Hypot(e.Pos.X-e.Now.X, e.Pos.Y-e.Now.Y); math.Abs(got-shot.RollbackM) > 2*game.PosQuantum || got < 0.1 {
			t.Errorf("event rollback %.4f m, record %.4f m", got, shot.RollbackM)
		}
		pose := game.PlayerState{Pos: e.Pos, Yaw: e.Yaw}
		if e.Crouched {
			pose.Flags |= game.FlagCrouched
		}
		part := game.Hitboxes(pose, nil)[e.Part].Shape
		if d := e.Impact.Dist(geom.ClosestPointOnSegment(part.A, part.B, e.Impact)); math.Abs(d-part.R) > 0.01 {
			t.Errorf("impact %v lies %.3f m from the tested %v's axis, radius %.3f", e.Impact, d, e.Part, part.R)
		}
		if eye := game.EyePos(game.PlayerState{Pos: geom.V(0, 0, 0)}, nil); e.Eye.Dist(game.SnapPos(eye)) > 1e-9 {
			t.Errorf("event eye %v, the shooter's %v", e.Eye, eye)
		}
	}
}

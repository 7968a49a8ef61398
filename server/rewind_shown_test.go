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

// TestRewindEventForProjectileHit checks that with ShowRewind a
// projectile's hit also shows the shooter and the victim what the server
// tested: the victim's pose of the contact's tick (not rewound), the
// impact on its hit part, the part and damage of the record.
func TestRewindEventForProjectileHit(t *testing.T) {
	w := testProjectile(200)
	d := newDuel(t, armed(Config{Policy: lagcomp.Config{Name: "tlc"}, ShowRewind: true}, w))
	d.shoot(nil)
	d.run(500 * time.Millisecond)
	if len(d.hits[2]) != 1 {
		t.Fatalf("victim heard of %d hits, want 1", len(d.hits[2]))
	}
	if len(d.rewinds[1]) != 1 || len(d.rewinds[2]) != 1 || d.rewinds[1][0] != d.rewinds[2][0] {
		t.Fatalf("rewind events to shooter %+v and victim %+v, want one each, the same", d.rewinds[1], d.rewinds[2])
	}
	e, h := d.rewinds[1][0], d.hits[2][0]
	if e.Shooter != 0 || e.Victim != 1 || e.ShotTick != h.ShotTick || e.Part != h.Part || e.Outcome != wire.OutcomeRegistered || e.Rewind != 0 {
		t.Errorf("event %+v, want the hit %+v, registered, not rewound", e, h)
	}
	if e.Pos.Dist(e.Now) > 1e-9 || e.Pos.Dist(game.SnapPos(d.s.clients[1].state.Pos)) > 1e-9 {
		t.Errorf("tested at %v, judged at %v, standing at %v: want one place", e.Pos, e.Now, d.s.clients[1].state.Pos)
	}
	part := game.Hitboxes(game.PlayerState{Pos: e.Pos, Yaw: e.Yaw}, nil)[e.Part].Shape
	if got := math.Abs(e.Impact.Dist(geom.ClosestPointOnSegment(part.A, part.B, e.Impact)) - part.R); got > 0.05 {
		t.Errorf("impact %v lies %.3f m off the tested %v", e.Impact, got, e.Part)
	}
}

// TestRewindEventForRejudgedHit checks that with ShowRewind a hit that
// time warp finds when re-judging a shot (O's shot on W, whose late
// commands put it in the line of fire) shows the shooter and the victim
// what the re-simulation tested, the impact on the part hit.
func TestRewindEventForRejudgedHit(t *testing.T) {
	const late = 8
	cfg := warpConfig()
	cfg.ShowRewind = true
	sc := newWarpScene(t, cfg, duelActors(late, wStops), 150, 158)
	rewinds := func(id int) []wire.RewindEvent {
		var out []wire.RewindEvent
		for _, q := range sc.s.clients[id].events {
			var e wire.RewindEvent
			if q.kind == wire.EventRewind && wire.DecodeRewindEvent(q.data, &e) == nil {
				out = append(out, e)
			}
		}
		return out
	}
	if st := sc.s.TimeWarpStats(); st.Rejudged == 0 {
		t.Fatalf("no shot re-judged: %+v", st)
	}
	var found bool
	for _, e := range rewinds(5) {
		if e.Shooter == 0 && e.Victim == 5 {
			found = true
			if e.Outcome != wire.OutcomeRegistered || e.Rewind <= 0 || e.Rewind > cfg.TimeWarp {
				t.Errorf("re-judged hit %+v, want registered and rewound within the warp's %v", e, cfg.TimeWarp)
			}
			part := game.Hitboxes(game.PlayerState{Pos: e.Pos, Yaw: e.Yaw}, nil)[e.Part].Shape
			if got := math.Abs(e.Impact.Dist(geom.ClosestPointOnSegment(part.A, part.B, e.Impact)) - part.R); got > 0.05 {
				t.Errorf("impact %v lies %.3f m off the tested %v", e.Impact, got, e.Part)
			}
			if !containsRewind(rewinds(0), e) {
				t.Errorf("the shooter was not shown the re-judged hit %+v", e)
			}
		}
	}
	if !found {
		t.Errorf("W was shown %+v, want O's re-judged hit", rewinds(5))
	}
}

func containsRewind(l []wire.RewindEvent, e wire.RewindEvent) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}

package lagcomp_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/lagcomp"
)

// bruteTrace is Trace without a broad phase: every other player's pose
// interpolated and its parts tested.
func bruteTrace(tr *lagcomp.Tracer, r geom.Ray, maxDist float64, t time.Duration, shooter int) (lagcomp.Hit, bool) {
	if wall, ok := tr.Grid.Raycast(r, maxDist); ok {
		maxDist = wall.Dist
	}
	var best lagcomp.Hit
	found := false
	for id := range fixture.CrowdPlayers {
		st, ok := tr.History.At(id, t)
		if id == shooter || !ok {
			continue
		}
		if h, ok := lagcomp.TraceParts(r, maxDist, st, tr.Params); ok {
			h.Victim = id
			best, found, maxDist = h, true, h.Dist
		}
	}
	return best, found
}

// TestTraceBroadPhaseChangesNothing checks that the broad phase only
// saves work: Trace finds exactly the hits of a test of every part of
// every player, in a crowd that walks, crouches and respawns.
func TestTraceBroadPhaseChangesNothing(t *testing.T) {
	tr, shots := crowd(t, 4096)
	hits := 0
	for i, s := range shots {
		got, gotOK := tr.Trace(s.Ray, 200, s.T, s.Shooter)
		want, wantOK := bruteTrace(tr, s.Ray, 200, s.T, s.Shooter)
		if got != want || gotOK != wantOK {
			t.Fatalf("shot %d: Trace found %+v (%v), every part %+v (%v)", i, got, gotOK, want, wantOK)
		}
		if gotOK {
			hits++
		}
	}
	if hits < len(shots)/10 {
		t.Fatalf("only %d of %d shots hit: the comparison proves little", hits, len(shots))
	}
}

// TestTraceDoesNotAllocate checks that a rewound shot allocates nothing:
// a server traces every shot inside its tick.
func TestTraceDoesNotAllocate(t *testing.T) {
	tr, shots := crowd(t, 64)
	i := 0
	if n := testing.AllocsPerRun(200, func() {
		s := &shots[i%len(shots)]
		tr.Trace(s.Ray, 200, s.T, s.Shooter)
		i++
	}); n != 0 {
		t.Errorf("Trace: %v allocations a shot", n)
	}
}

package realtime

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
)

// TestView watches a match of four bots on arena from above: every
// seated player is in the View where the server has it, with its four
// hitboxes, and the bots' hits arrive as rewinds, each once, with the
// victim's tested hitboxes beside its present ones.
func TestView(t *testing.T) {
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4, Policy: lagcomp.Config{Name: "tlc"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })
	if m.MapFile() == nil || m.MapFile().Name != "arena" {
		t.Fatalf("MapFile: %v", m.MapFile())
	}
	var since uint64
	seen := map[uint64]bool{}
	deadline := time.Now().Add(60 * time.Second)
	for len(seen) < 3 && time.Now().Before(deadline) {
		v, err := m.View(since)
		if err != nil {
			t.Fatal(err)
		}
		if v.Match != m.ID() || v.Map != "arena" || len(v.Players) != 4 {
			t.Fatalf("view of %s on %s with %d players, want %s on arena with 4", v.Match, v.Map, len(v.Players), m.ID())
		}
		for _, p := range v.Players {
			if !p.Bot || len(p.Parts) != game.NumParts || p.Parts[0].A[2] <= p.Pos[2] {
				t.Fatalf("player %+v: want a bot with its hitboxes above its feet", p)
			}
		}
		for _, r := range v.Rewinds {
			if r.Seq <= since || seen[r.Seq] {
				t.Fatalf("rewind %d again after %d", r.Seq, since)
			}
			seen[r.Seq] = true
			since = r.Seq
			if r.Shooter == r.Victim || len(r.Tested) != game.NumParts || len(r.Now) != game.NumParts || r.RewindMs < 0 || r.Part == "" {
				t.Fatalf("rewind %+v", r)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(seen) < 3 {
		t.Fatalf("%d hits seen in a minute of four bots, want 3", len(seen))
	}
}

// TestSpectateShots watches four bots on arena as a spectator's page
// does: no shot is kept before the first Spectate; after it every
// hitscan shot arrives once, hits and misses, from the shooter's eye
// along a unit aim, with the hitboxes of every living player but the
// shooter where the server tested the shot (the victim's among them).
func TestSpectateShots(t *testing.T) {
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4, Policy: lagcomp.Config{Name: "tlc"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })
	time.Sleep(2 * time.Second) // the bots fire unwatched
	v, err := m.Spectate(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Shots) != 0 {
		t.Fatalf("%d shots kept before anyone spectated", len(v.Shots))
	}
	var since, shotsSince uint64
	seen := map[uint64]bool{}
	hits, misses := 0, 0
	for deadline := time.Now().Add(60 * time.Second); (hits < 2 || misses < 2) && time.Now().Before(deadline); {
		v, err := m.Spectate(since, shotsSince)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range v.Rewinds {
			since = max(since, r.Seq)
		}
		for _, s := range v.Shots {
			if s.Seq <= shotsSince || seen[s.Seq] {
				t.Fatalf("shot %d again after %d", s.Seq, shotsSince)
			}
			seen[s.Seq], shotsSince = true, s.Seq
			d := math.Sqrt(s.Dir[0]*s.Dir[0] + s.Dir[1]*s.Dir[1] + s.Dir[2]*s.Dir[2])
			if math.Abs(d-1) > 1e-6 || s.Eye == [3]float64{} || len(s.Rewound) > 3 {
				t.Fatalf("shot %+v: want an eye, a unit aim and at most the three others", s)
			}
			victim := false
			for _, p := range s.Rewound {
				if p.Seat == s.Shooter || len(p.Parts) != game.NumParts {
					t.Fatalf("shot %d: pose %+v", s.Seq, p)
				}
				victim = victim || p.Seat == s.Victim
			}
			switch {
			case s.Victim < 0 && s.Outcome == "miss":
				misses++
			case s.Victim >= 0 && victim && s.Part != "":
				hits++
			default:
				t.Fatalf("shot %+v: want a miss, or a hit with its victim's pose", s)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if hits < 2 || misses < 2 {
		t.Fatalf("%d hits and %d misses in a minute of four bots, want 2 of each", hits, misses)
	}
}

// TestSpectatorsShareOneView checks that spectating costs the match one
// view every spectateEvery at most, however many spectators poll: a
// burst of concurrent polls, as a flood of requests to the public
// spectate endpoint would send, builds no more views than the time it
// took allows, and each poll still gets only what is after its own
// sequence numbers.
func TestSpectatorsShareOneView(t *testing.T) {
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })
	const polls = 400
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, polls)
	for i := range polls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := m.Spectate(uint64(i), uint64(i))
			for _, r := range v.Rewinds {
				if r.Seq <= uint64(i) {
					err = fmt.Errorf("poll after %d got rewind %d", i, r.Seq)
				}
			}
			for _, s := range v.Shots {
				if s.Seq <= uint64(i) {
					err = fmt.Errorf("poll after %d got shot %d", i, s.Seq)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m.spectators.mu.Lock()
	builds := m.spectators.builds
	m.spectators.mu.Unlock()
	if most := 1 + int(elapsed/spectateEvery); builds > most {
		t.Errorf("%d polls in %v built %d views, want at most %d (one each %v)", polls, elapsed, builds, most, spectateEvery)
	}
	t.Logf("%d polls in %v built %d views", polls, elapsed, builds)
}

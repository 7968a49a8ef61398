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

// TestNearestMiss checks how a missed shot finds the player it was aimed
// at: the one whose hitboxes its line passes nearest, within NearMissM,
// in front of the eye.
func TestNearestMiss(t *testing.T) {
	body := func(seat int, x, y float64) ViewPose {
		return ViewPose{Seat: seat, Parts: []game.PartView{{Kind: "body", A: [3]float64{x, y, 0.5}, B: [3]float64{x, y, 1.5}, R: 0.3}}}
	}
	eye, east := [3]float64{0, 0, 1}, [3]float64{1, 0, 0}
	for _, c := range []struct {
		name  string
		poses []ViewPose
		want  int
	}{
		{"1 m beside", []ViewPose{body(3, 10, 1.3)}, 3},
		{"the nearer of two", []ViewPose{body(3, 10, 1.8), body(5, 20, -1.2)}, 5},
		{"beyond NearMissM", []ViewPose{body(3, 10, 2.4)}, -1},
		{"behind the eye", []ViewPose{body(3, -5, 0)}, -1},
		{"none", nil, -1},
	} {
		if got := nearest(eye, east, c.poses); got != c.want {
			t.Errorf("%s: nearest %d, want %d", c.name, got, c.want)
		}
	}
	// Through the segment, along it, and off its end.
	for _, c := range []struct {
		a, b [3]float64
		want float64
	}{
		{[3]float64{5, -1, 1}, [3]float64{5, 1, 1}, 0},
		{[3]float64{5, 0, 3}, [3]float64{9, 0, 3}, 2},
		{[3]float64{5, 2, 1}, [3]float64{5, 4, 1}, 2},
		{[3]float64{-3, 0, 1}, [3]float64{-3, 0, 4}, 3},
	} {
		if got := rayToSegment(eye, east, c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ray to %v-%v: %.6f, want %.6f", c.a, c.b, got, c.want)
		}
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
			// The player aimed at, where the server tested it and where
			// it was when the server judged the shot.
			near := false
			for _, p := range s.Rewound {
				near = near || p.Seat == s.Near
			}
			if s.Victim >= 0 && s.Near != s.Victim || s.Near >= 0 && (!near || len(s.Now) != game.NumParts) || s.Near < 0 && len(s.Now) != 0 {
				t.Fatalf("shot %d (victim %d): near %d with %d parts now; want the victim, or for a miss the player passed nearest, or none", s.Seq, s.Victim, s.Near, len(s.Now))
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

// TestSpectateDelay: on a host with a spectate delay, Spectate shows
// nothing until the match has run that long, then the match exactly as
// it was: each delayed view's players are where the live match had them
// at that tick, never a tick the live match reached less than the delay
// ago, and the match keeps a ring of views sized from the delay.
func TestSpectateDelay(t *testing.T) {
	const delay = 2 * time.Second
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	for _, bad := range []time.Duration{-time.Second, MaxSpectateDelay + time.Second} {
		if err := h.SetSpectateDelay(bad); err == nil {
			t.Fatalf("SetSpectateDelay(%v) taken", bad)
		}
	}
	if err := h.SetSpectateDelay(delay); err != nil {
		t.Fatal(err)
	}
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Spectate(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.StartsInS <= 0 || v.StartsInS > delay.Seconds() || len(v.Players) != 0 || v.DelayS != delay.Seconds() {
		t.Fatalf("a match younger than the delay shows %d players, starts in %v s, delay %v s", len(v.Players), v.StartsInS, v.DelayS)
	}
	// The live match, tick by tick as often as it can be read.
	live := map[uint32][]ViewPlayer{}
	matched, views, shots := 0, 0, 0
	lastTick, lastTime := uint32(0), 0.0
	// Until the delayed views are past the delay themselves, so that the
	// ring has wrapped.
	for deadline := time.Now().Add(60 * time.Second); (matched < 20 || shots == 0 || lastTime < delay.Seconds()+0.5) && time.Now().Before(deadline); {
		l, err := m.View(0)
		if err != nil {
			t.Fatal(err)
		}
		live[l.Tick] = l.Players
		v, err := m.Spectate(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if v.StartsInS > 0 {
			continue
		}
		views++
		// The live match read after the Spectate had run at least the
		// delay past the delayed view's time (read before, it may be a
		// tick behind the time the Spectate was answered at).
		after, err := m.View(0)
		if err != nil {
			t.Fatal(err)
		}
		if after.TimeS-v.TimeS < delay.Seconds()-1e-9 {
			t.Fatalf("delayed view at %.3f s while the match is at %.3f s: less than %v behind", v.TimeS, after.TimeS, delay)
		}
		if v.Tick < lastTick {
			t.Fatalf("delayed view went back from tick %d to %d", lastTick, v.Tick)
		}
		lastTick, lastTime = v.Tick, v.TimeS
		for _, s := range v.Shots {
			if s.TimeS > v.TimeS+1e-9 {
				t.Fatalf("delayed view at %.3f s shows shot %d of %.3f s", v.TimeS, s.Seq, s.TimeS)
			}
			shots++
		}
		for _, r := range v.Rewinds {
			if r.TimeS > v.TimeS+1e-9 {
				t.Fatalf("delayed view at %.3f s shows hit %d of %.3f s", v.TimeS, r.Seq, r.TimeS)
			}
		}
		if p, ok := live[v.Tick]; ok {
			// Players seated between two ticks may be in one and not the
			// other; a tick's positions are the same in both.
			bySeat := map[int]ViewPlayer{}
			for _, q := range p {
				bySeat[q.Seat] = q
			}
			same := 0
			for _, d := range v.Players {
				q, ok := bySeat[d.Seat]
				if !ok {
					continue
				}
				if q.Pos != d.Pos || q.Kills != d.Kills || q.Dead != d.Dead {
					t.Fatalf("tick %d: live %+v, delayed %+v", v.Tick, q, d)
				}
				same++
			}
			if same == 0 {
				continue
			}
			matched++
		}
		time.Sleep(3 * time.Millisecond)
	}
	if matched < 20 || shots == 0 {
		t.Fatalf("%d delayed views of %d seen live, %d shots", matched, views, shots)
	}
	var n, kept int
	if err := m.do(func() { n, kept = len(m.delayed.ring), m.delayed.n }); err != nil {
		t.Fatal(err)
	}
	if want := int(delay/spectateEvery) + 2; n != want || kept <= n {
		t.Fatalf("ring of %d views after %d kept, want %d (it wraps)", n, kept, want)
	}
}

// TestSpectateDelayCostsNothingUnwatched: a delayed match that nobody
// spectates builds no view; the first Spectate starts its views, the
// first spectator waiting the whole delay; and once nobody has asked
// for the delay and spectateWatch more, it forgets them.
func TestSpectateDelayCostsNothingUnwatched(t *testing.T) {
	const delay = time.Second
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	if err := h.SetSpectateDelay(delay); err != nil {
		t.Fatal(err)
	}
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 2, Bots: 2})
	if err != nil {
		t.Fatal(err)
	}
	kept := func() (n int, watched bool, now time.Duration) {
		if err := m.do(func() { n, watched, now = m.delayed.n, m.delayed.watched, m.srv.Time() }); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, _, now := kept(); now < 2*delay; _, _, now = kept() {
		time.Sleep(50 * time.Millisecond)
	}
	if n, watched, _ := kept(); n != 0 || watched {
		t.Fatalf("unwatched, the match kept %d views (watched %v)", n, watched)
	}
	v, err := m.Spectate(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.StartsInS != delay.Seconds() || len(v.Players) != 0 {
		t.Fatalf("the first spectator of a match older than the delay sees %d players, starts in %v s; want to wait the whole %v", len(v.Players), v.StartsInS, delay)
	}
	if _, watched, _ := kept(); !watched {
		t.Fatal("a Spectate did not start the views")
	}
	_, _, from := kept()
	for n, watched, now := kept(); watched; n, watched, now = kept() {
		if now-from > 3*(delay+spectateWatch) {
			t.Fatalf("still keeping %d views %v after the only Spectate", n, now-from)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n, _, _ := kept(); n != 0 {
		t.Fatalf("%d views kept after nobody watched", n)
	}
}

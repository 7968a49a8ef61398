package lobby

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"
)

var secret = []byte("0123456789abcdef-secret")

func newLobby(t testing.TB, cfg Config) *Lobby {
	t.Helper()
	if cfg.Study == "" {
		cfg.Study = "fairness"
	}
	if cfg.Secret == nil {
		cfg.Secret = secret
	}
	if cfg.Groups == nil {
		cfg.Groups = []Group{{Name: "g0"}, {Name: "g1"}}
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func addr(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}) }

// join has participant id arrive and pass a prescreen with screen s.
func join(t testing.TB, l *Lobby, now time.Duration, id string, s Screen) State {
	t.Helper()
	if err := l.Arrive(now, id, addr(len(l.people))); err != nil {
		t.Fatalf("arrive %s: %v", id, err)
	}
	st, err := l.Prescreen(now, id, s)
	if err != nil {
		t.Fatalf("prescreen %s: %v", id, err)
	}
	return st
}

var good = Screen{FPS: 120, RefreshHz: 60, PointerLock: true, BaseRTT: 30 * time.Millisecond}

func TestFullMatchFormsInArrivalOrder(t *testing.T) {
	l := newLobby(t, Config{Seats: 3})
	for i, id := range []string{"a", "b"} {
		join(t, l, time.Duration(i)*time.Second, id, good)
	}
	if r := l.Advance(2 * time.Second); len(r.Matches) != 0 {
		t.Fatalf("a match of 2 formed for 3 seats: %+v", r.Matches)
	}
	join(t, l, 3*time.Second, "c", good)
	join(t, l, 3*time.Second, "d", good)
	r := l.Advance(3 * time.Second)
	if len(r.Matches) != 1 {
		t.Fatalf("matches %+v, want one", r.Matches)
	}
	m := r.Matches[0]
	if !slices.Equal(m.People, []string{"a", "b", "c"}) || m.Bots != 0 || m.Group != 0 {
		t.Fatalf("match %+v: want a, b, c in group 0 without bots", m)
	}
	if !slices.Equal(m.Waits, []time.Duration{3 * time.Second, 2 * time.Second, 0}) {
		t.Fatalf("waits %v", m.Waits)
	}
	st, _ := l.Status(3*time.Second, "d")
	if st.State != Waiting || st.Ahead != 0 {
		t.Fatalf("d: %+v, want waiting first in line", st)
	}
}

func TestBotsTakeTheSeatsWhenTheWaitRunsOut(t *testing.T) {
	l := newLobby(t, Config{Seats: 4, MaxWait: time.Minute, MinPeople: 2})
	join(t, l, 0, "a", good)
	if r := l.Advance(2 * time.Minute); len(r.Matches) != 0 {
		t.Fatalf("one person started a match that needs 2: %+v", r.Matches)
	}
	st, _ := l.Status(90*time.Second, "a")
	if st.WaitAtMost != 0 {
		t.Fatalf("wait bound %v past the limit, want 0", st.WaitAtMost)
	}
	join(t, l, 2*time.Minute, "b", good)
	st, _ = l.Status(2*time.Minute, "b")
	if st.WaitAtMost != time.Minute || st.Ahead != 1 {
		t.Fatalf("b: %+v, want a minute at most, one ahead", st)
	}
	r := l.Advance(2 * time.Minute)
	if len(r.Matches) != 1 || r.Matches[0].Bots != 2 || !slices.Equal(r.Matches[0].People, []string{"a", "b"}) {
		t.Fatalf("matches %+v: want a and b with 2 bots", r.Matches)
	}
	if f := l.Flow(); f.Bots != 2 || f.Matched != 2 {
		t.Fatalf("flow %+v", f)
	}
}

// TestGroupsBalanceAsPeopleArrive: whatever the order of arrival, the
// groups' match counts stay within one of each other.
func TestGroupsBalanceAsPeopleArrive(t *testing.T) {
	groups := []Group{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}}
	l := newLobby(t, Config{Seats: 2, MaxWait: 30 * time.Second, Groups: groups})
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Duration(0)
	for i := range 61 {
		now += time.Duration(rng.ExpFloat64() * float64(10*time.Second))
		join(t, l, now, fmt.Sprintf("p%d", i), good)
		l.Advance(now)
		played := l.Played()
		if slices.Max(played)-slices.Min(played) > 1 {
			t.Fatalf("after %d arrivals the groups played %v", i+1, played)
		}
	}
	l.Advance(now + time.Minute)
	f := l.Flow()
	if f.Matched != 61 || f.Admitted != 61 {
		t.Fatalf("flow %+v: want all 61 matched", f)
	}
	if played := l.Played(); slices.Max(played)-slices.Min(played) > 1 {
		t.Fatalf("groups played %v", played)
	}
}

func TestOverTargetRefusedOrRestricted(t *testing.T) {
	groups := []Group{
		{Name: "low", TargetRTT: []time.Duration{50 * time.Millisecond, 200 * time.Millisecond}},
		{Name: "high", TargetRTT: []time.Duration{150 * time.Millisecond, 200 * time.Millisecond}},
	}
	slow := good
	slow.BaseRTT = 80 * time.Millisecond

	l := newLobby(t, Config{Seats: 1, Groups: groups})
	if st := join(t, l, 0, "slow", slow); st != Refused {
		t.Fatalf("refuse policy: %s", st)
	}
	st, _ := l.Status(0, "slow")
	if st.Reason != "round trip 80 ms over the 50 ms a condition targets" {
		t.Fatalf("reason %q", st.Reason)
	}

	l = newLobby(t, Config{Seats: 1, Groups: groups, Admission: Admission{OverTarget: OverRestrict}})
	for i := range 4 {
		join(t, l, 0, fmt.Sprintf("slow%d", i), slow)
	}
	r := l.Advance(0)
	for _, m := range r.Matches {
		if m.Group != 1 {
			t.Fatalf("a participant at 80 ms played group %d, whose rounds target 50 ms", m.Group)
		}
	}
	if len(r.Matches) != 4 {
		t.Fatalf("%d matches, want 4", len(r.Matches))
	}
	slower := good
	slower.BaseRTT = 300 * time.Millisecond
	if st := join(t, l, 0, "slower", slower); st != Refused {
		t.Fatalf("a base over every target: %s", st)
	}
}

func TestPrescreenRules(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, Admission: Admission{MinFPS: 60, MinRefreshHz: 59, PointerLock: true, MaxBaseRTT: 150 * time.Millisecond}})
	for _, c := range []struct {
		s    Screen
		want string
	}{
		{Screen{FPS: 120, RefreshHz: 60, PointerLock: false, BaseRTT: 10 * time.Millisecond}, "the browser did not grant pointer lock"},
		{Screen{FPS: 30, RefreshHz: 60, PointerLock: true}, "frame rate 30 fps under the 60 the study needs"},
		{Screen{FPS: 60, RefreshHz: 30, PointerLock: true}, "refresh rate 30 Hz under the 59 the study needs"},
		{Screen{FPS: 60, RefreshHz: 60, PointerLock: true, BaseRTT: 151 * time.Millisecond}, "round trip 151 ms over the 150 ms the study allows"},
	} {
		id := fmt.Sprintf("p%d", len(l.people))
		if st := join(t, l, 0, id, c.s); st != Refused {
			t.Fatalf("%+v: %s", c.s, st)
		}
		if st, _ := l.Status(0, id); st.Reason != c.want {
			t.Errorf("%+v: reason %q, want %q", c.s, st.Reason, c.want)
		}
	}
	if f := l.Flow(); f.Refused != 4 || f.Admitted != 0 {
		t.Fatalf("flow %+v", f)
	}
}

func TestOneParticipationPerID(t *testing.T) {
	l := newLobby(t, Config{Seats: 1})
	join(t, l, 0, "p1", good)
	// A reload while waiting or playing brings the participant back.
	if err := l.Arrive(time.Second, "p1", addr(9)); err != nil {
		t.Fatalf("reload: %v", err)
	}
	r := l.Advance(time.Second)
	if len(r.Matches) != 1 {
		t.Fatal("no match")
	}
	if err := l.Arrive(2*time.Second, "p1", addr(9)); err != nil {
		t.Fatalf("reload in a match: %v", err)
	}
	if st, _ := l.Status(2*time.Second, "p1"); st.State != Matched || st.Match != 0 {
		t.Fatalf("after reload %+v", st)
	}
	if _, err := l.Complete("p1"); !errors.Is(err, ErrNotComplete) {
		t.Fatalf("a code before the match is over: %v", err)
	}
	if err := l.MatchOver(3*time.Second, 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Arrive(4*time.Second, "p1", addr(9)); !errors.Is(err, ErrParticipated) {
		t.Fatalf("a second participation: %v", err)
	}
	code, err := l.Complete("p1")
	if err != nil {
		t.Fatal(err)
	}
	if !l.Verify("p1", code) {
		t.Fatal("the code does not verify")
	}
	other := newLobby(t, Config{Seats: 1})
	if !other.Verify("p1", code) {
		t.Fatal("another lobby of the study with the same secret does not verify it")
	}
	for _, c := range []struct{ id, code string }{
		{"p2", code}, {"p1", code[:len(code)-1] + "A"}, {"p1", ""}, {"", code}, {"p1", code + "A"},
	} {
		if c.code == code && c.id == "p1" {
			continue
		}
		if l.Verify(c.id, c.code) {
			t.Errorf("forged %q for %q verifies", c.code, c.id)
		}
	}
	elsewhere := newLobby(t, Config{Seats: 1, Study: "another"})
	if elsewhere.Verify("p1", code) {
		t.Error("a code of one study verifies in another")
	}
}

func TestBadArrivals(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, JoinBurst: 3, JoinEvery: 10 * time.Second})
	for _, c := range []struct {
		id   string
		want error
	}{
		{"", ErrNoID}, {"a b", ErrBadID}, {"<script>", ErrBadID}, {string(make([]byte, 65)), ErrBadID},
	} {
		if err := l.Arrive(0, c.id, addr(1)); !errors.Is(err, c.want) {
			t.Errorf("id %q: %v, want %v", c.id, err, c.want)
		}
	}
	flood := addr(7)
	for i := range 3 {
		if err := l.Arrive(0, fmt.Sprintf("f%d", i), flood); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Arrive(0, "f3", flood); !errors.Is(err, ErrFlood) {
		t.Fatalf("a fourth arrival in the burst: %v", err)
	}
	if _, err := l.Status(0, "f3"); !errors.Is(err, ErrUnknown) {
		t.Fatal("a refused arrival was kept")
	}
	if err := l.Arrive(10*time.Second, "f3", flood); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
	// Someone who never finishes the prescreen is let go, and holds
	// no seat.
	r := l.Advance(DefaultPrescreenTimeout + 10*time.Second)
	if len(r.Matches) != 0 {
		t.Fatalf("matches %+v", r.Matches)
	}
	if f := l.Flow(); f.TimedOut != 4 || f.Refused != 4 {
		t.Fatalf("flow %+v", f)
	}
	if _, err := l.Prescreen(DefaultPrescreenTimeout+11*time.Second, "f0", good); !errors.Is(err, ErrState) {
		t.Fatalf("a prescreen after the timeout: %v", err)
	}
	if err := l.Arrive(DefaultPrescreenTimeout+11*time.Second, "f0", flood); !errors.Is(err, ErrParticipated) {
		t.Fatalf("back after the timeout: %v", err)
	}
}

func TestBounded(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, MaxQueue: 5, MaxParticipants: 8})
	for i := range 5 {
		if err := l.Arrive(0, fmt.Sprintf("p%d", i), addr(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Arrive(0, "p5", addr(5)); !errors.Is(err, ErrFull) {
		t.Fatalf("past the queue: %v", err)
	}
	for i := range 5 {
		if _, err := l.Prescreen(0, fmt.Sprintf("p%d", i), good); err != nil {
			t.Fatal(err)
		}
	}
	l.Advance(0) // two matches; one waits
	for i := 5; i < 8; i++ {
		if err := l.Arrive(0, fmt.Sprintf("p%d", i), addr(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Arrive(0, "p8", addr(8)); !errors.Is(err, ErrFull) {
		t.Fatalf("past the participants: %v", err)
	}
	// Addresses: at most maxAddrs are remembered while in their
	// burst; one whose bucket filled again is forgotten.
	l = newLobby(t, Config{Seats: 2, JoinBurst: 2, JoinEvery: time.Second})
	l.maxAddrs = 3
	for i := range 3 {
		if err := l.Arrive(0, fmt.Sprintf("a%d", i), addr(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Arrive(0, "a3", addr(103)); !errors.Is(err, ErrFlood) {
		t.Fatalf("a fourth address while three are in their burst: %v", err)
	}
	if err := l.Arrive(time.Second, "a3", addr(103)); err != nil {
		t.Fatalf("a fourth address once the others refilled: %v", err)
	}
	if len(l.addrs) != 1 {
		t.Fatalf("%d addresses kept, want the newest alone", len(l.addrs))
	}
}

func TestDropouts(t *testing.T) {
	l := newLobby(t, Config{Seats: 2})
	join(t, l, 0, "a", good)
	join(t, l, 0, "b", good)
	join(t, l, 0, "c", good)
	r := l.Advance(0)
	if len(r.Matches) != 1 {
		t.Fatal("no match")
	}
	if err := l.Leave(time.Second, "b", "tab closed"); err != nil {
		t.Fatal(err)
	}
	if err := l.Leave(time.Second, "c", "tired of waiting"); err != nil {
		t.Fatal(err)
	}
	r = l.Advance(time.Second)
	want := []Event{
		{At: time.Second, Participant: "b", Kind: "dropped", Reason: "tab closed", Match: 0},
		{At: time.Second, Participant: "c", Kind: "dropped", Reason: "tired of waiting", Match: -1},
	}
	if !reflect.DeepEqual(r.Events, want) {
		t.Fatalf("events %+v\nwant %+v", r.Events, want)
	}
	_ = l.MatchOver(2*time.Second, 0)
	if f := l.Flow(); f.Completed != 1 || f.Dropped != 2 || f.DroppedWaiting != 1 {
		t.Fatalf("flow %+v", f)
	}
	if _, err := l.Complete("b"); !errors.Is(err, ErrNotComplete) {
		t.Fatalf("a dropout's code: %v", err)
	}
}

// TestDropoutCode: with DropoutCode, one who dropped out of a match
// gets the completion code for the part played; one who left while
// waiting does not, and neither may take part again.
func TestDropoutCode(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, DropoutCode: true})
	join(t, l, 0, "a", good)
	join(t, l, 0, "b", good)
	join(t, l, 0, "c", good)
	l.Advance(0)
	_ = l.Leave(time.Second, "a", "left mid-match (round 2 of 4)")
	_ = l.Leave(time.Second, "c", "tired of waiting")
	if code, err := l.Complete("a"); err != nil || !l.Verify("a", code) {
		t.Errorf("the dropout's code %q: %v", code, err)
	}
	if _, err := l.Complete("c"); !errors.Is(err, ErrNotComplete) {
		t.Errorf("one who left waiting: %v", err)
	}
	if err := l.Arrive(2*time.Second, "a", addr(9)); !errors.Is(err, ErrParticipated) {
		t.Errorf("the dropout again: %v", err)
	}
}

// TestMatchLost: people of a match whose game server was lost go back
// to the queue ahead of those admitted after them, for their own group
// only, with the reason in their status; or, without requeue, complete
// with the reason as their status.
func TestMatchLost(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, MaxWait: time.Minute})
	join(t, l, 0, "a", good)
	join(t, l, 0, "b", good)
	r := l.Advance(0)
	g := r.Matches[0].Group
	join(t, l, time.Second, "c", good)
	if err := l.MatchLost(2*time.Second, 0, []string{"a", "b"}, "the game server was lost"); err != nil {
		t.Fatal(err)
	}
	st, _ := l.Status(2*time.Second, "b")
	if st.State != Waiting || st.Ahead != 1 || st.Reason != "the game server was lost" || !reflect.DeepEqual(st.Eligible, []int{g}) {
		t.Fatalf("b requeued: %+v", st)
	}
	r = l.Advance(2 * time.Second)
	if len(r.Matches) != 1 || !reflect.DeepEqual(r.Matches[0].People, []string{"a", "b"}) || r.Matches[0].Group != g {
		t.Fatalf("the new match %+v, want a and b in group %d", r.Matches, g)
	}
	if f := l.Flow(); f.Requeued != 2 || f.Matched != 2 { // people, each once
		t.Errorf("flow %+v", f)
	}
	if err := l.MatchLost(3*time.Second, 1, nil, "the game server was lost"); err != nil {
		t.Fatal(err)
	}
	st, _ = l.Status(3*time.Second, "a")
	if code, err := l.Complete("a"); st.State != Completed || st.Reason == "" || err != nil || code == "" {
		t.Errorf("finished: %+v, code %q %v", st, code, err)
	}
	if f := l.Flow(); f.Completed != 2 || f.Lost != 2 {
		t.Errorf("flow %+v", f)
	}
	if err := l.MatchLost(3*time.Second, 7, nil, ""); err == nil {
		t.Error("no match 7 was lost")
	}
}

// run plays a random arrival process through a lobby and returns
// everything it handed over.
func run(t testing.TB, seed uint64) []Ready {
	l := newLobby(t, Config{Seats: 3, MaxWait: 20 * time.Second, Groups: []Group{{Name: "A"}, {Name: "B"}, {Name: "C"}}})
	rng := rand.New(rand.NewPCG(seed, 0))
	var out []Ready
	now := time.Duration(0)
	for i := range 200 {
		now += time.Duration(rng.ExpFloat64() * float64(3*time.Second))
		id := fmt.Sprintf("p%d", i)
		if err := l.Arrive(now, id, addr(i)); err != nil {
			t.Fatal(err)
		}
		if rng.IntN(10) > 0 {
			s := good
			s.BaseRTT = time.Duration(rng.IntN(100)) * time.Millisecond
			_, _ = l.Prescreen(now, id, s)
		}
		if rng.IntN(20) == 0 {
			_ = l.Leave(now, fmt.Sprintf("p%d", rng.IntN(i+1)), "left")
		}
		r := l.Advance(now)
		out = append(out, Ready{Matches: slices.Clone(r.Matches), Events: r.Events})
		for _, m := range r.Matches {
			if rng.IntN(2) == 0 {
				_ = l.MatchOver(now, m.ID)
			}
		}
	}
	f := l.Flow()
	if f.Arrived != 200 || f.Admitted+f.Refused+f.DroppedPrescreen+len(l.pending) != 200 {
		t.Fatalf("flow %+v with %d at the prescreen: not every arrival accounted for", f, len(l.pending))
	}
	if f.Matched+f.DroppedWaiting+len(l.queue) != f.Admitted {
		t.Fatalf("flow %+v with %d waiting: not every admission accounted for", f, len(l.queue))
	}
	playing := 0
	for _, p := range l.people {
		if p.state == Matched {
			playing++
		}
	}
	if f.Completed+f.Dropped-f.DroppedWaiting-f.DroppedPrescreen+playing != f.Matched {
		t.Fatalf("flow %+v with %d playing: not every match seat accounted for", f, playing)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a, b := run(t, 7), run(t, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same calls made different matches")
	}
	if reflect.DeepEqual(a, run(t, 8)) {
		t.Fatal("another seed made the same matches: the test sees nothing")
	}
}

// FuzzLobby drives a lobby with arbitrary calls and checks that every
// participant is in exactly one place and the flow adds up.
func FuzzLobby(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("arrive prescreen leave advance over"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		l := newLobby(t, Config{Seats: 2, MaxWait: 5 * time.Second, MaxQueue: 16, MaxParticipants: 32, JoinBurst: 4,
			Groups: []Group{{TargetRTT: []time.Duration{100 * time.Millisecond}}, {}}, Admission: Admission{OverTarget: OverRestrict}})
		now := time.Duration(0)
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, int(ops[i+1])
			id := fmt.Sprintf("p%d", arg%40)
			switch op {
			case 0:
				_ = l.Arrive(now, id, addr(arg%5))
			case 1:
				_, _ = l.Prescreen(now, id, Screen{FPS: 60, BaseRTT: time.Duration(arg) * time.Millisecond})
			case 2:
				_ = l.Leave(now, id, "left")
			case 3:
				now += time.Duration(arg) * 100 * time.Millisecond
				l.Advance(now)
			case 4:
				_ = l.MatchOver(now, arg%8)
			case 5:
				if code, err := l.Complete(id); err == nil && !l.Verify(id, code) {
					t.Fatal("a code that does not verify")
				}
			}
		}
		counts := map[State]int{}
		for _, p := range l.people {
			counts[p.state]++
			in := 0
			if slices.Contains(l.queue, p) {
				in++
			}
			if slices.Contains(l.pending, p) {
				in++
			}
			if (p.state == Waiting || p.state == Arrived) != (in == 1) || in > 1 {
				t.Fatalf("%s is %s, in %d lists", p.id, p.state, in)
			}
		}
		fl := l.Flow()
		if counts[Completed] != fl.Completed || counts[Refused] != fl.Refused || counts[Dropped] != fl.Dropped {
			t.Fatalf("states %v against flow %+v", counts, fl)
		}
		if fl.Arrived != len(l.people) {
			t.Fatalf("%d arrived, %d kept", fl.Arrived, len(l.people))
		}
	})
}

// TestMatchSession: once told a match's session, the lobby puts it in
// the match's events that follow, of its people still seated in it or
// dropped from it, and not in those of a later match of a requeued one.
func TestMatchSession(t *testing.T) {
	l := newLobby(t, Config{Seats: 2, MaxWait: time.Minute, Groups: []Group{{Name: "g0"}}})
	join(t, l, 0, "a", good)
	join(t, l, 0, "b", good)
	if r := l.Advance(0); len(r.Events) != 6 || r.Events[5].Kind != "matched" || r.Events[5].Session != 0 {
		t.Fatalf("events %+v", r.Events)
	}
	if err := l.MatchSession(0, 7); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		match   int
		session int64
	}{{1, 7}, {-1, 7}, {0, 0}, {0, -3}} {
		if err := l.MatchSession(bad.match, bad.session); err == nil {
			t.Errorf("match %d, session %d: no error", bad.match, bad.session)
		}
	}
	_ = l.Leave(time.Second, "a", "left mid-match (round 1 of 4)")
	_ = l.MatchLost(2*time.Second, 0, []string{"b"}, "the game server was lost")
	join(t, l, 3*time.Second, "c", good)
	r := l.Advance(3 * time.Second)
	var got []string
	for _, e := range r.Events {
		got = append(got, fmt.Sprintf("%s %s m%d s%d", e.Participant, e.Kind, e.Match, e.Session))
	}
	want := []string{"a dropped m0 s7", "b requeued m0 s7", "c arrived m-1 s0", "c admitted m-1 s0", "b matched m1 s0", "c matched m1 s0"}
	if !slices.Equal(got, want) {
		t.Errorf("events\n%q, want\n%q", got, want)
	}
	_ = l.MatchSession(1, 9)
	_ = l.MatchOver(4*time.Second, 1)
	for _, e := range l.Pending() {
		if e.Kind != "completed" || e.Session != 9 || e.Match != 1 {
			t.Errorf("after the second match: %+v", e)
		}
	}
}

// TestRestore: a lobby told the events an earlier one of the study
// recorded answers each of its participants as that one would have:
// the completed, the refused and the dropped are not admitted again and
// get their code, reason or dropout answer; those who never reached a
// match start afresh; those in a match (or requeued and waiting) when
// it stopped dropped out, which the new lobby records; a third lobby,
// told both lobbies' events, answers the same; and MaxParticipants
// bounds those restored.
func TestRestore(t *testing.T) {
	cfg := Config{Seats: 2, MaxWait: time.Minute, DropoutCode: true, Groups: []Group{{Name: "g0"}}, Admission: Admission{MinFPS: 60}}
	first := newLobby(t, cfg)
	var evs []Event
	advance := func(l *Lobby, now time.Duration) {
		r := l.Advance(now)
		evs = append(evs, r.Events...)
	}
	for _, id := range []string{"done", "gone", "quit"} {
		join(t, first, 0, id, good)
	}
	if err := first.Arrive(0, "slow", addr(20)); err != nil {
		t.Fatal(err)
	}
	if st, _ := first.Prescreen(0, "slow", Screen{FPS: 20, RefreshHz: 60, BaseRTT: time.Millisecond}); st != Refused {
		t.Fatalf("slow: %v", st)
	}
	advance(first, 0) // done and gone in match 0; quit waits
	_ = first.MatchSession(0, 41)
	_ = first.Leave(time.Second, "gone", "left mid-match (round 2 of 4)")
	_ = first.Leave(time.Second, "quit", "pressed leave")
	_ = first.MatchOver(2*time.Second, 0)
	doneCode, err := first.Complete("done")
	if err != nil {
		t.Fatal(err)
	}
	gonesCode, _ := first.Complete("gone")
	join(t, first, 3*time.Second, "m1", good)
	join(t, first, 3*time.Second, "m2", good)
	join(t, first, 3*time.Second, "lost", good)
	join(t, first, 3*time.Second, "lost2", good)
	advance(first, 3*time.Second) // match 1: m1 m2; match 2: lost lost2
	_ = first.MatchSession(2, 42)
	_ = first.MatchLost(4*time.Second, 2, []string{"lost", "lost2"}, "the game server was lost")
	if err := first.Arrive(5*time.Second, "fresh", addr(30)); err != nil {
		t.Fatal(err)
	}
	join(t, first, 5*time.Second, "wait", good)
	advance(first, 5*time.Second) // lost, lost2 in match 3: lost leaves, lost2 requeued again
	_ = first.Leave(6*time.Second, "lost", "left mid-match (round 1 of 4)")
	_ = first.MatchSession(3, 43)
	_ = first.MatchLost(6*time.Second, 3, []string{"lost2"}, "the game server was lost again")
	evs = append(evs, first.Pending()...)
	// first stops here: m1 and m2 in match 1, lost2 requeued, wait
	// waiting, fresh at the prescreen.

	type answer struct {
		arrive error
		state  State
		reason string
		code   string
	}
	check := func(l *Lobby, now time.Duration, name string) {
		t.Helper()
		want := map[string]answer{
			"done":  {ErrParticipated, Completed, "", doneCode},
			"gone":  {ErrParticipated, Dropped, "left mid-match (round 2 of 4)", gonesCode},
			"quit":  {ErrParticipated, Dropped, "pressed leave", ""},
			"slow":  {ErrParticipated, Refused, "frame rate 20 fps under the 60 the study needs", ""},
			"m1":    {ErrParticipated, Dropped, StoppedInMatch, l.code("m1")},
			"m2":    {ErrParticipated, Dropped, StoppedInMatch, l.code("m2")},
			"lost":  {ErrParticipated, Dropped, "left mid-match (round 1 of 4)", l.code("lost")},
			"lost2": {ErrParticipated, Dropped, StoppedRequeued, ""},
			"fresh": {nil, Arrived, "", ""},
			"wait":  {nil, Arrived, "", ""},
		}
		for id, w := range want {
			err := l.Arrive(now, id, addr(40))
			st, serr := l.Status(now, id)
			code, _ := l.Complete(id)
			if !errors.Is(err, w.arrive) || err == nil && w.arrive != nil || serr != nil || st.State != w.state || st.Reason != w.reason || code != w.code {
				t.Errorf("%s: %s arriving: %v; status %v %q (%v), code %q; want %v, %v %q, code %q", name, id, err, st.State, st.Reason, serr, code, w.arrive, w.state, w.reason, w.code)
			}
		}
	}
	second := newLobby(t, cfg)
	n, err := second.Restore(10*time.Second, evs)
	if n != 8 || err != nil {
		t.Fatalf("restored %d, %v; want the 8 whose part ended or began", n, err)
	}
	r := second.Advance(10 * time.Second)
	var got []string
	for _, e := range r.Events {
		got = append(got, fmt.Sprintf("%s %s %q s%d", e.Participant, e.Kind, e.Reason, e.Session))
	}
	want := []string{`m1 dropped "` + StoppedInMatch + `" s0`, `m2 dropped "` + StoppedInMatch + `" s0`, `lost2 dropped "` + StoppedRequeued + `" s43`}
	if !slices.Equal(got, want) {
		t.Errorf("the restoring lobby's events\n%q, want\n%q", got, want)
	}
	if f := second.Flow(); f != (Flow{}) {
		t.Errorf("the restoring lobby's flow %+v: want its own arrivals alone, none", f)
	}
	check(second, 11*time.Second, "second")
	evs = append(evs, r.Events...)
	evs = append(evs, second.Advance(11*time.Second).Events...) // fresh and wait arrive again
	third := newLobby(t, cfg)
	if n, err := third.Restore(0, evs); n != 8 || err != nil {
		t.Fatalf("third: restored %d, %v", n, err)
	}
	if r := third.Advance(0); len(r.Events) != 0 {
		t.Errorf("the third lobby recorded %+v: the second's records ended everyone's part", r.Events)
	}
	check(third, time.Second, "third")

	small := newLobby(t, Config{Seats: 2, Groups: []Group{{Name: "g0"}}, MaxParticipants: 3})
	if n, err := small.Restore(0, evs); n != 3 || !errors.Is(err, ErrFull) || len(small.people) != 3 {
		t.Errorf("MaxParticipants 3: restored %d, %v, %d people", n, err, len(small.people))
	}
	if err := small.Arrive(0, "new", addr(50)); !errors.Is(err, ErrFull) {
		t.Errorf("a new arrival at a full lobby: %v", err)
	}
	if _, err := newLobby(t, cfg).Restore(0, []Event{{Participant: "x", Kind: "teleported"}}); err == nil {
		t.Error("restored an event of kind teleported")
	}
	if _, err := newLobby(t, cfg).Restore(0, []Event{{Participant: "a b", Kind: "arrived"}}); !errors.Is(err, ErrBadID) {
		t.Errorf("restored id %q: %v", "a b", err)
	}
}

package live

import (
	"testing"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/study"
)

// TestRoundMatch: a round's match is the plan's (study.Plan.MatchConfig)
// with each seat's link as a rule on its slot, every page mandated to
// show nothing of the network when the technique sets no feedback, and
// seats are placed by their connect tokens' players alone.
func TestRoundMatch(t *testing.T) {
	s, err := study.Load("../../presets/timewarp.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "A1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Plans() {
		team := teams(p, len(s.Seats()))
		rc, err := d.matchConfig(p, 7, team)
		if err != nil {
			t.Fatal(err)
		}
		mc, _ := p.MatchConfig(len(s.Seats()), 7)
		names := make([]string, len(rc.Weapons))
		for i, w := range rc.Weapons {
			names[i] = w.Name
		}
		if rc.Map != mc.Map || rc.Mode != string(p.Mode) || rc.Policy != p.Technique.Policy || rc.TimeWarp != realtime.Duration(mc.TimeWarp) ||
			len(names) != len(p.Weapons) || (len(names) > 0 && names[0] != p.Weapons[0]) || rc.Seats != len(s.Seats()) {
			t.Fatalf("round %d: match %+v (weapons %v) for plan %+v", p.Index, rc, names, p)
		}
		// Every client is told to draw as the technique says: the
		// prediction rounds extrapolated, the others interpolated.
		if rc.PredictionOff != p.Technique.PredictionOff() {
			t.Fatalf("round %d: prediction off %v for technique %s", p.Index, rc.PredictionOff, p.Technique.String())
		}
		if want := map[bool]string{true: "extrapolate", false: "interpolate"}[p.Technique.Prediction]; rc.Display != want {
			t.Fatalf("round %d (%s): display %q mandated, want %q", p.Index, p.Name, rc.Display, want)
		}
		// The preset sets no feedback: every page is mandated to show
		// nothing of the network, so no participant sees the policy,
		// the round trip or the injected latency.
		if rc.Feedback != "none" {
			t.Fatalf("round %d (%s): feedback %q mandated, want none", p.Index, p.Name, rc.Feedback)
		}
		for _, r := range rc.Latency {
			seat := int(r.Player[0] - '0')
			if r.Up.LatencyMS != p.Links[seat].LatencyMS || r.Down != r.Up {
				t.Fatalf("round %d: rule %+v for link %+v", p.Index, r, p.Links[seat])
			}
		}
		if pl := rc.Seat(server.Identity{Player: "seat0", Token: true}); pl.Slot != 0 || pl.Team != team[0] {
			t.Fatalf("seat 0 placed %+v", pl)
		}
		if pl := rc.Seat(server.Identity{Player: "seat0"}); pl.Refuse == "" {
			t.Fatal("a name without a token took a seat")
		}
		if pl := rc.Seat(server.Identity{Player: "A1", Token: true}); pl.Refuse == "" {
			t.Fatal("a participant code took a seat as a player name")
		}
	}
	if got := d.Codes()[0]; got != "A1" {
		t.Fatalf("seat 0's code %q, want A1", got)
	}
}

// TestCodesIgnoreCase: codes are one code whatever their case, for
// joining and for telling seats apart.
func TestCodesIgnoreCase(t *testing.T) {
	s, err := study.Load("../../presets/timewarp.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "ab3k", 2: "AB3K"}}); err == nil {
		t.Fatal("two seats given ab3k and AB3K: no error")
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "A1", 2: "Ab3k"}})
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[string]int{"A1": 0, "a1": 0, " aB3K ": 2, "AB3K": 2} {
		if got, err := d.seatOf(code); err != nil || got != want {
			t.Errorf("seat of %q: %d %v, want %d", code, got, err, want)
		}
	}
	for _, code := range []string{"", " ", "A", "A1A"} {
		if got, err := d.seatOf(code); err == nil {
			t.Errorf("seat of %q: %d, want unknown", code, got)
		}
	}
}

package live

import (
	"context"
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
			if r.Up.LatencyMS != p.Links[seat].LatencyMS || r.Down != r.Up || r.TargetRTTMS != p.Links[seat].TargetRTTMS {
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

// TestRoundMatchHoldsTarget: a schedule's target_rtt_ms reaches the
// round's match as a target rule on the seat, with no fixed latency,
// and the match takes it.
func TestRoundMatchHoldsTarget(t *testing.T) {
	s, err := study.Parse("held.toml", []byte(`name = "held"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "tdm"
duration = "10s"
latency = [{ seats = [1], target_rtt_ms = 150, jitter_ms = 2 }]
`))
	if err != nil {
		t.Fatal(err)
	}
	h := realtime.NewHost(quiet, nil)
	d, err := New(Config{Schedule: s, Host: h})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Plans()[0]
	rc, err := d.matchConfig(p, 7, teams(p, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Latency) != 1 || rc.Latency[0].Player != "1" || rc.Latency[0].TargetRTTMS != 150 ||
		rc.Latency[0].Up != (realtime.LinkConfig{JitterMS: 2}) || rc.Latency[0].Down != rc.Latency[0].Up {
		t.Fatalf("rules %+v, want seat 1 held at 150 ms with 2 ms of jitter", rc.Latency)
	}
	if _, err := h.Start(rc); err != nil {
		t.Fatalf("the match refused the rule: %v", err)
	}
	_ = h.Shutdown(context.Background(), "test over")
}

package lagcomp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/scenario"
)

// thresholdScene is a scenario for the round-trip thresholds: a shooter
// with round trip shooterMS fires once at a victim with round trip
// victimMS whose client never answers an appeal, with bystanders idle
// players before them, which move both players' clock phases against the
// server's (the scenario runner spreads the players' phases over a tick).
// Every link has exact latency: half the round trip each way, no jitter.
// The shooter aims at 1 s, when the handshake (two round trips) is long
// over and it sees the victim. The bystanders' short round trip makes
// them join first at every phase, so the shooter and the victim are on
// opposite teams.
func thresholdScene(t *testing.T, shooterMS, victimMS float64, bystanders int) *scenario.File {
	t.Helper()
	var b strings.Builder
	b.WriteString("name = \"threshold\"\nmap = \"maps/range.json\"\nduration = \"3s\"\n")
	for i := range bystanders {
		fmt.Fprintf(&b, "[[player]]\nname = \"bystander%d\"\nrtt_ms = 10\npos = [%d, -15, 0]\n", i, -15+8*i)
	}
	fmt.Fprintf(&b, `[[player]]
name = "shooter"
rtt_ms = %v
pos = [0, 0, 0]
yaw_deg = 90
  [[player.do]]
  at = "1s"
  aim_at = "victim"
  [[player.do]]
  at = "1.5s"
  fire = 1
[[player]]
name = "victim"
rtt_ms = %v
pos = [-6, 10, 0]
appeals = "silent"
`, shooterMS, victimMS)
	f, err := scenario.Parse("../scenarios/threshold.toml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// thresholdShot runs the scene under policy and returns its one shot.
func thresholdShot(t *testing.T, f *scenario.File, policy string) scenario.Shot {
	t.Helper()
	r, err := f.Run(lagcomp.Config{Name: policy})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Shots) != 1 || r.Shots[0].Victim != "victim" {
		t.Fatalf("%s: shots %+v, want one hit on the victim", policy, r.Shots)
	}
	return r.Shots[0]
}

// TestLowPingThresholdIsInclusive: a victim whose round trip is exactly
// alc's low-ping threshold, 50 ms, may appeal, at every clock phase; one
// at 51 ms may not. The server measures the round trip from the
// client's acknowledgements, whose hold time the wire truncates to whole
// microseconds; the measurement must not come out a fraction of a
// microsecond above the threshold.
func TestLowPingThresholdIsInclusive(t *testing.T) {
	for bystanders := range 4 {
		if s := thresholdShot(t, thresholdScene(t, 100, 50, bystanders), "alc"); s.Appeal != "timeout" {
			t.Errorf("%d bystanders: a 50 ms victim's hit was not appealable (appeal %q)", bystanders, s.Appeal)
		}
		if s := thresholdShot(t, thresholdScene(t, 100, 51, bystanders), "alc"); s.Appeal != "none" {
			t.Errorf("%d bystanders: a 51 ms victim's hit was appealed (%q)", bystanders, s.Appeal)
		}
	}
}

// TestCLCRoundTripCapIsInclusive: a shooter whose round trip is exactly
// clc's cap, 250 ms, is compensated, at every clock phase; one at 251 ms
// is not.
func TestCLCRoundTripCapIsInclusive(t *testing.T) {
	for bystanders := range 4 {
		if s := thresholdShot(t, thresholdScene(t, 250, 20, bystanders), "clc"); s.RewindMS <= 0 {
			t.Errorf("%d bystanders: a 250 ms shooter was not compensated (rewound %v ms)", bystanders, s.RewindMS)
		}
		if s := thresholdShot(t, thresholdScene(t, 251, 20, bystanders), "clc"); s.RewindMS != 0 {
			t.Errorf("%d bystanders: a 251 ms shooter was compensated (rewound %v ms)", bystanders, s.RewindMS)
		}
	}
}

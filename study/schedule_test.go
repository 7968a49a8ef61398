package study

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/cfgfile"
)

// valid is a small schedule every error case changes in one place.
const valid = `name = "pilot"

[[seat]]
code = "A1"

[[seat]]
count = 3

[[technique]]
name = "tlc"
policy = { name = "tlc" }

[[technique]]
name = "alc"
policy = { name = "alc", low_ping_ms = 50 }

[[latency]]
latency_ms = 10

[[round]]
name = "first"
map = "arena"
mode = "tdm"
duration = "0:30"
technique = "tlc"

[[question]]
id = "fair"
text = "How fair was it?"
kind = "fairness"
`

func TestParseValid(t *testing.T) {
	s, err := Parse("pilot.toml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Seats()) != 4 || s.Seats()[0].Code != "A1" || s.Seats()[3].Index != 3 {
		t.Errorf("seats %+v, want 4 with seat 0 coded A1", s.Seats())
	}
	p := s.Plans()[0]
	if p.Duration != 30*time.Second || p.Links[2].LatencyMS != 10 || p.Technique.Name != "tlc" {
		t.Errorf("round %+v: want 30 s, 10 ms on every seat, technique tlc", p)
	}
}

func TestDurations(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10:00", 10 * time.Minute, true}, {"0:50", 50 * time.Second, true}, {"99:59", 99*time.Minute + 59*time.Second, true},
		{"50s", 50 * time.Second, true}, {"1m30s", 90 * time.Second, true},
		{"100:00", 0, false}, {"1:60", 0, false}, {"1:5", 0, false}, {"-1:00", 0, false}, {"ten", 0, false}, {"", 0, false},
	} {
		var d Duration
		err := d.UnmarshalText([]byte(c.in))
		if (err == nil) != c.ok || (c.ok && time.Duration(d) != c.want) {
			t.Errorf("%q: %v, %v; want %v (ok %v)", c.in, time.Duration(d), err, c.want, c.ok)
		}
	}
}

// TestParseErrors: each broken schedule is refused at the line, column
// and key of its problem, with a message that says what would do.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"no name", `name = "pilot"`, ``, `pilot.toml:1:1: name: missing`},
		{"unknown field", `name = "pilot"`, "name = \"pilot\"\ncolour = 1", `pilot.toml:2:1: colour: unknown field`},
		{"duplicate key", `name = "pilot"`, "name = \"pilot\"\nname = \"again\"", `pilot.toml:2:1: name:`},
		{"unknown map", `map = "arena"`, `map = "moon"`, `pilot.toml:22:1: round[0].map: no shipped map "moon" (have arena, courtyard, metro)`},
		{"missing map file", `map = "arena"`, `map = "nowhere.json"`, `round[0].map:`},
		{"unknown mode", `mode = "tdm"`, `mode = "race"`, `round[0].mode: unknown mode "race", want one of ffa, tdm, ctf, dom`},
		{"unknown policy", `policy = { name = "tlc" }`, `policy = { name = "magic" }`,
			`pilot.toml:11:12: technique[0].policy.name: unknown policy "magic", want none, tlc, clc, alc or alc-predict`},
		{"policy parameter", `low_ping_ms = 50`, `low_ping_ms = -5`, `technique[1].policy:`},
		{"unknown delay mode", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\ndelay = { mode = \"lots\" }",
			`technique[0].delay.mode: unknown delay mode "lots", want none, delay or adaptive`},
		{"adaptation without adaptive", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\ndelay = { mode = \"delay\", adaptation = \"1s\" }",
			`technique[0].delay.adaptation: only adaptive delay adapts`},
		{"adaptation out of range", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\ndelay = { mode = \"adaptive\", adaptation = \"30s\" }",
			`technique[0].delay.adaptation:`},
		{"unknown replication", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\nreplication = \"psychic\"",
			`technique[0].replication: unknown replication "psychic", want full, dead or led`},
		{"unknown display", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\ndisplay = \"crystal\"",
			`technique[0].display: unknown display mode "crystal", want interpolate, extrapolate, opponent-predict or dead-reckon`},
		{"prediction against display", `policy = { name = "tlc" }`, "policy = { name = \"tlc\" }\nprediction = true\ndisplay = \"interpolate\"",
			`technique[0].prediction: prediction draws opponents extrapolated, but display is interpolate`},
		{"time warp needs policy none", `technique = "tlc"`, "technique = \"warp\"\n[[technique]]\nname = \"warp\"\ntime_warp = \"500ms\"",
			`round[0].technique: technique "warp" in mode tdm:`},
		{"duplicate technique", `name = "alc"`, `name = "tlc"`, `technique[1].name: "tlc" names an earlier technique`},
		{"unknown technique", `technique = "tlc"`, `technique = "tcl"`, `pilot.toml:25:1: round[0].technique: unknown technique "tcl", want one of tlc, alc`},
		{"no technique named", `technique = "tlc"`, ``, `round[0].technique: missing: the schedule has several techniques (tlc, alc)`},
		{"duration too short", `duration = "0:30"`, `duration = "500ms"`, `round[0].duration: 500ms, want 1s to 99:59`},
		{"duration too long", `duration = "0:30"`, `duration = "2h"`, `round[0].duration: 2h0m0s, want 1s to 99:59`},
		{"bad duration text", `duration = "0:30"`, `duration = "0:75"`, `round[0].duration: duration "0:75"`},
		{"warm-up too long", `duration = "0:30"`, "duration = \"0:30\"\nwarmup = \"11m\"", `round[0].warmup: 11m0s, want 0 to 10m`},
		{"unknown seat", `latency_ms = 10`, "latency_ms = 10\nseats = [4]", `pilot.toml:19:1: latency[0].seats: no seat 4: the study's seats are 0 to 3`},
		{"round unknown seat", `technique = "tlc"`, "technique = \"tlc\"\nlatency = [{ seats = [-1], latency_ms = 5 }]", `round[0].latency[0].seats: no seat -1`},
		{"latency out of range", `latency_ms = 10`, `latency_ms = 9000`, `latency[0].latency_ms: 9000, want 0 to 2500 (one way)`},
		{"loss out of range", `latency_ms = 10`, "latency_ms = 10\nloss = 1.5", `latency[0].loss: 1.5, want 0 to 1`},
		{"jitter out of range", `latency_ms = 10`, "latency_ms = 10\njitter_ms = -1", `latency[0].jitter_ms: -1, want 0 to 1000`},
		{"unknown weapon", `technique = "tlc"`, "technique = \"tlc\"\nweapons = [\"banana\"]", `round[0].weapons[0]: unknown weapon "banana", want one of rifle, sniper, pistol, shotgun, rocket, p250`},
		{"code for many seats", `count = 3`, "count = 3\ncode = \"B\"", `seat[1].code: a code names one seat, but count is 3`},
		{"duplicate code", `count = 3`, `code = "A1"`, `seat[1].code: "A1" is given to an earlier seat`},
		{"duplicate code in another case", `count = 3`, `code = "a1"`, `seat[1].code: "a1" is given to an earlier seat (codes are compared ignoring case)`},
		{"bad code", `code = "A1"`, `code = "A 1"`, `seat[0].code: "A 1": want 1 to 32 letters`},
		{"too many seats", `count = 3`, `count = 200`, `seat[1].count: 200, want 1 to 128`},
		{"no seats", "[[seat]]\ncode = \"A1\"\n\n[[seat]]\ncount = 3\n", ``, `seat: no [[seat]] table`},
		{"no rounds", `[[round]]`, `[[unused]]`, `unused: unknown field`},
		{"question kind", `kind = "fairness"`, `kind = "stars"`, `question[0].kind: "stars", want one of yesno, likert, likert7, fairness, scale, number, choice, text`},
		{"question id", `id = "fair"`, `id = "Fair Play"`, `question[0].id: "Fair Play": want 1 to 32 lower-case letters`},
		{"question text", `text = "How fair was it?"`, ``, `question[0].text: missing`},
		{"bot skill", `name = "pilot"`, "name = \"pilot\"\nbot_skill = 2", `bot_skill: 2, want 0 to 1`},
		{"missing weapons file", `name = "pilot"`, "name = \"pilot\"\nweapons_file = \"none.toml\"", `round[0].weapons: weapons_file:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(valid, c.old, c.new, 1)
			if text == valid {
				t.Fatalf("the case changes nothing: %q not in the schedule", c.old)
			}
			_, err := Parse("pilot.toml", []byte(text))
			if err == nil {
				t.Fatalf("accepted; want %q", c.want)
			}
			var ce *cfgfile.Error
			if !errors.As(err, &ce) {
				t.Fatalf("%v (%T) is not a *cfgfile.Error", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

func TestParseRefusesLargeFile(t *testing.T) {
	big := valid + "#" + strings.Repeat("x", MaxFileSize) + "\n"
	_, err := Parse("big.toml", []byte(big))
	if err == nil || !strings.Contains(err.Error(), "larger than 256 KiB") {
		t.Errorf("error %v, want the size limit", err)
	}
}

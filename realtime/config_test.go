package realtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/world"
)

func TestParseFile(t *testing.T) {
	f, err := ParseFile("ok.toml", []byte(`
[[match]]
name = "study"
map = "metro"
mode = "ctf"
duration = "10m"
tick_rate = 128
bots = 4
replication = "dead"
time_warp = "0s"

[match.policy]
name = "clc"
max_rtt_ms = 150

[match.delay]
mode = "adaptive"
adaptation = "1s"

[[match.latency]]
player = "2"
up = { latency_ms = 125, jitter_ms = 5 }
down = { latency_ms = 125, loss = 0.01 }
`))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Matches[0]
	if time.Duration(m.Duration) != 10*time.Minute || m.TickRate != 128 || m.Policy.MaxRTTms != 150 ||
		time.Duration(m.Delay.Adaptation) != time.Second || m.Latency[0].Down.Loss != 0.01 {
		t.Errorf("parsed %+v", m)
	}
}

// TestParseFileErrors checks that each problem with a configuration file
// is reported at its line and column, under its key as the file spells it.
func TestParseFileErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown", "[[match]]\nmap = \"metro\"\ntickrate = 64\n", "unknown.toml:3:1: match[0].tickrate: unknown field"},
		{"type", "[[match]]\nseats = \"many\"\n", "type.toml:2:1: match[0].seats: want an integer, got a string"},
		{"duration", "[[match]]\nduration = \"ten minutes\"\n", `duration.toml:2:1: match[0].duration: duration "ten minutes": want a number with a unit`},
		{"range", "[[match]]\n\n[[match]]\ntick_rate = 500\n", "range.toml:4:1: match[1].tick_rate: 500, want 20 to 128"},
		{"overflow", "[[match]]\nseed = -1\n", "overflow.toml:2:1: match[0].seed: -1 is out of range (0 to 18446744073709551615)"},
		{"twice", "[[match]]\ntick_rate = 64\ntick_rate = 32\n", "twice.toml:3:1: match[0].tick_rate: given twice (first on line 2)"},
		{"bots", "[[match]]\nseats = 4\nbots = 5\n", "bots.toml:3:1: match[0].bots: 5, want 0 to seats (4)"},
		{"map", "[[match]]\nmap = \"atlantis\"\n", `map.toml:2:1: match[0].map: no shipped map "atlantis"`},
		{"mode", "[[match]]\nmode = \"quake\"\n", `mode.toml:2:1: match[0].mode: unknown mode "quake"`},
		{"policy", "[[match]]\n[match.policy]\nname = \"magic\"\n", `policy.toml:3:1: match[0].policy.name: unknown policy "magic"`},
		{"low", "[[match]]\n[match.policy]\nname = \"alc\"\nlow_ping_ms = -5\n", "low.toml:4:1: match[0].policy.low_ping_ms: policy alc: low_ping_ms -5 is negative"},
		{"nan", "[[match]]\npolicy = { name = \"clc\", max_rtt_ms = nan }\n", "nan.toml:2:26: match[0].policy.max_rtt_ms: policy clc: max_rtt_ms is NaN"},
		{"adapt", "[[match]]\n[match.delay]\nmode = \"adaptive\"\nadaptation = \"1m\"\n", "adapt.toml:4:1: match[0].delay.adaptation: adaptation 1m0s outside 0..10s"},
		{"trigger", "[[match]]\n[match.delay]\nmode = \"adaptive\"\ntrigger = \"smell\"\n", `trigger.toml:4:1: match[0].delay.trigger: unknown trigger "smell", want proximity, fov or proximity-or-fov`},
		{"warp", "[[match]]\nmode = \"ctf\"\ntime_warp = \"100ms\"\n", "warp.toml:3:1: match[0].time_warp: time warp supports modes ffa and tdm, not ctf"},
		{"latency", "[[match]]\n[[match.latency]]\nplayer = \"1\"\nup = { latency_ms = -5 }\n", "latency.toml:4:8: match[0].latency[0].up.latency_ms: -5, want 0 to 5000"},
		{"who", "[[match]]\n[[match.latency]]\nup = { latency_ms = 5 }\n", "who.toml:2:3: match[0].latency[0].player: missing"},
		{"empty", "", "empty.toml:1:1: match: no [[match]] table"},
		{"display", "[[match]]\ndisplay = \"blur\"\n", `display.toml:2:1: match[0].display: unknown display mode "blur"`},
		{"feedback", "[[match]]\nfeedback = \"telepathy\"\n", `feedback.toml:2:1: match[0].feedback: unknown feedback "telepathy"`},
		{"placebo", "[[match]]\nfeedback = \"ping\"\nplacebo_ms = 20\n", `placebo.toml:2:1: match[0].feedback: placebo_ms and placebo_scale apply only to feedback placebo`},
		{"scaling", "[[match]]\nscaling = { name = \"huge\" }\n", `scaling.toml:2:1: match[0].scaling: unknown scaling mode "huge"`},
		{"assist", "[[match]]\naim_assist = { name = \"magnetism\", cone_deg = 90 }\n", `assist.toml:2:1: match[0].aim_assist: mode magnetism: cone_deg is 90`},
		{"displayed", "[[match]]\nreplication = \"dead\"\ndisplay = \"extrapolate\"\n", "displayed.toml:3:1: match[0].display: replication dead draws players by its own dead reckoning"},
		{"large", "[[match]]\nname = \"" + strings.Repeat("x", MaxFileSize) + "\"\n", "large.toml: larger than 1 MiB, the limit for a serve config file"},
	}
	for _, tc := range cases {
		_, err := ParseFile(tc.name+".toml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to start with %q", tc.name, err, tc.want)
		}
	}
}

// TestDecodeJSON checks the HTTP API's bodies: a match and a latency
// rule list, refused as strictly as a configuration file and located in
// the body.
func TestDecodeJSON(t *testing.T) {
	c, doc, err := DecodeMatch("body", []byte(`{"map": "arena", "tick_rate": 32, "duration": "90s"}`))
	if err != nil || c.Map != "arena" || c.TickRate != 32 || time.Duration(c.Duration) != 90*time.Second {
		t.Fatalf("DecodeMatch: %+v, %v", c, err)
	}
	if _, p := c.resolve(); p != nil {
		t.Fatalf("resolve: %v", doc.Locate(p))
	}
	// The display and prediction a match mandates reach its server.
	c.Display, c.PredictionOff = "opponent-predict", true
	if r, p := c.resolve(); p != nil || r.server.Settings.Display != "opponent-predict" || !r.server.Settings.PredictionOff {
		t.Fatalf("mandated display and prediction: %+v, %v", r.server.Settings, p)
	}
	cases := []struct{ name, body, want string }{
		{"unknown", `{"map": "metro", "tickrate": 32}`, "body:1:18: tickrate: unknown field"},
		{"type", `{"tick_rate": "fast"}`, "body:1:15: tick_rate: want an integer, got a string"},
		{"range", `{"map": "metro", "tick_rate": 500}`, "body:1:31: tick_rate: 500, want 20 to 128"},
		{"twice", `{"seats": 3, "seats": 4}`, "body:1:14: seats: given twice"},
		{"rule", `{"latency": [{"player": "1", "up": {"loss": 2}}]}`, "body:1:45: latency[0].up.loss: 2, want 0 to 1"},
		{"duplicate", `{"latency": [{"player": "1", "down": {"duplicate": -0.1}}]}`, "body:1:52: latency[0].down.duplicate: -0.1, want 0 to 1"},
		{"reorder", `{"latency": [{"player": "1", "up": {"reorder": 1.5}}]}`, "body:1:48: latency[0].up.reorder: 1.5, want 0 to 1"},
		{"large", `{"name": "` + strings.Repeat("x", MaxMatchJSON) + `"}`, "body: larger than 64 KiB, the limit for a match config"},
	}
	for _, tc := range cases {
		c, doc, err := DecodeMatch("body", []byte(tc.body))
		if err == nil {
			// What Host.Start finds, placed as the HTTP API places it.
			var ce *ConfigError
			if _, err = newMatch("1", c, nil, nil, matchKeys{}, ""); errors.As(err, &ce) {
				err = doc.Locate(ce.Problem)
			}
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to start with %q", tc.name, err, tc.want)
		}
	}
	if _, err := DecodeLatency("body", []byte(`[{"player": "2"}, {"player": "3", "down": {"jitter_ms": 2000}}]`)); err == nil ||
		err.Error() != "body:1:57: [1].down.jitter_ms: 2000, want 0 to 1000" {
		t.Errorf("DecodeLatency: %v", err)
	}
}

// FuzzParseFile: any input gives a configuration or a located
// *cfgfile.Error, never a panic.
func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		"[[match]]\nmap = \"arena\"\ntick_rate = 32\n",
		"[[match]]\n[match.policy]\nname = \"clc\"\nmax_rtt_ms = 150\n",
		"[[match]]\n[[match.latency]]\nplayer = \"1\"\nup = { latency_ms = 50 }\n",
		"[[match]]\nseats = 4\nbots = 5\n",
		"[[match]]\ntick_rate = 64\ntick_rate = 32\n",
		"[match]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile("fuzz.toml", data)
		var ce *cfgfile.Error
		switch {
		case err != nil && !errors.As(err, &ce):
			t.Fatalf("error %T %v, want a *cfgfile.Error", err, err)
		case err == nil && len(file.Matches) == 0:
			t.Fatal("accepted a file without matches")
		}
	})
}

// TestMatchMovementHook: a program's movement rules and step function
// reach the server core; bad rules are a problem under their key.
func TestMatchMovementHook(t *testing.T) {
	p := game.DefaultParams()
	p.WalkSpeed = 7
	calls := 0
	step := func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		calls++
		return ctx.Step(s, cmd)
	}
	c := MatchConfig{Movement: &p, Step: step}
	r, prob := c.resolve()
	if prob != nil {
		t.Fatal(prob)
	}
	if r.server.Movement.WalkSpeed != 7 || r.params.WalkSpeed != 7 {
		t.Fatalf("walk speed %v, %v: want the program's 7", r.server.Movement.WalkSpeed, r.params.WalkSpeed)
	}
	r.server.Step(game.PlayerState{}, game.UserCmd{}, &game.StepCtx{Grid: r.server.Map.Grid, Params: r.server.Movement})
	if calls != 1 {
		t.Fatalf("the server's step ran the program's %d times, want 1", calls)
	}
	p.WalkSpeed = -1
	if _, prob := c.resolve(); prob == nil || prob.Path != "movement" {
		t.Fatalf("negative walk speed: %v", prob)
	}
}

// TestWorldNamesTheMap: a match given its World and no Map is named by
// the world it plays (it was called metro in logs and the API), and led
// replication, which needs a shipped map's trend maps, is refused for a
// world without them rather than reckoning by metro's.
func TestWorldNamesTheMap(t *testing.T) {
	c := MatchConfig{World: world.Field()}
	r, p := c.resolve()
	if p != nil || r.cfg.Map != "open" {
		t.Fatalf("map %q, problem %v; want the world's name, open", r.cfg.Map, p)
	}
	c.Replication = "led"
	if _, p := c.resolve(); p == nil || p.Path != "replication" {
		t.Errorf("led replication on the open field: problem %v, want one on replication", p)
	}
}

package realtime

import (
	"strings"
	"testing"
	"time"
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
	cases := []struct{ name, text, want string }{
		{"unknown", "[[match]]\nmap = \"metro\"\ntickrate = 64\n", `unknown.toml:3:1: unknown field "match.tickrate"`},
		{"duration", "[[match]]\nduration = \"ten minutes\"\n", `duration.toml:2:`},
		{"type", "[[match]]\nseats = \"many\"\n", `type.toml:2:`},
		{"map", "[[match]]\nmap = \"atlantis\"\n", `map.toml: match 1: `},
		{"rate", "[[match]]\ntick_rate = 500\n", "tick rate 500 outside 20..128"},
		{"bots", "[[match]]\nseats = 4\nbots = 5\n", "bots 5 outside 0..seats (4)"},
		{"policy", "[[match]]\n[match.policy]\nname = \"magic\"\n", "magic"},
		{"latency", "[[match]]\n[[match.latency]]\nplayer = \"1\"\nup = { latency_ms = -5 }\n", "latency 1 (1): up: latency -5 ms"},
		{"who", "[[match]]\n[[match.latency]]\nup = { latency_ms = 5 }\n", "player is empty"},
		{"empty", "", "no [[match]] table"},
	}
	for _, tc := range cases {
		_, err := ParseFile(tc.name+".toml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

package study

import (
	"strconv"
	"strings"
	"testing"
)

// TestLowPingArms: a technique that judges low-ping victims apart (alc)
// is refused where no participant can be one, since it would play as
// tlc; techniques that judge them apart agree on the round trip, which
// is the report's low-ping round trip too.
func TestLowPingArms(t *testing.T) {
	const head = `name = "arms"

[[seat]]
count = 2

[[seat]]
bot = true

[[technique]]
name = "tlc"

[[technique]]
name = "alc"
policy = { name = "alc"ALC }
`
	round := func(tech string, ms int, seats string) string {
		return "\n[[round]]\nmap = \"arena\"\nmode = \"tdm\"\nduration = \"0:30\"\ntechnique = \"" + tech + "\"\n" +
			"latency = [{ latency_ms = " + strconv.Itoa(ms) + seats + " }]\n"
	}
	cases := []struct {
		name, alc, rounds, want string
		lowPing                 float64
	}{
		{"alc above its low ping", "", round("tlc", 40, "") + round("alc", 40, ""),
			`technique "alc" (policy alc) judges victims apart at a round trip up to 50 ms, but the participants play its rounds at 80 ms: none is judged apart and it plays as tlc`, 0},
		{"alc at its raised low ping", ", low_ping_ms = 100", round("tlc", 40, "") + round("alc", 40, ""), "", 100},
		{"a participant at the low ping", "", round("alc", 40, "") + round("alc", 20, ", seats = [1]"), "", 50},
		{"only the bot low", "", round("alc", 40, "") + round("alc", 40, ", seats = [0, 1] }, { latency_ms = 5, seats = [2]"),
			`but the participants play its rounds at 80 ms`, 0},
		{"moved by the design into a low round", "", round("tlc", 10, "") + round("alc", 40, "") +
			"\n[counterbalance]\ndesign = \"latin\"\nfactors = [\"technique\"]\n", "", 50},
		{"moved with its latency", "", round("tlc", 10, "") + round("alc", 40, "") +
			"\n[counterbalance]\ndesign = \"latin\"\nfactors = [\"technique\", \"latency\"]\n",
			`but the participants play its rounds at 80 ms`, 0},
		{"not played", "", round("tlc", 40, ""), "", 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(head, "ALC", c.alc, 1) + c.rounds
			s, err := Parse("arms.toml", []byte(text))
			switch {
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "" && s.LowPingMS() != c.lowPing:
				t.Errorf("low ping %v ms, want %v", s.LowPingMS(), c.lowPing)
			}
		})
	}
	two := strings.Replace(head, "ALC", "", 1) + "\n[[technique]]\nname = \"alc2\"\npolicy = { name = \"alc-predict\", low_ping_ms = 100 }\n" +
		round("alc", 10, "") + round("alc2", 10, "")
	if _, err := Parse("arms.toml", []byte(two)); err == nil ||
		!strings.Contains(err.Error(), `technique "alc" judges victims apart at a round trip up to 50 ms, "alc2" up to 100 ms: the report's low-ping victims need one round trip`) {
		t.Errorf("two low pings: %v", err)
	}
}

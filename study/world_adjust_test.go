package study

import (
	"strings"
	"testing"
)

// TestWorldAdjustmentAndFeedback: a technique's attribute scaling, aim
// assistance and feedback are read, checked and written in its setting;
// bad ones are refused with the key that is wrong.
func TestWorldAdjustmentAndFeedback(t *testing.T) {
	src := strings.Replace(valid, `policy = { name = "alc", low_ping_ms = 50 }`,
		`policy = { name = "alc", low_ping_ms = 50 }
scaling = { name = "linear", per_second = 1.5 }
aim_assist = { name = "magnetism" }
feedback = "placebo"
placebo_ms = 30`, 1)
	s, err := Parse("pilot.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, tech := range s.Techniques {
		if tech.Name == "alc" {
			got = tech.String()
		}
	}
	for _, want := range []string{" scaling=linear per_second=1.5", " aim_assist=magnetism", " feedback=placebo placebo_ms=30"} {
		if !strings.Contains(got, want) {
			t.Errorf("setting %q lacks %q", got, want)
		}
	}
	for _, c := range []struct{ add, want string }{
		{`scaling = { name = "huge" }`, `scaling.name: unknown scaling mode "huge"`},
		{`scaling = { name = "fixed", factor = 9 }`, `technique[1].scaling: mode fixed: factor is 9`},
		{`aim_assist = { name = "aimbot" }`, `aim_assist: unknown aim assistance mode "aimbot"`},
		{`feedback = "telepathy"`, `technique[1].feedback: unknown feedback "telepathy", want none, ping, netgraph or placebo`},
		{"feedback = \"ping\"\nplacebo_ms = 20", `placebo_ms and placebo_scale apply only to feedback placebo`},
		{"feedback = \"placebo\"\nplacebo_scale = -1", `placebo_scale: -1`},
	} {
		bad := strings.Replace(valid, `policy = { name = "alc", low_ping_ms = 50 }`, "policy = { name = \"alc\", low_ping_ms = 50 }\n"+c.add, 1)
		if _, err := Parse("pilot.toml", []byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.add, err, c.want)
		}
	}
}

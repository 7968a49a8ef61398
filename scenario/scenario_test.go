package scenario

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/lagcomp"
)

// TestShippedScenarios runs every shipped scenario under every policy and
// checks the outcomes its file expects. The scenarios are data; this is
// the loop.
func TestShippedScenarios(t *testing.T) {
	files, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(files) < 6 {
		t.Fatalf("found %d scenario files (%v)", len(files), err)
	}
	for _, path := range files {
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Policies(); !reflect.DeepEqual(got, lagcomp.Names()) {
			t.Errorf("%s: expectations for %v, want every policy %v", path, got, lagcomp.Names())
		}
		for _, p := range f.Policies() {
			t.Run(filepath.Base(path)+"/"+p, func(t *testing.T) {
				cfg := f.Policy
				cfg.Name = p
				res, err := f.Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range f.Check(res) {
					t.Error(bad)
				}
			})
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	f, err := Load("../scenarios/cover-dash.toml")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Run(lagcomp.Config{Name: "alc"})
	b, _ := f.Run(lagcomp.Config{Name: "alc"})
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
}

func TestParseErrors(t *testing.T) {
	base := `name = "x"
map = "metro"
[[player]]
name = "a"
pos = [0, 0, 0]
`
	cases := []struct {
		name, text, want string
	}{
		{"syntax", "name = \n", "bad.toml:1:"},
		{"unknown field", base + "colour = 1\n", `bad.toml:6:1: unknown field "player.colour"`},
		{"missing name", `map = "metro"`, "bad.toml: name: missing"},
		{"unknown map", `name = "x"` + "\nmap = \"nowhere\"\n", "bad.toml: map:"},
		{"unknown policy", base + "[policy]\nname = \"magic\"\n", `bad.toml: policy: lagcomp: unknown policy "magic"`},
		{"bad duration", base + "[[player.do]]\nat = \"soon\"\n", `duration "soon"`},
		{"aim at nobody", base + "[[player.do]]\nat = \"1s\"\naim_at = \"ghost\"\n", `player[0] (a).do[0].aim_at: no player "ghost"`},
		{"out of bounds", strings.Replace(base, "[0, 0, 0]", "[9999, 0, 0]", 1), "player[0] (a).pos"},
		{"negative rtt", base + "rtt_ms = -5\n", "player[0] (a).rtt_ms: -5 outside"},
		{"bad appeals", base + "appeals = \"maybe\"\n", `appeals: "maybe"`},
		{"bad expectation", base + "[[expect]]\npolicy = \"tlc\"\nshot = 0\n", "expect[0].shot: 0"},
		{"duplicate player", base + "[[player]]\nname = \"a\"\npos = [1, 1, 0]\n", `player[1].name: "a" is empty or not unique`},
	}
	for _, tc := range cases {
		_, err := Parse("bad.toml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

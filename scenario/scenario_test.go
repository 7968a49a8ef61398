package scenario

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/internal/cfgfile"
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
		if got := f.Policies(); !reflect.DeepEqual(got, lagcomp.Policies.Names()) {
			t.Errorf("%s: expectations for %v, want every policy %v", path, got, lagcomp.Policies.Names())
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
		{"syntax", "name = \n", "bad.toml:1:8: name: unexpected character U+000A at start of value"},
		{"truncated", base + "appeals = \"hon", "bad.toml:6:14: player[0].appeals: unexpected end of file (unterminated basic string)"},
		{"unknown field", base + "colour = 1\n", "bad.toml:6:1: player[0].colour: unknown field"},
		{"unknown expectation field", base + "[[expect]]\npolicy = \"tlc\"\nshot = 1\nsbc_count = 1\n",
			"bad.toml:9:1: expect[0].sbc_count: unknown field"},
		{"wrong type", base + "rtt_ms = \"fast\"\n", "bad.toml:6:1: player[0].rtt_ms: want a number, got a string"},
		{"short vector", strings.Replace(base, "[0, 0, 0]", "[0, 0]", 1), "bad.toml:5:1: player[0].pos: want 3 values, got 2"},
		{"duplicate key", base + "rtt_ms = 5\nrtt_ms = 6\n", "bad.toml:7:1: player[0].rtt_ms: given twice (first on line 6)"},
		{"too large", strings.Repeat("#", MaxFileSize+1), "bad.toml: larger than 256 KiB, the limit for a scenario file"},
		{"missing name", `map = "metro"`, "bad.toml:1:1: name: missing"},
		{"unknown map", `name = "x"` + "\nmap = \"nowhere\"\n", `bad.toml:2:1: map: no shipped map "nowhere" (have arena, courtyard, metro)`},
		{"unknown policy", base + "[policy]\nname = \"magic\"\n", `bad.toml:6:2: policy: unknown policy "magic", want none, tlc, clc, alc or alc-predict`},
		{"bad duration", base + "[[player.do]]\nat = \"soon\"\n", `bad.toml:7:1: player[0].do[0].at: duration "soon": want a number with a unit, such as 250ms or 2.5s`},
		{"aim at nobody", base + "[[player.do]]\nat = \"1s\"\naim_at = \"ghost\"\n", `bad.toml:8:1: player[0].do[0].aim_at: no player "ghost"`},
		{"out of bounds", strings.Replace(base, "[0, 0, 0]", "[9999, 0, 0]", 1), "bad.toml:5:1: player[0].pos: [9999 0 0] is not inside the map's bounds"},
		{"rtt out of range", base + "rtt_ms = -5\n", "bad.toml:6:1: player[0].rtt_ms: -5, want 0 to 10000"},
		{"interp out of range", base + "interp_ms = 600\n", "bad.toml:6:1: player[0].interp_ms: 600, want 1 to 500"},
		{"interp zero", base + "interp_ms = 0\n", "bad.toml:6:1: player[0].interp_ms: 0, want 1 to 500"},
		{"tick rate out of range", "tick_rate = 500\n" + base, "bad.toml:1:1: tick_rate: 500, want 20 to 128"},
		{"integer too large", "seed = 99999999999999999999\n" + base, "bad.toml:1:1: seed: 99999999999999999999 is out of range (0 to 18446744073709551615)"},
		{"bad appeals", base + "appeals = \"maybe\"\n", `bad.toml:6:1: player[0].appeals: "maybe", want honest, deny or silent`},
		{"expectation of nothing", base + "[[expect]]\npolicy = \"tlc\"\n", "bad.toml:6:3: expect[0]: want shot (the shot to check) or shots (how many are fired)"},
		{"shot fields without a shot", base + "[[expect]]\npolicy = \"tlc\"\nshots = 1\nsbc = true\n",
			"bad.toml:6:3: expect[0].shot: missing: victim, hit, registered, sbc, appeal, rewind_ms and rollback_m are about one shot"},
		{"negative shots", base + "[[expect]]\npolicy = \"tlc\"\nshots = -1\n", "bad.toml:8:1: expect[0].shots: -1, want 0 to 100000"},
		{"inverted range", base + "[[expect]]\npolicy = \"tlc\"\nshot = 1\nrewind_ms = [300, 200]\n",
			"bad.toml:9:1: expect[0].rewind_ms: [300, 200], want [low, high] with 0 <= low <= high"},
		{"range of one", base + "[[expect]]\npolicy = \"tlc\"\nshot = 1\nrollback_m = [0.5]\n",
			"bad.toml:9:1: expect[0].rollback_m: want 2 values, got 1"},
		{"duplicate player", base + "[[player]]\nname = \"a\"\npos = [1, 1, 0]\n", `bad.toml:7:1: player[1].name: "a" is already the name of another player`},
	}
	for _, tc := range cases {
		_, err := Parse("bad.toml", []byte(tc.text))
		var e *cfgfile.Error
		if !errors.As(err, &e) || err.Error() != tc.want {
			t.Errorf("%s: error\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestPlacedYawHolds checks that a player's yaw_deg holds until its
// script turns it: a shooter placed facing +Y (90 degrees), whose map
// spawn faces elsewhere, fires without aiming and hits the player
// standing 10 m along +Y.
func TestPlacedYawHolds(t *testing.T) {
	f, err := Parse("../scenarios/yaw.toml", []byte(`name = "placed yaw"
map = "maps/range.json"
duration = "2s"
[policy]
name = "none"
[[player]]
name = "shooter"
pos = [0, 0, 0]
yaw_deg = 90
  [[player.do]]
  at = "1s"
  fire = 1
[[player]]
name = "victim"
pos = [0, 10, 0]
[[expect]]
policy = "none"
shots = 1
shot = 1
victim = "victim"
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Run(lagcomp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range f.Check(res) {
		t.Error(bad)
	}
}

// TestMapPaths checks where a scenario's map file is looked for: a
// relative path from the scenario file's folder, an absolute path as it
// is.
func TestMapPaths(t *testing.T) {
	abs, err := filepath.Abs("../scenarios/maps/range.json")
	if err != nil {
		t.Fatal(err)
	}
	text := func(m string) []byte {
		return []byte("name = \"x\"\nmap = \"" + m + "\"\n[[player]]\nname = \"a\"\npos = [0, 0, 0]\n")
	}
	elsewhere := filepath.Join(t.TempDir(), "s.toml")
	for _, tc := range []struct {
		scenario, mapFile string
		ok                bool
	}{
		{"../scenarios/s.toml", "maps/range.json", true},
		{elsewhere, abs, true},
		{"../scenarios/s.toml", abs, true},
		{elsewhere, "maps/range.json", false},
	} {
		f, err := Parse(tc.scenario, text(tc.mapFile))
		if ok := err == nil; ok != tc.ok {
			t.Errorf("scenario %s, map %s: error %v, want ok %v", tc.scenario, tc.mapFile, err, tc.ok)
			continue
		}
		if tc.ok && f.world.Name != "range" {
			t.Errorf("scenario %s, map %s: loaded %q", tc.scenario, tc.mapFile, f.world.Name)
		}
	}
	if got := mapPath("/a/b/s.toml", "/c/m.json"); got != "/c/m.json" {
		t.Errorf("absolute map path became %s", got)
	}
	if got := mapPath("/a/b/s.toml", "maps/m.json"); got != "/a/b/maps/m.json" {
		t.Errorf("relative map path became %s", got)
	}
}

// TestInterpDelayMovesTheRewind checks that a player's interp_ms reaches
// its client: under tlc the server rewinds a shot by the shooter's
// round trip plus its interpolation delay, so 200 ms more delay rewinds
// about 200 ms further.
func TestInterpDelayMovesTheRewind(t *testing.T) {
	rewind := func(interp string) float64 {
		f, err := Load("../scenarios/standing-target.toml")
		if err != nil {
			t.Fatal(err)
		}
		if interp != "" {
			var v float64
			fmt.Sscan(interp, &v)
			f.Players[0].InterpMS = &v
		}
		res, err := f.Run(lagcomp.Config{Name: "tlc"})
		if err != nil || len(res.Shots) != 1 {
			t.Fatalf("interp %s: %v, %d shots", interp, err, len(res.Shots))
		}
		return res.Shots[0].RewindMS
	}
	def, short, long := rewind(""), rewind("50"), rewind("250")
	if d := long - short; math.Abs(d-200) > 20 {
		t.Errorf("rewind %.1f ms at 50 ms delay, %.1f ms at 250 ms: %.1f apart, want about 200", short, long, d)
	}
	if !(def > short && def < long) {
		t.Errorf("rewind %.1f ms at the default 100 ms delay, want between %.1f and %.1f", def, short, long)
	}
}

// TestCheckCountsAndRanges checks the expectations of a shot count and
// of rewind and rollback ranges against a result.
func TestCheckCountsAndRanges(t *testing.T) {
	two, one := 2, 1
	f := &File{Expect: []Expect{
		{Policy: "tlc", Shots: &two},
		{Policy: "tlc", Shot: 1, RewindMS: &[2]float64{200, 300}, RollbackM: &[2]float64{0, 0.5}},
		{Policy: "alc", Shots: &one},
	}}
	r := &Result{Policy: "tlc", Shots: []Shot{{N: 1, RewindMS: 350, RollbackM: 0.25}}}
	got := f.Check(r)
	want := []string{"tlc: 1 shots fired, want 2", "tlc: shot 1: rewind_ms is 350, want 200 to 300"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Check = %q, want %q", got, want)
	}
	r.Shots = append(r.Shots, Shot{N: 2})
	r.Shots[0].RewindMS = 250
	if got := f.Check(r); len(got) != 0 {
		t.Errorf("Check = %q, want nothing", got)
	}
}

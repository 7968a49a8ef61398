package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run runs the lagkit command line with args and returns its output and
// error.
func run(args ...string) (string, error) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestCommandErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"experiment", "run", "nope"}, `unknown experiment "nope" (known: alc`},
		{[]string{"experiment", "run", "scale", "--shard", "3/2"}, `--shard: experiment: shard "3/2"`},
		{[]string{"experiment", "run", "scale", "--shard", "x"}, `want k/n`},
		{[]string{"experiment", "run", "scale", "--out", filepath.Join(file, "out")}, "--out:"},
		{[]string{"experiment", "merge", t.TempDir()}, "--out is required"},
		{[]string{"match", "--latency", "2=250"}, `--latency: "2=250" is not PLAYER:MS`},
		{[]string{"match", "--loadout", "laser"}, `unknown weapon "laser"`},
		{[]string{"match", "--mode", "golf"}, `unknown mode "golf"`},
		{[]string{"sim", "--loss", "2"}, "loss 2 outside 0..1"},
		{[]string{"scenario", "run", "nowhere.toml"}, "nowhere.toml"},
		{[]string{"trend", "replay"}, "no input: give path files or --from-match N"},
		{[]string{"trend", "replay", "--from-match", "1", "--hold-out", "1"}, "--hold-out 1: want 2 or more"},
		{[]string{"trend", "replay", "--from-match", "1", "--eta-min", "0.5"}, "want 0 < eta-min <= eta <= eta-max"},
		{[]string{"trend", "replay", "--from-match", "1", "--frontier", "0.2,-1"}, "--frontier -1"},
		{[]string{"trend", "replay", "--from-match", "1", "--path-hz", "100"}, "--path-hz 100: want 1 to 64"},
		{[]string{"trend", "replay", file}, "file: empty file"},
	}
	for _, tc := range cases {
		_, err := run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lagkit %s: error %v, want it to contain %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestShardsMerge runs the scale experiment in two shards and merges them.
func TestShardsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment")
	}
	dir := t.TempDir()
	for _, k := range []string{"1/2", "2/2"} {
		if _, err := run("experiment", "run", "scale", "--quick", "--shard", k, "--out", filepath.Join(dir, strings.Replace(k, "/", "of", 1))); err != nil {
			t.Fatal(err)
		}
	}
	out, err := run("experiment", "merge", "--out", filepath.Join(dir, "all"), filepath.Join(dir, "1of2"), filepath.Join(dir, "2of2"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "merged 7 cells from 2 shards") {
		t.Fatalf("merge said %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "all", "report.html")); err != nil {
		t.Fatal(err)
	}
	// A shard alone is not the whole design.
	if _, err := run("experiment", "merge", "--out", filepath.Join(dir, "half"), filepath.Join(dir, "1of2")); err == nil || !strings.Contains(err.Error(), "a shard is missing") {
		t.Fatalf("merging one shard: %v", err)
	}
}

// TestTrendReplay replays a short bot match and checks the report:
// dead reckoning at the middle threshold first, led reckoning next, the
// frontier by threshold trading updates for error.
func TestTrendReplay(t *testing.T) {
	out, err := run("trend", "replay", "--from-match", "1", "--minutes", "0.5", "--seed", "3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep replayReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Players != 4 || rep.Trainers != 8 || !(rep.Seconds > 30) || len(rep.Methods) != 6 {
		t.Fatalf("replayed %d players for %.0f s against %d, %d methods: want 4 of 12 bots, 6 methods", rep.Players, rep.Seconds, rep.Trainers, len(rep.Methods))
	}
	if m := rep.Methods; m[0].Method != "dead" || m[0].EtaM != 0.381 || m[1].Method != "led" || m[1].EtaMinM != 0.095 {
		t.Errorf("first rows %+v, %+v: want dead at 0.381 m, then led from 0.095 m", m[0], m[1])
	}
	frontier := []replayRow{rep.Methods[2], rep.Methods[3], rep.Methods[0], rep.Methods[4], rep.Methods[5]}
	for i := 1; i < len(frontier); i++ {
		a, b := frontier[i-1], frontier[i]
		if !(a.EtaM < b.EtaM && a.UpdatesPerS > b.UpdatesPerS && a.PositionErrorMeanM < b.PositionErrorMeanM) {
			t.Errorf("dead at %.3f m: %.3f/s, %.4f m; at %.3f m: %.3f/s, %.4f m: want fewer updates for more error",
				a.EtaM, a.UpdatesPerS, a.PositionErrorMeanM, b.EtaM, b.UpdatesPerS, b.PositionErrorMeanM)
		}
	}
}

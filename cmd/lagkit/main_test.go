package main

import (
	"bytes"
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

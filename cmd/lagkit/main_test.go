package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/scenario"
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
		{[]string{"experiment", "merge", "--out", filepath.Join(t.TempDir(), "m"), filepath.Dir(file)}, "holds no results.json: give the --out folders of 'experiment run --shard k/n'"},
		{[]string{"match", "--latency", "2=250"}, `--latency: "2=250" is not PLAYER:MS`},
		{[]string{"match", "--loadout", "laser"}, `unknown weapon "laser"`},
		{[]string{"match", "--mode", "golf"}, `--mode "golf": want ffa, tdm, ctf or dom`},
		{[]string{"sim", "--loss", "2"}, "--loss 2: want 0 to 1"},
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

// runExit runs the command line as the lagkit binary would and returns
// its exit code, stdout and stderr.
func runExit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(t.Context(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestExitCodes checks the exit status and the message a person sees:
// usage errors exit 2, failed expectations and other errors 1, success 0;
// messages carry no Go package prefixes or slice syntax.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	// standing-target.toml with one expectation turned false: shot 1 is
	// registered under none, so the check fails.
	src, err := os.ReadFile("../../scenarios/standing-target.toml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "policy = \"none\"\nshot = 1\nvictim = \"victim\"\nregistered = true", "policy = \"none\"\nshot = 1\nvictim = \"victim\"\nregistered = false", 1)
	mapData, err := os.ReadFile("../../scenarios/maps/range.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "maps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "maps", "range.json"), mapData, 0o644); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string // in stderr; "" for none
	}{
		{[]string{"experiment", "list"}, 0, ""},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"experiment", "nope"}, 2, `unknown command "nope" for lagkit experiment (commands: list, merge, run)`},
		{[]string{"experiment"}, 2, "lagkit experiment needs a command: list, merge, run"},
		{[]string{"experiment", "run"}, 2, "lagkit experiment run: accepts 1 arg(s), received 0 (usage: lagkit experiment run NAME [flags])"},
		{[]string{"match", "--nope"}, 2, "unknown flag: --nope"},
		{[]string{"flood"}, 2, `required flag(s) "target" not set`},
		{[]string{"study", "run", "../../presets/alc.toml", "--answer-wait", "-1s"}, 2, "--answer-wait -1s: want more than 0"},
		{[]string{"trend", "build", "--from-match", "1", "--mode", "golf"}, 2, `--mode "golf": want ffa, tdm, ctf or dom`},
		{[]string{"trend", "build", "--team", "2", "--from-match", "1", "--minutes", "0.1"}, 2, "--team 2: no path sample is of that team (teams found: 0, 1)"},
		{[]string{"trend", "build", "--minutes", "3", "x.csv"}, 2, "--minutes applies only with --from-match N"},
		{[]string{"trend", "replay", "--seed", "3", "x.csv"}, 2, "--seed applies only with --from-match N"},
		{[]string{"serve", "--log-format", "xml"}, 2, `--log-format "xml": want auto, text or json`},
		{[]string{"serve", "--cert", "c.pem"}, 2, "--cert and --key go together"},
		{[]string{"serve", "--cert", "c.pem", "--key", "k.pem", "--listen", ""}, 2, "--cert and --key are for --listen, which is off"},
		{[]string{"serve", "--listen", "", "--udp", "", "--http", "", "--admin", ""}, 2, "--listen, --udp, --http and --admin are all off"},
		{[]string{"serve", "--token-key", "k", "--udp", "127.0.0.1:1"}, 2, "--token-key needs --tokens"},
		{[]string{"bots", "--connect", "tcp://127.0.0.1:4000"}, 2, `unknown scheme "tcp"`},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--server", "127.0.0.1:4001"}, 2, `--server "127.0.0.1:4001": want an http://HOST:PORT URL`},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--token-url", "/api/matches/1/tokens"}, 2, `--token-url "/api/matches/1/tokens": want an http://HOST:PORT URL`},
		{[]string{"bots", "--connect", "wt://127.0.0.1:4000", "--cert-hash", "abcd"}, 2, `--cert-hash "abcd": want the 32-byte SHA-256 in hex`},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--cert-hash", strings.Repeat("ab", 32)}, 2, "--cert-hash applies only to wt:// and wss://, not udp://"},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--skill", "2"}, 2, "--skill 2: want 0 to 1"},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--duration", "0s"}, 2, "--duration 0s: want more than 0"},
		{[]string{"study", "export"}, 2, `required flag(s) "out" not set`},
		{[]string{"match", "--bots", "x"}, 2, `invalid argument "x" for "--bots" flag: invalid syntax`},
		{[]string{"match", "--bots", "0"}, 2, "--bots 0: want 1 to 128"},
		{[]string{"match", "--duration", "0s"}, 2, "--duration 0s: want more than 0"},
		{[]string{"match", "--tick", "0"}, 2, "--tick 0: want 20 to 128"},
		{[]string{"match", "--skill", "0"}, 2, "--skill 0: want more than 0, up to 1"},
		{[]string{"match", "--low-ping-ms", "0"}, 2, "--low-ping-ms 0: want more than 0 (50 when not given)"},
		{[]string{"match", "--max-rtt-ms", "0"}, 2, "--max-rtt-ms 0: want more than 0, or negative for no cap"},
		{[]string{"match", "--policy", "magic"}, 2, `--policy "magic": want none, tlc, clc, alc or alc-predict`},
		{[]string{"match", "--delay", "lots"}, 2, `--delay "lots": want none, delay or adaptive`},
		{[]string{"match", "--latency", "2=250"}, 2, `--latency: "2=250" is not PLAYER:MS`},
		{[]string{"match", "--latency", "12:250"}, 2, "--latency: player 12: want 0 to 11 (--bots 12)"},
		{[]string{"match", "--latency", "2:-1"}, 2, "--latency: player 2: -1 ms, want 0 to 5000"},
		{[]string{"match", "--bots", "500"}, 2, "--bots 500: want 1 to 128"},
		{[]string{"match", "--tick", "5"}, 2, "--tick 5: want 20 to 128 (Hz)"},
		{[]string{"match", "--duration", "25h"}, 2, "--duration 25h0m0s: want at most 24h"},
		{[]string{"match", "--rtt", "-1"}, 2, "--rtt -1: want 0 to 5000 (ms)"},
		{[]string{"match", "--loss", "NaN"}, 2, "--loss NaN: want 0 to 1"},
		{[]string{"match", "--high-ping-fraction", "2"}, 2, "--high-ping-fraction 2: want 0 to 1"},
		{[]string{"match", "--high-ping-ms", "100"}, 2, "--high-ping-ms applies only with --high-ping-fraction above 0"},
		{[]string{"match", "--mode", "golf"}, 2, `--mode "golf": want ffa, tdm, ctf or dom`},
		{[]string{"match", "--replication", "x"}, 2, `--replication "x": want full, dead or led`},
		{[]string{"match", "--delay", "adaptive", "--trigger", "smell"}, 2, `--trigger "smell": want proximity, fov or proximity-or-fov`},
		{[]string{"match", "--trigger", "fov"}, 2, "--trigger applies only with --delay adaptive"},
		{[]string{"match", "--adaptation", "2s"}, 2, "--adaptation applies only with --delay delay or adaptive"},
		{[]string{"match", "--delay", "delay", "--adaptation", "11s"}, 2, "--adaptation 11s: want 0s to 10s"},
		{[]string{"match", "--low-ping-ms", "30"}, 2, "--low-ping-ms applies only with --policy alc or alc-predict"},
		{[]string{"match", "--max-rtt-ms", "100"}, 2, "--max-rtt-ms applies only with --policy clc"},
		{[]string{"match", "--policy", "clc", "--max-rollback-m", "-1"}, 2, "--max-rollback-m -1: want 0 to 1000"},
		{[]string{"match", "--timewarp", "500ms"}, 2, "--timewarp needs --policy none"},
		{[]string{"match", "--timewarp", "500ms", "--policy", "none"}, 2, "--timewarp needs --mode ffa or tdm, not ctf"},
		{[]string{"match", "--timewarp", "2s", "--policy", "none", "--mode", "tdm"}, 2, "--timewarp 2s: want 0s to 1s"},
		{[]string{"sim", "--players", "0"}, 2, "--players 0: want 1 to 128"},
		{[]string{"sim", "--duration", "0s"}, 2, "--duration 0s: want more than 0"},
		{[]string{"sim", "--display", "x"}, 2, `--display: unknown display mode "x", want interpolate, extrapolate, opponent-predict or dead-reckon`},
		{[]string{"sim", "--replication", "x"}, 2, `--replication: unknown replication "x", want full, dead or led`},
		{[]string{"sim", "--players", "200"}, 2, "--players 200: want 1 to 128"},
		{[]string{"sim", "--tick", "10"}, 2, "--tick 10: want 20 to 128 (Hz)"},
		{[]string{"sim", "--loss", "2"}, 2, "--loss 2: want 0 to 1"},
		{[]string{"sim", "--rtt", "-1"}, 2, "--rtt -1: want 0 to 10000 (ms)"},
		{[]string{"sim", "--jitter", "1e9"}, 2, "--jitter 1e+09: want 0 to 10000 (ms)"},
		{[]string{"sim", "--duration", "25h"}, 2, "--duration 25h0m0s: want at most 24h"},
		{[]string{"sim", "--replication", "dead", "--display", "extrapolate"}, 2, "--display applies only with --replication full"},
		{[]string{"experiment", "run", "nope"}, 2, `unknown experiment "nope" (known: alc, `},
		{[]string{"experiment", "run", "scale", "--shard", "3/2"}, 2, `--shard: shard "3/2": want k/n with 1 <= k <= n`},
		{[]string{"scenario", "run", "--policy", "magic", badFile}, 2, `--policy "magic"`},
		{[]string{"scenario", "check", "../../scenarios/standing-target.toml"}, 0, ""},
		{[]string{"scenario", "check", badFile}, 1, "1 of 5 scenario runs failed their expectations"},
		{[]string{"scenario", "check", filepath.Join(dir, "missing.toml")}, 1, "missing.toml"},
	}
	prefix := regexp.MustCompile(`(^|: )(server|scenario|match|sim|experiment|client|lagcomp|report): |\[[a-z-]+ [a-z -]+\]`)
	for _, tc := range cases {
		code, _, stderr := runExit(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("lagkit %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
		if msg := strings.TrimPrefix(stderr, "lagkit: "); prefix.MatchString(msg) {
			t.Errorf("lagkit %s: %q shows a Go package prefix or slice", strings.Join(tc.args, " "), msg)
		}
	}
}

func TestUserMessage(t *testing.T) {
	cases := []struct{ in, want string }{
		{"server: config: tick 0", "config: tick 0"},
		{"--replication: match: led replication: reckoning: no trend map", "--replication: led replication: no trend map"},
		{`client: unknown display mode "x" (known: [a b-c d])`, `unknown display mode "x" (known: a, b-c, d)`},
		{"ci95 [0.1, 0.2] of [x]", "ci95 [0.1, 0.2] of [x]"},
		{"scenarios/a.toml: player 2: bad", "scenarios/a.toml: player 2: bad"},
		// A file's key named like a package is the file's, and stays.
		{"a.toml:1:2: scenario: unknown field", "a.toml:1:2: scenario: unknown field"},
		{"--config: serve.toml:1:1: match: want an array, got an integer", "--config: serve.toml:1:1: match: want an array, got an integer"},
		{"scenario: a.toml:3:1: delay: unknown field", "a.toml:3:1: delay: unknown field"},
		{"--db: store: x.db: folder y does not exist", "--db: x.db: folder y does not exist"},
		{"flood: target \"x\": missing port", "target \"x\": missing port"},
	}
	for _, tc := range cases {
		if got := userMessage(errors.New(tc.in)); got != tc.want {
			t.Errorf("userMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestVersion checks --version names lagkit's version, the revision and
// the Go version and platform it was built with.
func TestVersion(t *testing.T) {
	code, out, _ := runExit(t, "--version")
	want := "lagkit (devel), revision "
	if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("--version: exit %d, %q; want it to start %q and name %s", code, out, want, runtime.Version())
	}
	b := experiment.Provenance{Version: "v1.2.0", Revision: "abc123", Modified: true, GoVersion: "go1.26.8", OS: "linux", Arch: "amd64"}
	if got, want := b.Describe(), "v1.2.0, revision abc123 (modified), go1.26.8 linux/amd64"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// TestListJSON checks experiment list --json and scenario check --json
// print JSON a program can read.
func TestListJSON(t *testing.T) {
	code, out, _ := runExit(t, "experiment", "list", "--json")
	var list []experiment.Listed
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("experiment list --json: exit %d, %v in %s", code, err, out)
	}
	if len(list) != len(experiment.List()) || list[0].Name == "" || list[0].Cells == 0 || list[0].QuickCells == 0 {
		t.Errorf("experiment list --json: %+v", list)
	}
	code, out, _ = runExit(t, "scenario", "check", "--json", "../../scenarios/standing-target.toml")
	var runs []scenario.CheckRun
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil {
		t.Fatalf("scenario check --json: exit %d, %v in %s", code, err, out)
	}
	if len(runs) != 5 || !runs[0].OK || runs[0].File != "../../scenarios/standing-target.toml" {
		t.Errorf("scenario check --json: %+v", runs)
	}
}

// TestHelpListsRegistries checks the help text lists what the registries
// hold.
func TestHelpListsRegistries(t *testing.T) {
	out, err := run("match", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{oneOf(lagcomp.Policies.Names()), "none, delay or adaptive", "full, dead or led"} {
		if !strings.Contains(out, want) {
			t.Errorf("match --help lacks %q", want)
		}
	}
	out, err = run("sim", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if want := "interpolate, extrapolate, opponent-predict or dead-reckon"; !strings.Contains(out, want) {
		t.Errorf("sim --help lacks %q", want)
	}
	out, err = run("trend", "replay", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if want := "--frontier thresholds   further dead reckoning thresholds to replay, comma separated (m) (default 0.2,0.3,0.5,0.667)"; !strings.Contains(out, want) {
		t.Errorf("trend replay --help lacks %q:\n%s", want, out)
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
	var rep reckoning.Comparison
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Players != 4 || rep.Trainers != 8 || !(rep.Seconds > 30) || len(rep.Methods) != 6 {
		t.Fatalf("replayed %d players for %.0f s against %d, %d methods: want 4 of 12 bots, 6 methods", rep.Players, rep.Seconds, rep.Trainers, len(rep.Methods))
	}
	if m := rep.Methods; m[0].Method != "dead" || m[0].EtaM != 0.381 || m[1].Method != "led" || m[1].EtaMinM != 0.095 {
		t.Errorf("first rows %+v, %+v: want dead at 0.381 m, then led from 0.095 m", m[0], m[1])
	}
	frontier := []reckoning.MethodRow{rep.Methods[2], rep.Methods[3], rep.Methods[0], rep.Methods[4], rep.Methods[5]}
	for i := 1; i < len(frontier); i++ {
		a, b := frontier[i-1], frontier[i]
		if !(a.EtaM < b.EtaM && a.UpdatesPerS > b.UpdatesPerS && a.PositionErrorMeanM < b.PositionErrorMeanM) {
			t.Errorf("dead at %.3f m: %.3f/s, %.4f m; at %.3f m: %.3f/s, %.4f m: want fewer updates for more error",
				a.EtaM, a.UpdatesPerS, a.PositionErrorMeanM, b.EtaM, b.UpdatesPerS, b.PositionErrorMeanM)
		}
	}
}

// cancelAfter is a progress writer that cancels a run once it reports
// the line want.
type cancelAfter struct {
	bytes.Buffer
	want   string
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.want) {
		w.cancel()
	}
	return n, err
}

// TestInterruptAndResume interrupts an experiment run after its first
// cell, as Ctrl-C does, resumes it, and checks the results equal a run
// never interrupted (provenance and wall time aside).
func TestInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment")
	}
	dir := t.TempDir()
	args := []string{"experiment", "run", "tlc-accuracy", "--quick", "--seed", "3", "--shard", "1/3"}
	half, whole := filepath.Join(dir, "half"), filepath.Join(dir, "whole")

	e, err := experiment.Get("tlc-accuracy")
	if err != nil {
		t.Fatal(err)
	}
	shard, _ := experiment.ParseShard("1/3")
	n := len(experiment.Planned(e, experiment.Options{Seed: 3, Quick: true, Shard: shard}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	progress := &cancelAfter{want: fmt.Sprintf("1/%d cells done", n), cancel: cancel}
	var stdout bytes.Buffer
	code := execute(ctx, append(args, "--parallel", "1", "--out", half), &stdout, progress)
	if code != 1 || !strings.Contains(progress.String(), fmt.Sprintf("interrupted: 1 of %d cells are saved", n)) {
		t.Fatalf("interrupted run: exit %d, %s", code, progress)
	}
	if _, err := os.Stat(filepath.Join(half, "results.json")); err == nil {
		t.Fatal("an interrupted run wrote results.json")
	}
	if cells, err := experiment.ReadCells(half); err != nil || len(cells) != 1 {
		t.Fatalf("cells.jsonl after the interruption: %d cells, %v", len(cells), err)
	}
	// The same folder refuses a new run, and a resume of another seed.
	if code, _, stderr := runExit(t, append(args, "--out", half)...); code != 2 || !strings.Contains(stderr, "is not empty: give --force") {
		t.Errorf("new run into the folder: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runExit(t, "experiment", "run", "tlc-accuracy", "--quick", "--seed", "4", "--shard", "1/3", "--resume", half); code != 2 ||
		!strings.Contains(stderr, "holds tlc-accuracy with seed 3, quick, shard 1/3; this command asks for tlc-accuracy with seed 4") {
		t.Errorf("resume with another seed: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runExit(t, append(args, "--resume", half)...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("%d/%d cells done", n, n)) || strings.Contains(stderr, fmt.Sprintf("1/%d cells done", n)) {
		t.Fatalf("resumed run: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runExit(t, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("whole run: exit %d, %s", code, stderr)
	}
	read := func(dir string) map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["seed"] != "3" {
			t.Errorf("%s: seed %#v, want the string \"3\"", dir, m["seed"])
		}
		prov, _ := m["provenance"].(map[string]any)
		if prov["go_version"] != runtime.Version() || prov["goos"] != runtime.GOOS || len(prov["command"].([]any)) < 4 {
			t.Errorf("%s: provenance %v", dir, prov)
		}
		delete(m, "provenance")
		delete(m, "wall_s")
		return m
	}
	if a, b := read(half), read(whole); !reflect.DeepEqual(a, b) {
		t.Errorf("resumed results differ from the uninterrupted run's:\n%v\n%v", a, b)
	}
	ca, _ := experiment.ReadCells(half)
	cb, _ := experiment.ReadCells(whole)
	if len(ca) != n || len(cb) != n || ca[0].Cell.Index != cb[0].Cell.Index || !reflect.DeepEqual(ca[n-1].Metrics, cb[n-1].Metrics) {
		t.Errorf("cells.jsonl differ: %d and %d cells", len(ca), len(cb))
	}
}

// TestMatchOutAndPrediction: lagkit match writes its events and summary
// into a new folder, refuses one that is not empty without --force, and
// --prediction-off reaches every client.
func TestMatchOutAndPrediction(t *testing.T) {
	dir := t.TempDir() + "/m"
	args := []string{"match", "--bots", "2", "--duration", "2s", "--mode", "tdm", "--json", "--out", dir}
	out, err := run(append(args, "--prediction-off")...)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Players []struct {
			Predicting bool `json:"predicting"`
		} `json:"players"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Players) != 2 || res.Players[0].Predicting || res.Players[1].Predicting {
		t.Fatalf("match --prediction-off: %v %s", err, out)
	}
	for _, f := range []string{"events.jsonl", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	if code, _, stderr := runExit(t, args...); code != 2 || !strings.Contains(stderr, "is not empty: give --force") {
		t.Errorf("match into a folder that is not empty: exit %d, %s", code, stderr)
	}
	out, err = run(append(args, "--force")...)
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || !res.Players[0].Predicting {
		t.Fatalf("match --force: %v %s", err, out)
	}
}

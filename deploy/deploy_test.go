// Package deploy holds lagkit's Kubernetes manifests (an Agones Fleet and
// FleetAutoscaler, an online study's lobby with the Fleet its matches are
// allocated from, an Indexed Job that runs an experiment sweep in shards
// and the Job that merges them); its tests check them against the lagkit
// command line and the Dockerfile.
package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/realtime"
)

// doc is one Kubernetes object.
type doc = map[string]any

// load reads every object in the manifests file.
func load(t *testing.T, file string) []doc {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var out []doc
	for {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, d)
	}
}

// find returns the object of kind in file.
func find(t *testing.T, file, kind string) doc {
	t.Helper()
	for _, d := range load(t, file) {
		if d["kind"] == kind {
			return d
		}
	}
	t.Fatalf("%s: no %s", file, kind)
	return nil
}

// at walks path (map keys, or list indexes as numbers) from v.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(doc)
			if !ok {
				t.Fatalf("%v: not a map at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = fmt.Sprint(x)
	}
	return out
}

// flag returns the value of --name in args (as --name=v or --name v).
func flag(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// lagkit builds the lagkit command once for the package's tests.
func lagkit(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lagkit-deploy")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "lagkit")
		out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binary, "../cmd/lagkit").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// acceptsArgs checks that lagkit parses args, a command and its flags,
// without running it.
func acceptsArgs(t *testing.T, what string, args []string) {
	t.Helper()
	out, err := exec.Command(lagkit(t), append(slices.Clone(args), "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: lagkit %s: %v\n%s", what, strings.Join(args, " "), err, out)
	}
	if !strings.HasPrefix(string(out), "Usage:") && !strings.Contains(string(out), "\nUsage:") {
		t.Fatalf("%s: lagkit %s printed no usage:\n%s", what, strings.Join(args, " "), out)
	}
}

// adminClosed checks that serve's args keep the admin listener (the
// match API, connect tokens, pprof) from other hosts: on loopback, or
// with a token file; and that it is not on the public port --http.
func adminClosed(t *testing.T, what string, args []string) (adminPort int) {
	t.Helper()
	admin, ok := flag(args, "admin")
	if !ok || admin == "" {
		t.Fatalf("%s: no --admin in %v (serve's default is a free loopback port an operator cannot find)", what, args)
	}
	host, _, err := net.SplitHostPort(admin)
	if err != nil {
		t.Fatalf("%s: --admin %q: %v", what, admin, err)
	}
	ip := net.ParseIP(host)
	if _, tokenFile := flag(args, "admin-token-file"); !tokenFile && (ip == nil || !ip.IsLoopback()) {
		t.Errorf("%s: --admin %s is open to other hosts without --admin-token-file", what, admin)
	}
	if h, _ := flag(args, "http"); h != "" && port(t, h) == port(t, admin) {
		t.Errorf("%s: --admin and --http share port %d", what, port(t, admin))
	}
	return port(t, admin)
}

func port(t *testing.T, hostPort string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(hostPort)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

func TestFleet(t *testing.T) {
	fleet := find(t, "fleet.yaml", "Fleet")
	if at(t, fleet, "apiVersion") != "agones.dev/v1" {
		t.Fatalf("Fleet apiVersion %v", at(t, fleet, "apiVersion"))
	}
	gs := at(t, fleet, "spec", "template", "spec")
	c := at(t, gs, "template", "spec", "containers", 0)
	args := strs(t, at(t, c, "args"))
	if args[0] != "serve" || !slices.Contains(args, "--agones") {
		t.Fatalf("container args %v: want serve --agones", args)
	}
	acceptsArgs(t, "Fleet container", args)
	adminPort := adminClosed(t, "Fleet container", args)
	for _, p := range at(t, c, "ports").([]any) {
		if at(t, p, "containerPort") == adminPort {
			t.Errorf("the container declares the admin port %d", adminPort)
		}
	}
	if ann := at(t, gs, "template", "metadata", "annotations", "prometheus.io/port"); ann != nil {
		if h, _ := flag(args, "http"); fmt.Sprint(ann) != strconv.Itoa(port(t, h)) {
			t.Errorf("Prometheus scrapes port %v, --http is %s", ann, h)
		}
	}

	// Ports: UDP for native clients at --udp, TCP and UDP on one number
	// for browsers at --listen.
	want := map[string]int{}
	for _, f := range []string{"udp", "listen"} {
		v, ok := flag(args, f)
		if !ok {
			t.Fatalf("no --%s in %v", f, args)
		}
		want[f] = port(t, v)
	}
	got := map[string]int{}
	for _, p := range at(t, gs, "ports").([]any) {
		proto, cp := at(t, p, "protocol"), at(t, p, "containerPort").(int)
		switch proto {
		case "UDP":
			got["udp"] = cp
		case "TCPUDP":
			got["listen"] = cp
		default:
			t.Errorf("port %v: protocol %v", at(t, p, "name"), proto)
		}
		if pp := at(t, p, "portPolicy"); pp != "Dynamic" {
			t.Errorf("port %v: policy %v", at(t, p, "name"), pp)
		}
	}
	if got["udp"] != want["udp"] || got["listen"] != want["listen"] {
		t.Fatalf("GameServer ports %v, serve listens on %v", got, want)
	}

	// Health: on, and lagkit's pings come well within each period.
	if at(t, gs, "health", "disabled") == true {
		t.Fatal("health checking is off")
	}
	period := time.Duration(at(t, gs, "health", "periodSeconds").(int)) * time.Second
	v, _ := flag(args, "agones-health")
	ping, err := time.ParseDuration(v)
	if err != nil || 2*ping > period {
		t.Fatalf("--agones-health %q against a health period of %v: want at least two pings a period", v, period)
	}

	// The match comes from the ConfigMap mounted where --config points.
	cfgPath, _ := flag(args, "config")
	var volume string
	for _, m := range at(t, c, "volumeMounts").([]any) {
		if at(t, m, "mountPath") == filepath.Dir(cfgPath) {
			volume = at(t, m, "name").(string)
		}
	}
	var cmName string
	for _, vol := range at(t, gs, "template", "spec", "volumes").([]any) {
		if at(t, vol, "name") == volume {
			cmName, _ = at(t, vol, "configMap", "name").(string)
		}
	}
	cm := find(t, "fleet.yaml", "ConfigMap")
	if cmName == "" || at(t, cm, "metadata", "name") != cmName {
		t.Fatalf("--config %s is not on the ConfigMap (volume %q, config map %q)", cfgPath, volume, cmName)
	}
	toml, _ := at(t, cm, "data", filepath.Base(cfgPath)).(string)
	f, err := realtime.ParseFile(filepath.Base(cfgPath), []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Matches) != 1 || f.Matches[0].Duration <= 0 {
		t.Fatalf("the GameServer's configuration: %d matches, want one with a duration", len(f.Matches))
	}
	if at(t, c, "securityContext", "runAsNonRoot") != true {
		t.Error("the container may run as root")
	}
}

func TestFleetAutoscaler(t *testing.T) {
	fa := find(t, "fleetautoscaler.yaml", "FleetAutoscaler")
	fleet := find(t, "fleet.yaml", "Fleet")
	if at(t, fa, "spec", "fleetName") != at(t, fleet, "metadata", "name") {
		t.Fatalf("autoscaler scales %v, the Fleet is %v", at(t, fa, "spec", "fleetName"), at(t, fleet, "metadata", "name"))
	}
	b := at(t, fa, "spec", "policy", "buffer")
	lo, hi, size := at(t, b, "minReplicas").(int), at(t, b, "maxReplicas").(int), at(t, b, "bufferSize").(int)
	if !(size >= 1 && lo >= size && hi > lo) {
		t.Fatalf("buffer %d between %d and %d", size, lo, hi)
	}
}

// script returns a Job's container, its environment, and its shell
// script, run with sh as the sweep image runs it with busybox's.
func script(t *testing.T, file string) (doc, map[string]string, string) {
	t.Helper()
	job := find(t, file, "Job")
	c := at(t, job, "spec", "template", "spec", "containers", 0).(doc)
	cmd := strs(t, at(t, c, "command"))
	if !slices.Equal(cmd, []string{"/busybox/sh", "-c"}) {
		t.Fatalf("%s: command %v", file, cmd)
	}
	env := map[string]string{}
	for _, e := range at(t, c, "env").([]any) {
		if v, ok := at(t, e, "value").(string); ok {
			env[at(t, e, "name").(string)] = v
		}
	}
	return job, env, strs(t, at(t, c, "args"))[0]
}

// runScript runs a Job's script with sh: /lagkit is a stand-in that
// logs its arguments one per line, and /results a temporary folder.
func runScript(t *testing.T, body, results string, env map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "args")
	fake := filepath.Join(dir, "lagkit")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > \""+logFile+"\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	body = strings.ReplaceAll(body, "/lagkit", fake)
	body = strings.ReplaceAll(body, "/results", results)
	cmd := exec.Command("sh", "-c", body)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		args = append(args, sc.Text())
	}
	return args
}

// TestSweepJob runs the Indexed Job's script for every completion index:
// the shards are 1/n to n/n, one each, writing to their own folders on
// the shared volume, and lagkit takes the command; a retried pod
// resumes. The merge Job's script then names every shard folder.
func TestSweepJob(t *testing.T) {
	job, env, body := script(t, "sweep.yaml")
	spec := at(t, job, "spec")
	n := at(t, spec, "completions").(int)
	if at(t, spec, "completionMode") != "Indexed" || at(t, spec, "parallelism").(int) != n || env["SHARDS"] != strconv.Itoa(n) {
		t.Fatalf("Job: completionMode %v, completions %d, parallelism %v, SHARDS %q", at(t, spec, "completionMode"), n, at(t, spec, "parallelism"), env["SHARDS"])
	}
	if _, err := experiment.Get(env["EXPERIMENT"]); err != nil {
		t.Fatal(err)
	}
	env["PARALLEL"] = "2" // from the pod's CPU limit
	results := t.TempDir()
	var outs []string
	seen := map[int]bool{}
	for i := range n {
		env["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
		args := runScript(t, body, results, env)
		if len(args) < 3 || args[0] != "experiment" || args[1] != "run" || args[2] != env["EXPERIMENT"] {
			t.Fatalf("index %d: lagkit %v", i, args)
		}
		v, _ := flag(args, "shard")
		s, err := experiment.ParseShard(v)
		if err != nil || s.N != n || seen[s.K] {
			t.Fatalf("index %d: --shard %q (%v), n %d, shards so far %v", i, v, err, n, seen)
		}
		seen[s.K] = true
		out, ok := flag(args, "out")
		if !ok || !strings.HasPrefix(out, results+"/") || slices.Contains(outs, out) {
			t.Fatalf("index %d: --out %q", i, out)
		}
		outs = append(outs, out)
		acceptsArgs(t, fmt.Sprintf("sweep index %d", i), args)

		// A retry finds the shard's folder begun, and resumes it.
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "run.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		again := runScript(t, body, results, env)
		if r, _ := flag(again, "resume"); r != out {
			t.Fatalf("index %d retried: %v", i, again)
		}
		if _, ok := flag(again, "out"); ok {
			t.Fatalf("index %d retried with --out: %v", i, again)
		}
		acceptsArgs(t, fmt.Sprintf("sweep index %d retried", i), again)
	}

	merge, menv, mbody := script(t, "merge.yaml")
	if menv["SHARDS"] != env["SHARDS"] || menv["RUN"] != env["RUN"] {
		t.Fatalf("merge Job: SHARDS %q RUN %q, the sweep's %q %q", menv["SHARDS"], menv["RUN"], env["SHARDS"], env["RUN"])
	}
	if claim(t, merge) != claim(t, job) {
		t.Fatalf("the merge Job reads volume %q, the sweep writes %q", claim(t, merge), claim(t, job))
	}
	args := runScript(t, mbody, results, menv)
	if len(args) < 2 || args[0] != "experiment" || args[1] != "merge" {
		t.Fatalf("merge: lagkit %v", args)
	}
	var dirs []string
	for _, a := range args[2:] {
		if strings.HasPrefix(a, results+"/") && !strings.HasSuffix(a, "/merged") {
			dirs = append(dirs, a)
		}
	}
	slices.Sort(dirs)
	slices.Sort(outs)
	if !slices.Equal(dirs, outs) {
		t.Fatalf("merge reads %v, the shards wrote %v", dirs, outs)
	}
	acceptsArgs(t, "merge", args)
}

// claim returns the PersistentVolumeClaim a Job's pods mount.
func claim(t *testing.T, job doc) string {
	t.Helper()
	v := at(t, job, "spec", "template", "spec", "volumes", 0, "persistentVolumeClaim", "claimName")
	s, _ := v.(string)
	return s
}

// TestDockerfile checks the image: a static build stage, non-root final
// stages from distroless, and entries that run commands lagkit has.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	type stage struct {
		from, name, user string
		entry, cmd       []string
		run              []string
		expose           []string
	}
	var stages []*stage
	var cont string
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if cont != "" {
			line = cont + " " + line
			cont = ""
		}
		if strings.HasSuffix(line, "\\") {
			cont = strings.TrimSuffix(line, "\\")
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "FROM":
			f := strings.Fields(rest)
			s := &stage{}
			for i := 0; i < len(f); i++ {
				switch {
				case strings.HasPrefix(f[i], "--"):
				case strings.EqualFold(f[i], "AS") && i+1 < len(f):
					s.name = f[i+1]
					i++
				default:
					s.from = f[i]
				}
			}
			stages = append(stages, s)
		case "USER":
			stages[len(stages)-1].user = rest
		case "RUN":
			stages[len(stages)-1].run = append(stages[len(stages)-1].run, rest)
		case "EXPOSE":
			stages[len(stages)-1].expose = append(stages[len(stages)-1].expose, strings.Fields(rest)...)
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				t.Fatalf("%s %s: want the JSON form: %v", word, rest, err)
			}
			if word == "CMD" {
				stages[len(stages)-1].cmd = v
			} else {
				stages[len(stages)-1].entry = v
			}
		}
	}
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and an image", len(stages))
	}
	build := stages[0]
	static := false
	for _, r := range build.run {
		if strings.Contains(r, "CGO_ENABLED=0") && strings.Contains(r, "go build") && strings.Contains(r, "GOARCH=amd64") {
			static = true
		}
	}
	if !strings.HasPrefix(build.from, "golang:") || !static {
		t.Fatalf("build stage from %s, runs %v: want golang and a CGO_ENABLED=0 amd64 go build", build.from, build.run)
	}
	names := map[string]bool{}
	for _, s := range stages[1:] {
		names[s.name] = true
		if !strings.HasPrefix(s.from, "gcr.io/distroless/static") {
			t.Errorf("stage %s from %s: want distroless static", s.name, s.from)
		}
		if s.user == "" || strings.HasPrefix(s.user, "0") || strings.HasPrefix(s.user, "root") {
			t.Errorf("stage %s runs as %q", s.name, s.user)
		}
		if !slices.Equal(s.entry, []string{"/lagkit"}) || len(s.cmd) == 0 {
			t.Fatalf("stage %s: ENTRYPOINT %v CMD %v", s.name, s.entry, s.cmd)
		}
		acceptsArgs(t, "Dockerfile stage "+s.name, s.cmd)
	}
	last := stages[len(stages)-1]
	if last.cmd[0] != "serve" {
		t.Fatalf("the default image runs %v, want serve", last.cmd)
	}
	adminPort := adminClosed(t, "Dockerfile CMD", last.cmd)
	if slices.Contains(last.expose, strconv.Itoa(adminPort)+"/tcp") || slices.Contains(last.expose, strconv.Itoa(adminPort)) {
		t.Errorf("the image exposes the admin port %d: %v", adminPort, last.expose)
	}
	// The Jobs run the stage with a shell (docker build --target sweep),
	// the Fleet the default one.
	if !names["sweep"] {
		t.Fatal("no sweep stage for the Jobs' image")
	}
	for _, f := range []string{"sweep.yaml", "merge.yaml"} {
		job, _, _ := script(t, f)
		if img := at(t, job, "spec", "template", "spec", "containers", 0, "image").(string); !strings.HasPrefix(img, "lagkit-sweep:") {
			t.Errorf("%s runs image %s, want lagkit-sweep (the Dockerfile's sweep stage)", f, img)
		}
	}
	fleet := find(t, "fleet.yaml", "Fleet")
	if img := at(t, fleet, "spec", "template", "spec", "template", "spec", "containers", 0, "image").(string); !strings.HasPrefix(img, "lagkit:") {
		t.Errorf("the Fleet runs image %s, want lagkit (the Dockerfile's default stage)", img)
	}
}

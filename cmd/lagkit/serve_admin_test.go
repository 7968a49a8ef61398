package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
)

const testAdminToken = "s3cret-admin-token-for-tests"

// startAdminServe runs serve in this process as the Dockerfile does,
// every listener on 0.0.0.0, with the admin token testAdminToken from
// the environment, and returns the --http and --admin base URLs (on
// 127.0.0.1).
func startAdminServe(t *testing.T, o serveOptions) (httpBase, adminBase string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	o.http, o.admin, o.udp = "0.0.0.0:0", "0.0.0.0:0", "0.0.0.0:0"
	if o.getenv == nil {
		o.getenv = func(k string) string {
			if k == AdminTokenEnv {
				return testAdminToken
			}
			return ""
		}
	}
	addrs, res, logs := serveInProcess(t, ctx, o)
	if addrs == nil {
		cancel()
		t.Fatalf("serve failed: %v\n%s", <-res, logs())
	}
	t.Cleanup(func() {
		cancel()
		if err := <-res; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + onLoopback(t, addrs["http"]), "http://" + onLoopback(t, addrs["admin"])
}

// onLoopback turns a wildcard address serve logged into 127.0.0.1 on
// its port.
func onLoopback(t *testing.T, addr any) string {
	t.Helper()
	s, _ := addr.(string)
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		t.Fatalf("address %v: %v", addr, err)
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// call makes a request with the admin token bearer (none if "") and
// returns the status, the JSON error if any, and the body.
func call(t *testing.T, method, url, bearer, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	withBearer(req, bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct{ Error string }
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return resp.StatusCode, e.Error, resp.Header
	}
	return resp.StatusCode, string(b), resp.Header
}

// TestServeAdminNeedsToken: with the admin listener on every interface
// and a token, the match API, tokens and pprof answer only the holder
// of the token; /healthz and /metrics on --http answer anyone, and the
// API is not on --http at all.
func TestServeAdminNeedsToken(t *testing.T) {
	httpBase, admin := startAdminServe(t, serveOptions{config: writeConfig(t, "[[match]]\nmap = \"arena\"\nmode = \"ffa\"\nseats = 2\nbots = 0\n"), tokens: true})
	paths := []struct{ method, path, body string }{
		{"GET", "/api/matches", ""},
		{"GET", "/api/matches/1", ""},
		{"POST", "/api/matches", `{"map": "arena"}`},
		{"PUT", "/api/matches/1/latency", `[{"player": "0", "up": {"latency_ms": 400}}]`},
		{"POST", "/api/matches/1/tokens", `{"player": "mallory"}`},
		{"DELETE", "/api/matches/1", ""},
		{"GET", "/debug/pprof/", ""},
		{"GET", "/debug/pprof/cmdline", ""},
		{"GET", "/debug/pprof/heap", ""},
	}
	for _, p := range paths {
		for _, bearer := range []string{"", "wrong-token-of-some-length", testAdminToken + "x"} {
			code, msg, h := call(t, p.method, admin+p.path, bearer, p.body)
			if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(msg, "admin bearer token") {
				t.Errorf("%s %s with bearer %q: %d %q (WWW-Authenticate %q), want 401", p.method, p.path, bearer, code, msg, h.Get("WWW-Authenticate"))
			}
		}
		// --http serves none of them, to anyone.
		if code, _, _ := call(t, p.method, httpBase+p.path, testAdminToken, p.body); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s on --http: %d, want 404", p.method, p.path, code)
		}
	}
	// The match is still there, untouched; the token holder may use it all.
	if code, msg, _ := call(t, "GET", admin+"/api/matches/1", testAdminToken, ""); code != http.StatusOK {
		t.Fatalf("GET /api/matches/1 with the token: %d %s", code, msg)
	}
	if code, msg, _ := call(t, "POST", admin+"/api/matches/1/tokens", testAdminToken, `{"player": "alice"}`); code != http.StatusOK || !strings.Contains(msg, `"token"`) {
		t.Errorf("a connect token with the admin token: %d %s", code, msg)
	}
	if code, _, _ := call(t, "GET", admin+"/debug/pprof/cmdline", testAdminToken, ""); code != http.StatusOK {
		t.Errorf("pprof with the token: %d", code)
	}
	// Anyone may scrape and check health on --http.
	if code, body, _ := call(t, "GET", httpBase+"/healthz", "", ""); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	code, metrics, _ := call(t, "GET", httpBase+"/metrics", "", "")
	if code != http.StatusOK || !strings.Contains(metrics, "lagkit_matches 1") {
		t.Fatalf("/metrics: %d\n%s", code, grepLines(metrics, "lagkit_matches"))
	}
	for _, want := range []string{`lagkit_admin_unauthorized_total{reason="missing"} 9`, `lagkit_admin_unauthorized_total{reason="wrong"} 18`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "unauthorized"))
		}
	}
	// lagkit bots --server says what is wrong: the public port, or no
	// admin token.
	t.Setenv(AdminTokenEnv, "")
	for base, want := range map[string]string{httpBase: "--server is the server's --admin address, not --http", admin: "give the server's admin token"} {
		_, err := runBots(t.Context(), botsOptions{connect: "udp://127.0.0.1:9", count: 1, duration: time.Second, mapName: "arena", skill: 0.5, server: base})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bots --server %s: %v, want %q", base, err, want)
		}
	}
}

// TestServeAdminTokenRequired: serve refuses to open the admin listener
// to other hosts without a token, and refuses a short token; on
// loopback without a token it runs and says so.
func TestServeAdminTokenRequired(t *testing.T) {
	t.Setenv(AdminTokenEnv, "")
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("  tooshort \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	off := []string{"serve", "--listen", "", "--udp", "", "--http", ""}
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--admin", "0.0.0.0:0"}, "", "--admin 0.0.0.0:0 is reachable from other hosts and has no token: give --admin-token-file FILE or LAGKIT_ADMIN_TOKEN"},
		{[]string{"--admin", ":9090"}, "", "--admin :9090 is reachable from other hosts"},
		{[]string{"--admin", "[::]:0"}, "", "is reachable from other hosts"},
		{[]string{"--admin", "0.0.0.0:0", "--admin-token-file", short}, "", "--admin-token-file " + short + ": a token of 8 bytes, want at least 16"},
		{[]string{"--admin", "0.0.0.0:0", "--admin-token-file", filepath.Join(dir, "none")}, "", "--admin-token-file: open"},
		{[]string{"--admin", "0.0.0.0:0"}, "short", "LAGKIT_ADMIN_TOKEN: a token of 5 bytes, want at least 16"},
		{[]string{"--admin", "", "--udp", "127.0.0.1:0", "--admin-token-file", short}, "", "--admin-token-file is for --admin, which is off"},
	} {
		t.Setenv(AdminTokenEnv, c.env)
		code, _, stderr := runExit(t, append(append([]string{}, off...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("serve %v (env %q): exit %d, %q; want exit 2 and %q", c.args, c.env, code, stderr, c.want)
		}
	}
	t.Setenv(AdminTokenEnv, "")
	ctx, cancel := context.WithCancel(t.Context())
	addrs, res, logs := serveInProcess(t, ctx, serveOptions{})
	if addrs == nil {
		t.Fatalf("serve on loopback without a token: %v\n%s", <-res, logs())
	}
	cancel()
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if l := logs(); !strings.Contains(l, `"msg":"admin without a token"`) {
		t.Errorf("serve did not say its admin listener takes no token:\n%s", l)
	}
}

// TestServeMapsByName: a request names a map, shipped or from --maps;
// a path is refused without the file being read, even one naming a
// map file that exists.
func TestServeMapsByName(t *testing.T) {
	dir := t.TempDir()
	maps := filepath.Join(dir, "maps")
	if err := os.Mkdir(maps, 0o755); err != nil {
		t.Fatal(err)
	}
	arena, err := os.ReadFile("../../world/maps/arena.json")
	if err != nil {
		t.Fatal(err)
	}
	yard := strings.Replace(string(arena), `"name": "arena"`, `"name": "yard"`, 1)
	if err := os.WriteFile(filepath.Join(maps, "yard.json"), []byte(yard), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file no request may open: a good map, and one whose only key
	// would show in a decoder's error.
	secretMap := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secretMap, []byte(strings.Replace(string(arena), `"name": "arena"`, `"name": "secret"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	secretKey := filepath.Join(dir, "key.json")
	if err := os.WriteFile(secretKey, []byte(`{"zz_private_key_7f3a": "hunter2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "[[match]]\nname = \"from-config\"\nmap = \"yard\"\nmode = \"ffa\"\nseats = 2\nbots = 0\n")
	_, admin := startAdminServe(t, serveOptions{config: cfg, maps: maps})

	var list []realtime.MatchInfo
	if err := getJSON(t.Context(), admin+"/api/matches", testAdminToken, &list); err != nil || len(list) != 1 || list[0].Config.Map != "yard" {
		t.Fatalf("the configuration's match on the --maps map: %+v, %v", list, err)
	}
	code, msg, _ := call(t, "POST", admin+"/api/matches", testAdminToken, `{"map": "yard", "mode": "ffa", "seats": 2}`)
	if code != http.StatusCreated || !strings.Contains(msg, `"map":"yard"`) {
		t.Fatalf("POST a --maps map by name: %d %s", code, msg)
	}
	if code, msg, _ := call(t, "POST", admin+"/api/matches", testAdminToken, `{"map": "courtyard", "mode": "dom"}`); code != http.StatusCreated {
		t.Fatalf("POST a shipped map by name: %d %s", code, msg)
	}
	const names = "want one of arena, courtyard, metro, yard"
	for _, m := range []string{secretMap, secretKey, "../secret", `..\secret`, "secret.json", "maps/yard", "yard.json", filepath.Join(maps, "yard.json"), "atlantis"} {
		body, _ := json.Marshal(map[string]string{"map": m, "mode": "ffa"})
		code, msg, _ := call(t, "POST", admin+"/api/matches", testAdminToken, string(body))
		if code != http.StatusBadRequest || !strings.Contains(msg, names) || !strings.HasPrefix(msg, "body:1:8: map: ") {
			t.Errorf("map %q: %d %q, want 400 listing the names", m, code, msg)
		}
		if strings.Contains(msg, "zz_private_key") || strings.Contains(msg, "hunter2") || strings.Contains(msg, "no such file") || strings.Contains(msg, "unknown field") {
			t.Errorf("map %q: the error %q shows the file was opened", m, msg)
		}
	}
	if err := getJSON(t.Context(), admin+"/api/matches", testAdminToken, &list); err != nil || len(list) != 3 {
		t.Errorf("matches %+v, %v: want the configuration's and two started by name", list, err)
	}
}

// TestServeMapsDirErrors: a bad file in --maps stops serve at start,
// naming it.
func TestServeMapsDirErrors(t *testing.T) {
	arena, err := os.ReadFile("../../world/maps/arena.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, body, want string }{
		{"broken.json", `{"name": "broken", "bounds": 3}`, "broken.json:1:"},
		{"other.json", string(arena), `other.json: the map is called "arena": want "other"`},
		{"arena.json", string(arena), "arena.json: arena is a shipped map's name"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runExit(t, "serve", "--maps", dir, "--listen", "", "--udp", "", "--http", "", "--admin", "127.0.0.1:0")
		if code != 2 || !strings.Contains(stderr, "--maps: ") || !strings.Contains(stderr, c.want) {
			t.Errorf("--maps with %s: exit %d, %q; want 2 and %q", c.file, code, stderr, c.want)
		}
	}
	code, _, stderr := runExit(t, "serve", "--maps", filepath.Join(t.TempDir(), "none"), "--listen", "", "--udp", "", "--http", "")
	if code != 2 || !strings.Contains(stderr, "--maps: ") {
		t.Errorf("--maps with no directory: exit %d, %q", code, stderr)
	}
}

// TestServeRefusesNonObjectBodies: a match config is an object and
// latency rules a list; anything else is a 400 that says so, and
// starts or changes nothing.
func TestServeRefusesNonObjectBodies(t *testing.T) {
	_, admin := startAdminServe(t, serveOptions{config: writeConfig(t, "[[match]]\nmap = \"arena\"\nmode = \"ffa\"\nseats = 2\nbots = 0\n")})
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/api/matches", `null`, "body:1:1: want an object, got null"},
		{"POST", "/api/matches", ` null `, "body:1:2: want an object, got null"},
		{"POST", "/api/matches", `[]`, "body:1:1: want an object, got an array"},
		{"POST", "/api/matches", `3`, "body:1:1: want an object, got a number"},
		{"POST", "/api/matches", `"x"`, "body:1:1: want an object, got a string"},
		{"POST", "/api/matches", ``, "body: empty file"},
		{"PUT", "/api/matches/1/latency", `null`, "body:1:1: want an array, got null"},
		{"PUT", "/api/matches/1/latency", `{}`, "body:1:1: want an array, got an object"},
		{"PUT", "/api/matches/1/latency", `3`, "body:1:1: want an array, got a number"},
		{"POST", "/api/matches/1/tokens", `null`, "body:1:1: want an object, got null"},
	} {
		code, msg, _ := call(t, c.method, admin+c.path, testAdminToken, c.body)
		if code != http.StatusBadRequest || msg != c.want {
			t.Errorf("%s %s %q: %d %q, want 400 %q", c.method, c.path, c.body, code, msg, c.want)
		}
	}
	var list []realtime.MatchInfo
	if err := getJSON(t.Context(), admin+"/api/matches", testAdminToken, &list); err != nil || len(list) != 1 {
		t.Errorf("matches %+v, %v: want only the configuration's", list, err)
	}
}

// TestServeCutsSlowBodies: 20 requests to the admin API whose bodies
// never finish, and 20 to --http whose headers never do, are all closed
// once the read timeout passes.
func TestServeCutsSlowBodies(t *testing.T) {
	const timeout = 500 * time.Millisecond
	httpBase, admin := startAdminServe(t, serveOptions{timeouts: api.Timeouts{ReadHeader: timeout, Read: timeout}})
	start := time.Now()
	done := make(chan error, 40)
	slow := func(base, req string) {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		if _, err := io.WriteString(c, req); err != nil {
			done <- err
			return
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.Copy(io.Discard, c) // until the server closes
		done <- err
	}
	for range 20 {
		go slow(admin, "POST /api/matches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+testAdminToken+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"map\": ")
		go slow(httpBase, "GET /metrics HTTP/1.1\r\nHost: x\r\n")
	}
	for range 40 {
		if err := <-done; err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				t.Fatal("a slow request still open after 10 s")
			}
		}
	}
	if took := time.Since(start); took > timeout+3*time.Second {
		t.Errorf("slow requests closed after %v, want about %v", took, timeout)
	}
}

// TestServeAdminProfile: a CPU profile longer than the write timeout
// still comes whole from the admin listener; one beyond the bound is
// refused.
func TestServeAdminProfile(t *testing.T) {
	_, admin := startAdminServe(t, serveOptions{timeouts: api.Timeouts{Write: 300 * time.Millisecond}})
	code, body, _ := call(t, "GET", admin+"/debug/pprof/profile?seconds=1", testAdminToken, "")
	if code != http.StatusOK || len(body) == 0 {
		t.Errorf("a 1 s profile: %d, %d bytes", code, len(body))
	}
	if code, msg, _ := call(t, "GET", admin+"/debug/pprof/profile?seconds=3600", testAdminToken, ""); code != http.StatusBadRequest {
		t.Errorf("an hour's profile: %d %s, want 400", code, msg)
	}
}

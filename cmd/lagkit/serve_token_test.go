package main

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/realtime/bots"
	"github.com/lagkit/lagkit/token"
)

// TestServeTokens runs lagkit serve --tokens with an admin token: the
// token endpoint on --admin issues a token for the match and its UDP
// address to the holder of the admin token only, and lagkit bots
// --token-url (and --server) with --admin-token-file plays with tokens
// from it (while the match's own bots get theirs from the match).
func TestServeTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server subprocess")
	}
	walltest.Lock(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "serve.toml")
	if err := os.WriteFile(cfg, []byte("[[match]]\nname = \"duel\"\nmap = \"arena\"\nmode = \"ffa\"\nseats = 4\nbots = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key, _ := token.NewKey()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	admin := "test-admin-token-0123456789"
	adminFile := filepath.Join(dir, "admin-token")
	if err := os.WriteFile(adminFile, []byte(admin+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addrs, _ := startServeEnv(t, []string{AdminTokenEnv + "=" + admin}, "--config", cfg, "--tokens", "--token-key", keyFile)
	api := "http://" + addrs["admin"].(string)
	// The match's own bots seal their tokens with the match's key.
	for deadline := time.Now().Add(5 * time.Second); inProcessBots(t, api, admin) != 2; {
		if time.Now().After(deadline) {
			t.Fatal("the match's own bots did not connect with tokens")
		}
		time.Sleep(50 * time.Millisecond)
	}
	udp := addrs["udp"].(string)
	url := api + "/api/matches/1/tokens"

	for _, bearer := range []string{"", "not-the-admin-token-at-all"} {
		resp, err := postAs(url, bearer, `{"player": "mallory"}`)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a token for bearer %q: %s, want 401", bearer, resp.Status)
		}
	}
	resp, err := postAs(url, admin, `{"player": "alice"}`)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Token string }
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %v", resp.Status, err)
	}
	sealed, err := base64.StdEncoding.DecodeString(out.Token)
	if err != nil {
		t.Fatal(err)
	}
	c, err := token.Open(key, sealed, time.Now())
	if err != nil || c.Match != "1" || c.Player != "alice" || c.Address != udp {
		t.Fatalf("token %+v: %v (udp %s)", c, err, udp)
	}
	if resp, err := postAs(url, admin, `{}`); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no player: %v %v", resp.Status, err)
	}
	// The page gets its token from the address it was served from.
	page := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err = page.Post("https://"+addrs["listen"].(string)+"/lagkit/token", "application/json", strings.NewReader(`{"player": "bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("page token: %s: %v", resp.Status, err)
	}
	if sealed, err = base64.StdEncoding.DecodeString(out.Token); err != nil {
		t.Fatal(err)
	}
	if c, err := token.Open(key, sealed, time.Now()); err != nil || c.Match != "1" || c.Player != "bob" || c.Address != udp {
		t.Fatalf("page token %+v: %v (udp %s)", c, err, udp)
	}

	// Without a token a bot gets no reply at all, so never a seat, and
	// lagkit bots fails.
	text, err := run("bots", "--connect", "udp://"+udp, "--map", "arena", "--count", "1", "--duration", "1s", "--json")
	var rep bots.Report
	if jerr := json.Unmarshal([]byte(text), &rep); jerr != nil || err == nil || !strings.Contains(err.Error(), "no bot got a seat") {
		t.Fatalf("bots without a token: %v, %v: %s", err, jerr, text)
	}
	if b := rep.Bots[0]; b.Seat >= 0 || b.Snapshots > 0 || b.Error != bots.NoSeat {
		t.Errorf("bot without a token admitted: %+v", b)
	}
	// The host reads a new connection's token to route it, so a connect
	// without one is refused at the door, before any match.
	if m := scrape(t, "http://"+addrs["http"].(string)+"/metrics"); !strings.Contains(m, `lagkit_handshakes_total{outcome="token",transport="udp"}`) || strings.Contains(m, `lagkit_handshakes_total{outcome="token",transport="udp"} 0`) {
		t.Errorf("refused connects not counted:\n%s", grepLines(m, "handshakes"))
	}
	// Without the admin token the bots get no connect token.
	text, err = run("bots", "--connect", "udp://"+udp, "--map", "arena", "--count", "1", "--duration", "1s", "--token-url", url, "--json")
	if err == nil || !strings.Contains(text, "401 Unauthorized") {
		t.Errorf("bots without the admin token: %v: %s", err, text)
	}
	rep = runTokenBots(t, "--connect", "udp://"+udp, "--map", "arena", "--count", "2", "--duration", "2s",
		"--token-url", url, "--server", api, "--admin-token-file", adminFile, "--json")
	for _, b := range rep.Bots {
		if b.Error != "" || b.Snapshots == 0 || b.Seat < 0 {
			t.Errorf("bot with a token: %+v", b)
		}
	}
	if s := rep.Server; s == nil || s.Ticks <= 0 || s.TickP99US <= 0 {
		t.Errorf("the server's load through --server with the admin token: %+v", s)
	}
}

// postAs posts body to url with the admin token bearer (none if "").
func postAs(url, bearer, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	withBearer(req, bearer)
	return http.DefaultClient.Do(req)
}

func runTokenBots(t *testing.T, args ...string) bots.Report {
	t.Helper()
	out, err := run(append([]string{"bots"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var rep bots.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rep
}

// inProcessBots returns how many of the match's own bots are connected,
// asking the API at api with the admin token bearer.
func inProcessBots(t *testing.T, api, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, api+"/api/matches/1", nil)
	withBearer(req, bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct {
		Players []struct{ Bot bool }
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	bots := 0
	for _, p := range info.Players {
		if p.Bot {
			bots++
		}
	}
	return bots
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

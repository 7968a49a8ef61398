package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/flood"
	"github.com/lagkit/lagkit/internal/walltest"
)

// TestFloodCommand floods a lagkit serve process for a second with
// lagkit flood: every kind of payload goes out, the server's Challenges
// come back and are echoed wrongly, the replies weigh no more than what
// was sent, the server counts the malformed datagrams among its drops,
// and its bots keep their seats.
func TestFloodCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server subprocess")
	}
	walltest.Lock(t)
	cfg := filepath.Join(t.TempDir(), "serve.toml")
	if err := os.WriteFile(cfg, []byte("[[match]]\nmap = \"arena\"\nmode = \"tdm\"\nseats = 4\nbots = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, addrs, _ := startServe(t, "--config", cfg)
	udp, _ := addrs["udp"].(string)
	base := "http://" + addrs["http"].(string)
	out, err := run("flood", "--target", "udp://"+udp, "--rate", "2000", "--duration", "1s", "--sources", "16", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var r flood.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Sent < 1600 || r.Sources != 16 || r.ReceivedBytes > r.SentBytes || r.Replies["challenge"] == 0 || r.Kinds["wrong_echo"] == 0 {
		t.Errorf("result %s", out)
	}
	for _, k := range []string{"garbage", "truncated", "connect", "forged_token", "wrong_version", "commands", "appeal", "report", "disconnect"} {
		if r.Kinds[k] == 0 {
			t.Errorf("no %s payload sent: %v", k, r.Kinds)
		}
	}
	fams, err := getMetrics(context.Background(), base+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	// The front door screens what comes from addresses with no session,
	// before any match sees it.
	var malformed float64
	for _, m := range fams["lagkit_handshakes_total"].GetMetric() {
		if hasLabel(m, "outcome", "malformed") {
			malformed += m.GetCounter().GetValue()
		}
	}
	if malformed == 0 {
		t.Error("the server counted no malformed datagram")
	}
	if v := metricValue(fams["lagkit_players"], ""); v != 4 {
		t.Errorf("lagkit_players %v after the flood, want the 4 bots", v)
	}
	text, err := run("flood", "--target", udp, "--rate", "100", "--duration", "100ms", "--sources", "2")
	if err != nil || !strings.Contains(text, "amplification") || !strings.Contains(text, "sent by kind:") {
		t.Errorf("lagkit flood: %v\n%s", err, text)
	}
}

func TestFloodErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"flood"}, `required flag(s) "target" not set`},
		{[]string{"flood", "--target", "ws://127.0.0.1:1"}, "only UDP can be flooded"},
		{[]string{"flood", "--target", "127.0.0.1:1", "--rate", "0"}, "--rate 0: want 1 to 1000000"},
		{[]string{"flood", "--target", "127.0.0.1:1", "--duration", "0s"}, "--duration 0s: want a positive duration"},
		{[]string{"flood", "--target", "127.0.0.1:1", "--sources", "5000"}, "--sources 5000: want 1 to 4096"},
		{[]string{"flood", "--target", "127.0.0.1:http-alt-x", "--duration", "10ms"}, "flood: target"},
	} {
		_, err := run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lagkit %s: error %v, want it to contain %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// TestConnectTokens drives the real server core with connect tokens: each
// bad one is refused silently, before any slot or session state, and
// counted by reason; a valid one admits, once.
func TestConnectTokens(t *testing.T) {
	key, _ := token.NewKey()
	epoch := time.Unix(1_800_000_000, 0)
	s := testServer(t, Config{MaxClients: 4, ConnectKey: key, MatchID: "m1", Address: "10.0.0.1:27015", Epoch: epoch})
	now := 5 * time.Second // wall time epoch+5s
	seal := func(c token.Claims) string {
		t.Helper()
		if c.Match == "" {
			c.Match = "m1"
		}
		if c.Address == "" {
			c.Address = "10.0.0.1:27015"
		}
		if c.Expires.IsZero() {
			c.Expires = epoch.Add(now + 30*time.Second)
		}
		c.Player = "p"
		b, err := token.Seal(key, c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// try runs the handshake with sealed, returning whether it was
	// admitted; a refusal must come with no reply at all.
	var peer Peer
	try := func(sealed string) bool {
		t.Helper()
		peer++
		m := wire.Connect{Version: wire.Version, Nonce: uint64(peer), Name: "p", Token: sealed}
		var ch wire.Challenge
		reply := connectTo(t, s, now, peer, &m)
		if reply == nil {
			return false
		}
		if wire.DecodeChallenge(reply, &ch) != nil {
			t.Fatalf("want a challenge or nothing, got %x", reply)
		}
		m.Token = ch.Token + sealed
		reply = connectTo(t, s, now, peer, &m)
		var a wire.Accept
		if reply == nil {
			return false
		}
		if wire.DecodeAccept(reply, &a) != nil {
			t.Fatalf("want an accept or nothing, got %x", reply)
		}
		return true
	}
	tampered := []byte(seal(token.Claims{}))
	tampered[30] ^= 1
	good := seal(token.Claims{})
	for _, tc := range []struct {
		name   string
		sealed string
		count  func(TokenRefusals) int
	}{
		{"none", "", func(r TokenRefusals) int { return r.Invalid }},
		{"expired", seal(token.Claims{Expires: epoch.Add(now)}), func(r TokenRefusals) int { return r.Expired }},
		{"wrong match", seal(token.Claims{Match: "m2"}), func(r TokenRefusals) int { return r.WrongMatch }},
		{"wrong address", seal(token.Claims{Address: "10.0.0.2:27015"}), func(r TokenRefusals) int { return r.WrongAddress }},
		{"tampered", string(tampered), func(r TokenRefusals) int { return r.Invalid }},
	} {
		before := tc.count(s.Stats().Tokens)
		if try(tc.sealed) {
			t.Fatalf("%s: admitted", tc.name)
		}
		if got := tc.count(s.Stats().Tokens); got != before+1 {
			t.Fatalf("%s: counted %d, want %d (%+v)", tc.name, got, before+1, s.Stats().Tokens)
		}
		if len(s.byPeer) != 0 || s.Stats().Challenged != 0 {
			t.Fatalf("%s: state allocated: %d sessions, %d challenged", tc.name, len(s.byPeer), s.Stats().Challenged)
		}
	}
	if !try(good) {
		t.Fatal("valid token refused")
	}
	if len(s.byPeer) != 1 || s.Stats().Connects != 1 {
		t.Fatalf("after a valid token: %d sessions, %d connects", len(s.byPeer), s.Stats().Connects)
	}
	if try(good) {
		t.Fatal("replayed token admitted")
	}
	if s.Stats().Tokens.Replayed != 1 || len(s.byPeer) != 1 {
		t.Fatalf("replay: %+v, %d sessions", s.Stats().Tokens, len(s.byPeer))
	}
}

func TestConnectKeyConfig(t *testing.T) {
	key, _ := token.NewKey()
	for _, cfg := range []Config{
		{ConnectKey: key[:16], Epoch: time.Unix(1, 0)},
		{ConnectKey: key},
		{ConnectKey: key, Epoch: time.Unix(1, 0), TokenWindow: -1},
	} {
		cfg.Map = worldtest.Open(t)
		if _, err := New(armed(cfg)); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// TestTokenWindowBounded checks that remembered token ids stay within
// TokenWindow and expired ones are forgotten.
func TestTokenWindowBounded(t *testing.T) {
	key, _ := token.NewKey()
	epoch := time.Unix(1_800_000_000, 0)
	s := testServer(t, Config{MaxClients: 8, ConnectKey: key, MatchID: "m", Address: "a", Epoch: epoch, TokenWindow: 2})
	admit := func(now time.Duration, peer Peer) bool {
		b, _ := token.Seal(key, token.Claims{Match: "m", Address: "a", Expires: epoch.Add(now + 10*time.Second)})
		m := wire.Connect{Version: wire.Version, Nonce: 1, Token: string(b)}
		var ch wire.Challenge
		if wire.DecodeChallenge(connectTo(t, s, now, peer, &m), &ch) != nil {
			t.Fatal("no challenge")
		}
		m.Token = ch.Token + string(b)
		return connectTo(t, s, now, peer, &m) != nil
	}
	if !admit(0, 1) || !admit(0, 2) {
		t.Fatal("refused")
	}
	if admit(time.Second, 3) || s.Stats().Tokens.WindowFull != 1 {
		t.Fatalf("window overfilled: %+v", s.Stats().Tokens)
	}
	if !admit(20*time.Second, 4) || len(s.seenTokens) != 1 {
		t.Fatalf("expired ids not forgotten: %d kept", len(s.seenTokens))
	}
}

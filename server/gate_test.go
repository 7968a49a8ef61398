package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// TestGateScreenFrom: a driver hands the gate the bytes and the
// address's name and learns all it needs (refused and why, the reply to
// send, the Peer to admit) without looking at the bytes itself.
func TestGateScreenFrom(t *testing.T) {
	g, err := NewGate(GateConfig{CookieKey: []byte("cookie key")})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1, 0)
	for _, junk := range [][]byte{nil, {byte(wire.MsgCommands), 1, 2}, {byte(wire.MsgDisconnect)}} {
		sc := g.ScreenFrom(now, "udp:1.2.3.4:5", junk, nil)
		if sc.Verdict != Drop || sc.Refusal == "" || sc.Out != nil || sc.Peer != 0 {
			t.Errorf("%x: %+v, want a drop with its reason and no peer", junk, sc)
		}
	}
	m := wire.Connect{Version: wire.Version, Nonce: 9, Name: "p"}
	b, err := wire.AppendConnect(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	peer := g.PeerOf("udp:1.2.3.4:5")
	sc := g.ScreenFrom(now, "udp:1.2.3.4:5", b, nil)
	var ch wire.Challenge
	if sc.Verdict != Reply || sc.Peer != peer || wire.DecodeChallenge(sc.Out, &ch) != nil || ch.Nonce != 9 {
		t.Fatalf("a Connect: %+v, want a Challenge from peer %x", sc, peer)
	}
	m.Token = ch.Token
	b, _ = wire.AppendConnect(nil, &m)
	if sc := g.ScreenFrom(now, "udp:1.2.3.4:5", b, nil); sc.Verdict != Admit || sc.Peer != peer {
		t.Fatalf("the proving Connect: %+v, want it admitted as %x", sc, peer)
	}
	if sc := g.ScreenFrom(now, "udp:1.2.3.4:6", b, nil); sc.Verdict != Reply || sc.Peer == peer {
		t.Fatalf("the token from another address: %+v, want a new Challenge", sc)
	}
}

// TestGateFull: the gate builds the "server full" Reject, no larger than
// the Connect it answers.
func TestGateFull(t *testing.T) {
	g, err := NewGate(GateConfig{CookieKey: []byte("cookie key")})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := g.Full(nil, wire.ConnectSize)
	var r wire.Reject
	if !ok || wire.DecodeReject(b, &r) != nil || r.Reason != "server full" || len(b) > wire.ConnectSize {
		t.Fatalf("Full: %x %v, want a Reject saying the server is full", b, ok)
	}
	if b, ok := g.Full(nil, 4); ok || len(b) != 0 {
		t.Fatalf("Full for a 4-byte Connect: %x, want nothing larger than it", b)
	}
}

package realtime

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// rawClient is a client made of a UDP socket, the wire's messages and
// sealed sessions (package seal): it can do what a client restarted at
// the same address does, and send a goodbye of its previous session.
type rawClient struct {
	t    *testing.T
	conn *net.UDPConn
	// sess is each session's sealing, by nonce; cur the newest.
	sess map[uint64]*seal.Session
	cur  *seal.Session
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialUDP("udp", nil, to)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawClient{t: t, conn: conn, sess: map[uint64]*seal.Session{}}
}

func (r *rawClient) send(b []byte, err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.conn.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

// await reads until a datagram of type typ arrives (skipping others,
// such as the snapshots of a session) and returns it.
func (r *rawClient) await(typ wire.MsgType) []byte {
	r.t.Helper()
	buf := make([]byte, wire.MaxDatagram)
	deadline := time.Now().Add(3 * time.Second)
	for {
		_ = r.conn.SetReadDeadline(deadline)
		n, err := r.conn.Read(buf)
		if err != nil {
			r.t.Fatalf("waiting for a %v: %v", typ, err)
		}
		b := buf[:n]
		if seal.Is(b) && r.cur != nil {
			if b, err = r.cur.Open(nil, b); err != nil {
				continue
			}
		}
		if got, err := wire.PeekType(b); err == nil && got == typ {
			return b
		}
	}
}

// connect runs the handshake for session nonce under name and returns
// the seat accepted.
func (r *rawClient) connect(nonce uint64, name string) int {
	r.t.Helper()
	key, err := seal.NewKey()
	if err != nil {
		r.t.Fatal(err)
	}
	pub := key.PublicKey().Bytes()
	m := wire.Connect{Version: wire.Version, Nonce: nonce, Name: name, InterpDelay: 100 * time.Millisecond, Key: string(pub), Game: weapon.Layout.Hash()}
	r.send(wire.AppendConnect(nil, &m))
	for {
		var ch wire.Challenge
		if wire.DecodeChallenge(r.await(wire.MsgChallenge), &ch) == nil && ch.Nonce == nonce {
			m.Token = ch.Token
			if r.cur, err = seal.New(seal.Client, key, pub, []byte(ch.Key), nonce); err != nil {
				r.t.Fatal(err)
			}
			r.sess[nonce] = r.cur
			break
		}
	}
	r.send(wire.AppendConnect(nil, &m))
	var a wire.Accept
	if err := wire.DecodeAccept(r.await(wire.MsgAccept), &a); err != nil {
		r.t.Fatal(err)
	}
	return int(a.ClientID)
}

// bye sends the goodbye of session nonce, sealed as that session's
// datagrams were (one it never had goes plain, as a spoofed one would).
func (r *rawClient) bye(nonce uint64) {
	r.t.Helper()
	b, err := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: nonce, Reason: "client left"})
	if s := r.sess[nonce]; s != nil {
		b = s.Seal(nil, b)
	}
	r.send(b, err)
}

// TestRestartAtSameAddress: a client restarted at the same address (the
// same UDP socket here, as when the OS gives a restarted program its old
// port) starts a new session on the same connection, which the server
// core may put in another seat; the match follows it there, and the goodbye
// of its previous session, arriving late (sealed under that session's
// keys), and a spoofed one (not sealed) end nothing: neither opens under
// the new session's keys. Its own goodbye ends it.
func TestRestartAtSameAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 4})
	a, b := dialRaw(t, srv.addr), dialRaw(t, srv.addr)
	if seat := a.connect(1, "a"); seat != 0 {
		t.Fatalf("a in seat %d, want 0", seat)
	}
	if seat := b.connect(1, "b"); seat != 1 {
		t.Fatalf("b in seat %d, want 1", seat)
	}
	a.bye(1)
	waitFor(t, srv.m, "a gone", func(i MatchInfo) bool { return len(i.Players) == 1 })
	// b restarts: the core ends its session in seat 1 and starts one in
	// the first free seat, 0.
	if seat := b.connect(2, "b2"); seat != 0 {
		t.Fatalf("restarted b in seat %d, want 0", seat)
	}
	c := dialRaw(t, srv.addr)
	if seat := c.connect(1, "c"); seat != 1 {
		t.Fatalf("c in seat %d, want 1", seat)
	}
	b.bye(1)     // the first session's goodbye, late
	b.bye(12345) // spoofed
	players := func(i MatchInfo) []string {
		var out []string
		for _, p := range i.Players {
			out = append(out, p.Name)
		}
		return out
	}
	want := func(names ...string) func(MatchInfo) bool {
		return func(i MatchInfo) bool { return slices.Equal(players(i), names) }
	}
	time.Sleep(200 * time.Millisecond)
	waitFor(t, srv.m, "b2 in seat 0 and c in seat 1", want("b2", "c"))
	info, _ := srv.m.Info()
	if info.Players[0].Seat != 0 || info.Players[1].Seat != 1 || info.Players[0].Peer == info.Players[1].Peer {
		t.Fatalf("players %+v, want b2 in seat 0 and c in seat 1 at their own addresses", info.Players)
	}
	b.await(wire.MsgSnapshot) // still playing
	var forged int
	if err := srv.m.do(func() { forged = srv.m.srv.Stats().Forged }); err != nil || forged != 2 {
		t.Fatalf("forged datagrams %d (%v), want 2", forged, err)
	}
	b.bye(2)
	waitFor(t, srv.m, "c alone", want("c"))
	time.Sleep(100 * time.Millisecond) // the connection closes once what was sent it has left
	if n := counter(t, srv.reg, "lagkit_disconnects_total", nil); n != 3 {
		t.Errorf("disconnects counted %v, want 3: a, b's first session, b2", n)
	}
}

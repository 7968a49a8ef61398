// Package flood sends a lagkit server's UDP port a stream of malformed
// and spoofed datagrams, as an attacker would, and counts what comes
// back: a load and abuse test for operators trying their own servers
// (lagkit flood). Sources cannot be forged from user space, so many
// sources are emulated by many sockets, each its own port. The stream
// mixes garbage of every size, truncated messages, Connects of other
// protocol versions, Connects with forged address or connect tokens,
// Connects that echo a server's Challenge with a wrong token, and
// well-formed commands, appeals, reports and goodbyes from addresses that
// have no session. A server that holds no state for an unproven address
// and never answers with more than it received sends back at most the
// bytes the flood sent (Result.Amplification at most 1).
package flood

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// Mode is what a flood sends.
type Mode string

// The modes.
const (
	Mixed    Mode = "mixed"
	HalfOpen Mode = "half-open"
	Spoof    Mode = "spoof"
)

// Modes lists the modes, for help and errors.
var Modes = []Mode{Mixed, HalfOpen, Spoof}

// Config sets up Run.
type Config struct {
	// Target is the server's UDP address, HOST:PORT. Required.
	Target string
	// Rate is the datagrams sent per second (default 10,000).
	Rate int
	// Duration is how long the flood lasts (default 10 s): it sends Rate
	// × Duration datagrams, unless its context ends first.
	Duration time.Duration
	// Sources is the number of sockets the datagrams are spread over,
	// each a source address of its own (default 64, at most 4096).
	Sources int
	// Seed seeds the payloads.
	Seed uint64
	// Mode is what to send: Mixed (the default) every kind of malformed
	// and sourceless datagram from Sources sockets; HalfOpen only
	// Connects, each from a new socket (a new source port) that never
	// answers the server's Challenge, as spoofed sources would; Spoof
	// Mixed's datagrams forged to come from SpoofFrom, a playing
	// client's address (needs a raw socket: root or CAP_NET_RAW).
	Mode Mode
	// SpoofFrom is the HOST:PORT Spoof forges datagrams from (IPv4).
	SpoofFrom string
}

// Result is what a flood sent and received.
type Result struct {
	Target    string  `json:"target"`
	Mode      Mode    `json:"mode"`
	DurationS float64 `json:"duration_s"`
	Sources   int     `json:"sources"`
	// Sent and SentBytes count the datagrams sent, Received and
	// ReceivedBytes the replies, on every source.
	Sent          int64 `json:"sent"`
	SentBytes     int64 `json:"sent_bytes"`
	Received      int64 `json:"received"`
	ReceivedBytes int64 `json:"received_bytes"`
	// SendErrors counts datagrams the system refused to send.
	SendErrors int64 `json:"send_errors"`
	// Kinds counts the datagrams sent by kind of payload, Replies the
	// datagrams received by message type.
	Kinds   map[string]int64 `json:"kinds"`
	Replies map[string]int64 `json:"replies"`
}

// Amplification is the reply bytes per byte sent.
func (r *Result) Amplification() float64 {
	return float64(r.ReceivedBytes) / float64(max(r.SentBytes, 1))
}

// Rate is the datagrams sent per second.
func (r *Result) Rate() float64 { return float64(r.Sent) / max(r.DurationS, 1e-9) }

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Target == "" {
		return out, errors.New("flood: a target address is required")
	}
	if out.Rate == 0 {
		out.Rate = 10000
	}
	if out.Duration == 0 {
		out.Duration = 10 * time.Second
	}
	if out.Sources == 0 {
		out.Sources = 64
	}
	if out.Mode == "" {
		out.Mode = Mixed
	}
	switch out.Mode {
	case Mixed, HalfOpen:
		if out.SpoofFrom != "" {
			return out, fmt.Errorf("flood: a spoofed source needs mode %s", Spoof)
		}
	case Spoof:
		if out.SpoofFrom == "" {
			return out, errors.New("flood: mode spoof needs the address to forge (SpoofFrom)")
		}
	default:
		return out, fmt.Errorf("flood: mode %q: want %s, %s or %s", out.Mode, Mixed, HalfOpen, Spoof)
	}
	switch {
	case out.Rate < 1 || out.Rate > 1_000_000:
		return out, fmt.Errorf("flood: rate %d: want 1 to 1,000,000 datagrams a second", out.Rate)
	case out.Duration < 0:
		return out, fmt.Errorf("flood: duration %v is negative", out.Duration)
	case out.Sources < 1 || out.Sources > 4096:
		return out, fmt.Errorf("flood: %d sources: want 1 to 4096", out.Sources)
	}
	return out, nil
}

// source is one socket and what it counts.
type source struct {
	conn *net.UDPConn
	rng  *rand.Rand
	// echo is a Connect answering the newest Challenge with a wrong
	// token, waiting to be sent (nil: none).
	mu   sync.Mutex
	echo []byte
}

// counts are a flood's counters, shared by its goroutines.
type counts struct {
	sent, sentBytes, received, receivedBytes, sendErrors atomic.Int64
	kinds                                                [numKinds]atomic.Int64
	replies                                              [256]atomic.Int64
}

// Run floods cfg.Target for cfg.Duration, or until ctx ends, and returns
// what it sent and received. It waits a little after the last datagram
// for the last replies.
func Run(ctx context.Context, cfg Config) (Result, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	to, err := net.ResolveUDPAddr("udp", c.Target)
	if err != nil {
		return Result{}, fmt.Errorf("flood: target %q: %w", c.Target, err)
	}
	local := &net.UDPAddr{}
	if to.IP.IsLoopback() {
		local.IP = to.IP
	}
	srcs := make([]*source, c.Sources)
	var cnt counts
	var readers sync.WaitGroup
	defer readers.Wait()
	for i := range srcs {
		conn, err := net.ListenUDP("udp", local)
		if err != nil {
			for _, s := range srcs[:i] {
				s.conn.Close()
			}
			return Result{}, fmt.Errorf("flood: source %d: %w", i, err)
		}
		srcs[i] = &source{conn: conn, rng: rand.New(rand.NewPCG(c.Seed, uint64(i)))}
		readers.Add(1)
		go func(s *source) {
			defer readers.Done()
			s.read(s.conn, &cnt)
		}(srcs[i])
	}
	defer func() {
		for _, s := range srcs {
			s.conn.Close()
		}
	}()
	pay := newPayloads(rand.New(rand.NewPCG(c.Seed, 1<<40)))
	send := func(s *source, b []byte) error {
		_, err := s.conn.WriteToUDP(b, to)
		return err
	}
	switch c.Mode {
	case Spoof:
		forge, err := newForger(c.SpoofFrom, to)
		if err != nil {
			return Result{}, err
		}
		defer forge.close()
		send = func(_ *source, b []byte) error { return forge.send(b) }
	case HalfOpen:
		send = func(s *source, b []byte) error {
			// A new source port for each Connect: the socket before it
			// is closed, its Challenge never answered.
			conn, err := net.ListenUDP("udp", local)
			if err != nil {
				return err
			}
			s.conn.Close()
			s.conn = conn
			readers.Add(1)
			go func() {
				defer readers.Done()
				s.read(conn, &cnt)
			}()
			_, err = conn.WriteToUDP(b, to)
			return err
		}
	}
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	// A stall of this process delays datagrams, never drops them: the
	// flood sends Rate × Duration datagrams, in a burst after a stall.
	total := int64(c.Duration.Seconds() * float64(c.Rate))
	for k := int64(0); k < total && ctx.Err() == nil; {
		for due := min(total, int64(time.Since(start).Seconds()*float64(c.Rate))); k < due; k++ {
			s := srcs[k%int64(len(srcs))]
			b, kind := pay.next(s.rng)
			switch {
			case c.Mode == HalfOpen:
				b, kind = pay.first(s.rng), kindHalfOpen
			case c.Mode == Spoof && (kind == kindEcho || kind == kindConnect || kind == kindForgedToken || kind == kindWrongVersion):
				// Forged Connects would only be challenged at the
				// victim's address; send what a session would get.
				b, kind = pay.byKind[kindCommands][s.rng.IntN(len(pay.byKind[kindCommands]))], kindCommands
			case kind == kindEcho:
				if b = s.takeEcho(); b == nil { // no Challenge came yet: start one
					b, kind = pay.first(s.rng), kindConnect
				}
			}
			if err := send(s, b); err != nil {
				cnt.sendErrors.Add(1)
				continue
			}
			cnt.sent.Add(1)
			cnt.sentBytes.Add(int64(len(b)))
			cnt.kinds[kind].Add(1)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	elapsed := time.Since(start)
	select { // the last replies
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
	}
	for _, s := range srcs {
		s.conn.Close()
	}
	readers.Wait()
	r := Result{
		Target: c.Target, Mode: c.Mode, DurationS: elapsed.Seconds(), Sources: c.Sources,
		Sent: cnt.sent.Load(), SentBytes: cnt.sentBytes.Load(), Received: cnt.received.Load(), ReceivedBytes: cnt.receivedBytes.Load(),
		SendErrors: cnt.sendErrors.Load(), Kinds: map[string]int64{}, Replies: map[string]int64{},
	}
	for k := range numKinds {
		if n := cnt.kinds[k].Load(); n > 0 {
			r.Kinds[kindNames[k]] = n
		}
	}
	for t := range cnt.replies {
		if n := cnt.replies[t].Load(); n > 0 {
			r.Replies[wire.MsgType(t).String()] = n
		}
	}
	return r, nil
}

// read counts the replies to s until its socket closes, and answers each
// Challenge with a Connect that echoes a wrong token.
func (s *source) read(conn *net.UDPConn, cnt *counts) {
	buf := make([]byte, 2048)
	for {
		n, _, err := conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		b := buf[:n]
		cnt.received.Add(1)
		cnt.receivedBytes.Add(int64(n))
		cnt.replies[b[0]].Add(1)
		var ch wire.Challenge
		if typ, err := wire.PeekType(b); err != nil || typ != wire.MsgChallenge || wire.DecodeChallenge(b, &ch) != nil || ch.Token == "" {
			continue
		}
		tok := []byte(ch.Token)
		tok[len(tok)/2] ^= 0x5a
		echo, err := wire.AppendConnect(nil, &wire.Connect{Version: wire.Version, Nonce: ch.Nonce, Token: string(tok), Name: "flood", Key: strings.Repeat("k", wire.KeySize)})
		if err == nil {
			s.mu.Lock()
			s.echo = echo
			s.mu.Unlock()
		}
	}
}

// takeEcho returns the Connect waiting to answer a Challenge, if any.
func (s *source) takeEcho() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.echo
	s.echo = nil
	return b
}

// Kinds of payload.
const (
	kindGarbage = iota
	kindTruncated
	kindConnect      // a first Connect, no token: a Challenge comes back
	kindForgedToken  // a Connect with a made-up address token and connect token
	kindWrongVersion // a Connect of another protocol version
	kindEcho         // a Connect echoing a Challenge with a wrong token
	kindCommands     // commands, as if from another player's session
	kindAppeal
	kindReport
	kindDisconnect
	kindHalfOpen // a Connect from a new source port, its Challenge never answered
	numKinds
)

var kindNames = [numKinds]string{"garbage", "truncated", "connect", "forged_token", "wrong_version", "wrong_echo",
	"commands", "appeal", "report", "disconnect", "half_open"}

// payloads are a flood's prepared datagrams, by kind.
type payloads struct {
	byKind [numKinds][][]byte
	// weights is the mix: the kinds in proportion. A kindEcho sends the
	// source's answer to the newest Challenge it got, or a first Connect
	// if none came.
	weights []int
}

func newPayloads(rng *rand.Rand) *payloads {
	p := &payloads{}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, n := range []int{1, 2, 3, 7, 16, 64, 300, wire.ConnectSize, 1200, 1400} {
		p.add(kindGarbage, random(n))
	}
	for i := range 64 {
		// A known type byte before the garbage, so decoders go further.
		b := random(2 + rng.IntN(64))
		b[0] = byte(wire.MsgConnect) + byte(i%int(wire.MsgReport))
		p.add(kindGarbage, b)
	}
	var valid [][]byte
	for i := range 32 {
		// Each with a key to seal its session with, as a native client's.
		c := wire.Connect{Version: wire.Version, Nonce: rng.Uint64(), Name: fmt.Sprintf("flood%d", i), Key: string(random(wire.KeySize))}
		b, _ := wire.AppendConnect(nil, &c)
		p.add(kindConnect, b)
		valid = append(valid, b)
		c.Token = string(random(16 + rng.IntN(wire.MaxTokenLen-16)))
		b, _ = wire.AppendConnect(nil, &c)
		p.add(kindForgedToken, b)
		for _, v := range []uint16{0, 1, wire.Version - 1, wire.Version + 1, 0xffff} {
			w := []byte{byte(wire.MsgConnect), byte(v), byte(v >> 8)}
			p.add(kindWrongVersion, append(w, random(rng.IntN(4))...))
		}
		cmds := wire.Commands{AckTick: rng.Uint32N(1 << 20), AckDelay: time.Millisecond, ClientTime: time.Second}
		for j := range 1 + rng.IntN(4) {
			cmds.Cmds = append(cmds.Cmds, game.UserCmd{Tick: uint32(1000*i + j + 1), Duration: 15625 * time.Microsecond, Buttons: game.BtnFire})
		}
		if b, err := wire.AppendCommands(nil, &cmds); err == nil {
			p.add(kindCommands, b)
			valid = append(valid, b)
		}
		b, _ = wire.AppendAppeal(nil, &wire.Appeal{ID: rng.Uint32(), Deny: true})
		p.add(kindAppeal, b)
		valid = append(valid, b)
		b, _ = wire.AppendReport(nil, &wire.Report{Seen: true, Shooter: uint8(i), ShotTick: rng.Uint32(), SBC: true})
		p.add(kindReport, b)
		b, _ = wire.AppendDisconnect(nil, &wire.Disconnect{Reason: "spoofed"})
		p.add(kindDisconnect, b)
	}
	for _, b := range valid {
		p.add(kindTruncated, b[:1+rng.IntN(len(b)-1)])
	}
	// The mix: garbage and truncated messages the most, then Connects of
	// every sort, then messages for sessions the sender does not have.
	for k, w := range [numKinds]int{kindGarbage: 3, kindTruncated: 2, kindConnect: 2, kindForgedToken: 2, kindWrongVersion: 1,
		kindEcho: 2, kindCommands: 2, kindAppeal: 1, kindReport: 1, kindDisconnect: 1} {
		for range w {
			p.weights = append(p.weights, k)
		}
	}
	return p
}

func (p *payloads) add(kind int, b []byte) { p.byKind[kind] = append(p.byKind[kind], b) }

// first picks a first Connect, which a server answers with a Challenge.
func (p *payloads) first(rng *rand.Rand) []byte {
	list := p.byKind[kindConnect]
	return list[rng.IntN(len(list))]
}

// next picks a payload.
func (p *payloads) next(rng *rand.Rand) ([]byte, int) {
	k := p.weights[rng.IntN(len(p.weights))]
	if k == kindEcho {
		return nil, k // the source's own
	}
	list := p.byKind[k]
	return list[rng.IntN(len(list))], k
}

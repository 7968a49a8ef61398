// Package realtime runs lagkit's sans-IO server and client cores on the
// wall clock over real transports. A Match is one server core driven by
// its own goroutine at the tick rate, fed through a preallocated batch
// its connections' datagrams are copied into (transport.Inbox) and
// taken once per wake, with optional per-player emulated
// links (package netem) on the live path; a Host runs many matches and
// hands them the connections its listeners accept; RunClient drives a
// client core, played by a Brain, over any transport.Conn.
package realtime

import (
	"context"
	crand "crypto/rand"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/transport"
)

// queueLen is how many received datagrams a match buffers between its
// readers and its goroutine, which drains them as they come: at 128
// players each sending one command packet per 64 Hz tick, 125 ms worth.
// Its buffers (about 1 MiB) are allocated once.
const queueLen = 1024

// goneLen is how many closed connections may wait for the match to take
// them: their readers then send and poke without waiting (more wait
// their turn).
const goneLen = 64

// batchBytes is the room a match's batch of received datagrams has per
// datagram on average: a client's command datagram, its redundant
// commands and acknowledgements, is a few hundred bytes.
const batchBytes = 512

// The match goroutine waits for a tick on its channels (commands, and
// datagrams from in-process pipes) and a wake timer (wakeTimer) set
// spinMargin before the tick, then spins the rest: the timer's own
// lateness, which the spin absorbs, is what spinMargin is per platform.

// sampleRing is how many recent ticks' durations and lateness a match
// keeps for its percentiles.
const sampleRing = 1 << 14

// ErrEnded is returned for commands sent to a match that has ended.
var ErrEnded = errors.New("realtime: match ended")

// Match is one live match: a server core run by its own goroutine on the
// wall clock. Its methods are safe to call from any goroutine; they talk
// to the match goroutine through its command channel, so the core itself
// stays single-threaded and lock-free.
type Match struct {
	// spectators is the view spectators share (Spectate).
	spectators spectators
	id         string
	r          *resolved
	srv        *server.Server
	// game gathers the handovers between two ticks for OnTick.
	game  gameView
	log   *slog.Logger
	met   *matchMetrics
	start time.Time
	tick  time.Duration

	// batch gathers the datagrams of connections that route into it
	// (transport.Routable), which the match takes once per wake; inbox
	// and free carry the others' (in-process pipes), one by one.
	batch *transport.Inbox
	inbox chan inbound
	free  chan []byte
	gone  chan *peer
	cmds  chan func()
	done  chan struct{}
	stop  chan string
	ended atomic.Bool
	// reason is why the match ended, set before done closes.
	reason string
	// timer is what the match goroutine waits on between ticks; those
	// who hand it something poke it.
	timer *wakeTimer
	// wg counts the match's reader and bot goroutines.
	wg sync.WaitGroup

	// Owned by the match goroutine.
	peers    map[server.Peer]*peer
	nextPeer server.Peer
	rules    []linkRule
	linkSeed uint64
	pkt      []byte
	// out gathers what the match sends until flush; outN and outBytes
	// count it for the metrics, once per flush.
	out            *transport.SendBatch
	outN, outBytes int
	// clock is the latest time handed to the core: a batch's arrival
	// times never take it back.
	clock    time.Duration
	humans   int
	bots     []*peer
	botSeq   int
	samples  tickSamples
	sink     record.Sink // what happens goes here (SetSink)
	round    int         // the match's index in its host: its round in the sink
	rec      recording   // recording a study's round (Record)
	deadline time.Duration
	final    map[string]server.Tally // the statistics the match ended with
	rewinds  viewRewinds             // the latest hits, for View
	shots    viewShots               // the latest shots, for Spectate
	delayed  *delayedViews           // the views a delayed Spectate serves; nil: no delay
}

// inbound is one datagram from a peer, in a buffer from the match's pool.
type inbound struct {
	p *peer
	b []byte
}

// newMatch starts a match for cfg, identified by id, logging to log and
// counting into met.
// With a connect key the match admits only clients with a connect token
// for id at tokenAddr (see Host.RequireTokens).
func newMatch(id string, cfg MatchConfig, log *slog.Logger, met *Metrics, keys matchKeys, tokenAddr string) (*Match, error) {
	r, p := cfg.resolve()
	if p != nil {
		return nil, &ConfigError{p}
	}
	// The address tokens must be secret on a real network (the core's
	// default derives them from the seed), and the same as the host's
	// gates', which answer Challenges before any match sees a Connect.
	r.server.CookieKey, r.server.SealKey = keys.cookie, keys.seal
	if len(r.server.CookieKey) == 0 {
		r.server.CookieKey = make([]byte, 32)
		crand.Read(r.server.CookieKey)
	}
	if len(keys.connect) != 0 {
		r.server.ConnectKey, r.server.MatchID, r.server.Address = keys.connect, id, tokenAddr
	}
	// The core's time zero, as wall time: the core checks connect
	// tokens' expiry against it and reads no clock itself.
	start := time.Now()
	r.server.Epoch = start
	srv, err := server.New(r.server)
	if err != nil {
		return nil, err
	}
	if r.cfg.Name == "" {
		r.cfg.Name = id
	}
	m := &Match{
		id: id, r: r, srv: srv, tick: srv.TickDuration(),
		log:   log.With("match", id),
		met:   met.forMatch(id, r.cfg.Seats),
		inbox: make(chan inbound, queueLen), free: make(chan []byte, queueLen),
		gone: make(chan *peer, goneLen), cmds: make(chan func(), 16), done: make(chan struct{}), stop: make(chan string, 1),
		peers: map[server.Peer]*peer{}, nextPeer: 1, rules: r.rules, linkSeed: r.cfg.Seed,
		pkt:   make([]byte, 0, transport.MaxDatagram),
		batch: transport.NewInbox(queueLen, queueLen*batchBytes), out: transport.NewSendBatch(),
	}
	for range queueLen {
		m.free <- make([]byte, transport.MaxDatagram)
	}
	if keys.spectateDelay > 0 {
		m.delayed = newDelayedViews(keys.spectateDelay)
	}
	m.timer = newWakeTimer()
	m.batch.OnHalfFull(m.timer.poke)
	m.start = start
	go m.guard()
	return m, nil
}

// ID returns the match's identifier.
func (m *Match) ID() string { return m.id }

// Done is closed once the match has ended and its connections are
// closed.
func (m *Match) Done() <-chan struct{} { return m.done }

// Reason returns why the match ended ("" while it runs).
func (m *Match) Reason() string {
	select {
	case <-m.done:
		return m.reason
	default:
		return ""
	}
}

// do runs f on the match goroutine and waits for it.
func (m *Match) do(f func()) error {
	ran := make(chan struct{})
	select {
	case m.cmds <- func() { f(); close(ran) }:
		m.timer.poke()
	case <-m.done:
		return ErrEnded
	}
	select {
	case <-ran:
		return nil
	case <-m.done:
		return ErrEnded
	}
}

// Add joins conn to the match as a player. The match reads it until it
// closes, and closes it when the player leaves or the match ends.
func (m *Match) Add(conn transport.Conn) error {
	var err error
	if e := m.do(func() { _, err = m.add(conn, 0, false) }); e != nil {
		return e
	}
	return err
}

// addFirst adds conn as Add does, as the server's peer id (the one the
// host's gate gave its address, which its address token is keyed by),
// and hands the match first, the Connect the gate admitted.
func (m *Match) addFirst(conn transport.Conn, id server.Peer, first []byte) error {
	var err error
	if e := m.do(func() {
		var p *peer
		if p, err = m.add(conn, id, false); err != nil {
			return
		}
		select {
		case b := <-m.free:
			m.receive(m.now(), inbound{p: p, b: append(b[:0], first...)})
		default:
			m.met.dropped[DropQueueFull].Inc()
		}
	}); e != nil {
		return e
	}
	return err
}

// SetLatency replaces the match's per-player link rules; players already
// connected get their new links at once (packets in flight keep their
// delivery times).
func (m *Match) SetLatency(rules []LinkRule) error {
	lr, p := linkRules(rules, "")
	if p != nil {
		return &ConfigError{p}
	}
	return m.do(func() {
		m.rules = lr
		for _, p := range m.peers {
			m.applyRule(p)
		}
	})
}

// End ends the match, telling every player reason, and waits until its
// connections are closed or ctx is done.
func (m *Match) End(ctx context.Context, reason string) error {
	select {
	case m.stop <- reason:
		m.timer.poke()
	default: // an end is already under way
	}
	select {
	case <-m.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// MatchInfo describes a running match.
type MatchInfo struct {
	ID       string      `json:"id"`
	Config   MatchConfig `json:"config"`
	Tick     uint32      `json:"tick"`
	UptimeS  float64     `json:"uptime_s"`
	Humans   int         `json:"humans"`
	Bots     int         `json:"bots"`
	Players  []Player    `json:"players"`
	Ticks    TickStats   `json:"ticks"`
	Score    [2]int      `json:"score"`
	Captures int         `json:"captures"`
}

// Player is one connected player as the server sees it.
type Player struct {
	Seat  int     `json:"seat"`
	Name  string  `json:"name"`
	Peer  string  `json:"peer"`
	Bot   bool    `json:"bot"`
	Team  int     `json:"team"`
	RTTms float64 `json:"rtt_ms"`
	// InjectedMS is the round trip the match's emulated links add to the
	// player's now, and TargetMS the round trip a target rule holds (0:
	// none).
	InjectedMS float64 `json:"injected_ms,omitempty"`
	TargetMS   float64 `json:"target_ms,omitempty"`
	Shots      int     `json:"shots"`
	Hits       int     `json:"hits"`
	// PressShots counts shots that carried the instant and aim of their
	// fire press (sub-tick input).
	PressShots int `json:"press_shots"`
	Kills      int `json:"kills"`
	Deaths     int `json:"deaths"`
	// BytesOut is what the server sent the player.
	BytesOut int `json:"bytes_out"`
}

// Info describes the match now.
func (m *Match) Info() (MatchInfo, error) {
	var info MatchInfo
	err := m.do(func() { info = m.info() })
	return info, err
}

// TickStats summarises the ticks after server tick since (at most the
// last 16384 tick starts).
func (m *Match) TickStats(since int) (TickStats, error) {
	var ts TickStats
	err := m.do(func() { ts = m.samples.stats(m.tick, since, m.srv.Tick()) })
	return ts, err
}

func (m *Match) info() MatchInfo {
	info := MatchInfo{
		ID: m.id, Config: m.r.cfg, Tick: m.srv.Tick(), UptimeS: time.Since(m.start).Seconds(),
		Humans: m.humans, Bots: len(m.bots), Ticks: m.samples.stats(m.tick, 0, m.srv.Tick()),
	}
	info.Score = m.srv.Rules().TeamScore()
	if mt := shooter.Match(m.srv); mt != nil {
		info.Captures = mt.Captures
	}
	for _, p := range m.peers {
		if p.seat < 0 {
			continue
		}
		ci, ok := m.srv.Client(p.seat)
		if !ok {
			continue
		}
		info.Players = append(info.Players, Player{
			Seat: p.seat, Name: ci.Name, Peer: p.conn.Peer(), Bot: p.bot, Team: ci.Team,
			RTTms: float64(ci.RTT) / float64(time.Millisecond), InjectedMS: msec.Of(p.lat[0] + p.lat[1]), TargetMS: msec.Of(p.rule.target),
			Shots: ci.Shots, Hits: ci.Hits, PressShots: ci.PressShots,
			Kills: ci.Kills, Deaths: ci.Deaths, BytesOut: ci.BytesSent,
		})
	}
	slices.SortFunc(info.Players, func(a, b Player) int { return a.Seat - b.Seat })
	return info
}

// now is the match's server time: monotonic wall time since it started.
func (m *Match) now() time.Duration { return time.Since(m.start) }

// run is the match goroutine.
func (m *Match) run() {
	m.log.Info("match start", "name", m.r.cfg.Name, "map", m.r.cfg.Map, "mode", m.r.cfg.Mode,
		"tick_rate", m.r.cfg.TickRate, "policy", m.srv.Policy().Name(), "seats", m.r.cfg.Seats, "bots", m.r.cfg.Bots)
	m.fillBots()
	timer := m.timer
	defer timer.stop()
	reason := ""
	// awake is when the goroutine last woke: the time between waking and
	// waiting again is the match's CPU time.
	awake := time.Now()
	for reason == "" {
		// A tick starts when the goroutine wakes for it: reading the
		// datagrams that arrived since the last (the kernel held them,
		// stamped with their arrival) is its first step.
		woke := m.now()
		m.drainBatch() // before now: every arrival in it is earlier
		now := m.now()
		m.deliverUp(now)
		if next := m.srv.NextTick(); next <= now {
			m.advance(woke, now, next)
			if over := m.over(); over != "" {
				reason = over
				break
			}
		}
		m.deliverDown(m.now())
		wake := m.wake()
		wait := wake - m.now()
		if wait > spinMargin {
			timer.arm(wait - spinMargin)
			// Arming first, then looking: a sender after the look pokes
			// the timer after the arming (see wakeTimer).
			select {
			case in := <-m.inbox:
				m.receive(m.now(), in)
				m.drainPipes()
				continue
			case f := <-m.cmds:
				f()
				continue
			case p := <-m.gone:
				m.closed(p)
				continue
			case reason = <-m.stop:
				continue
			default:
			}
			m.met.cpu.Add(time.Since(awake).Seconds())
			timer.wait()
			awake = time.Now()
			continue // the loop takes the batch, and spins if early
		}
		m.drainPipes()
		for m.now() < wake {
			// Spin without yielding: the margin is short, and a yield could
			// hand the processor to a goroutine that runs past the tick.
		}
	}
	m.met.cpu.Add(time.Since(awake).Seconds())
	m.end(reason)
}

// drainPipes takes every datagram the in-process pipes queued.
func (m *Match) drainPipes() {
	for {
		select {
		case in := <-m.inbox:
			m.receive(m.now(), in)
		default:
			return
		}
	}
}

// wake returns when the goroutine next has work: the next tick or the
// next emulated delivery.
func (m *Match) wake() time.Duration {
	w := m.srv.NextTick()
	for _, p := range m.peers {
		if p.up != nil {
			if t, ok := p.up.Next(); ok {
				w = min(w, t)
			}
		}
		if p.down != nil {
			if t, ok := p.down.Next(); ok {
				w = min(w, t)
			}
		}
	}
	return w
}

// over returns why the round is over, or "".
func (m *Match) over() string {
	if m.srv.Rules().Over(m.srv.PlayTime()) {
		return "match over"
	}
	if m.deadline > 0 && m.srv.PlayTime() >= m.deadline {
		return "round over"
	}
	return ""
}

// receive takes one datagram from the inbound queue.
func (m *Match) receive(now time.Duration, in inbound) {
	m.met.dgIn.Inc()
	m.met.bytesIn.Add(float64(len(in.b)))
	m.clock = max(m.clock, now)
	m.take(m.clock, in.p, in.b)
	m.free <- in.b[:cap(in.b)]
}

// take hands p's datagram b, received at now, to p's emulated uplink if
// it has one, else straight to the core.
func (m *Match) take(now time.Duration, p *peer, b []byte) {
	switch {
	case p.removed:
	case p.up != nil:
		p.up.Send(now, b)
	default:
		m.step(now, p, b)
	}
}

// drainBatch takes the datagrams batched since the last call, each at
// its arrival time (or the core's latest time if later), and counts
// them once.
func (m *Match) drainBatch() {
	b := m.batch.Take()
	if d := b.Dropped(); d > 0 {
		m.met.dropped[DropQueueFull].Add(float64(d))
	}
	n := b.Len()
	if n == 0 {
		return
	}
	m.met.dgIn.Add(float64(n))
	m.met.bytesIn.Add(float64(b.Bytes()))
	for i := range n {
		tag, arrived, data := b.Datagram(i)
		p := m.peers[server.Peer(tag)]
		if p == nil {
			continue // gone since
		}
		m.clock = max(m.clock, arrived.Sub(m.start))
		m.take(m.clock, p, data)
	}
}

// step hands a datagram to the core.
func (m *Match) step(now time.Duration, p *peer, b []byte) {
	m.admit(now, p, b)
	switch err := m.srv.Step(now, p.id, b); {
	case err == nil, errors.Is(err, server.ErrOverLimit):
	case errors.Is(err, server.ErrForged):
		m.met.dropped[DropForged].Inc()
	case errors.Is(err, server.ErrMalformed):
		// Counted from the core's handover (Ready.Counts).
	default:
		m.met.dropped[DropNoPeer].Inc() // well formed, but not from a player
	}
	m.route(now, m.srv.Ready())
}

// deliverUp hands the core every emulated uplink datagram due by now.
func (m *Match) deliverUp(now time.Duration) {
	for _, p := range m.peers {
		if p.up == nil {
			continue
		}
		for {
			b, ok := p.up.Receive(now, m.pkt[:0])
			if !ok {
				break
			}
			m.step(now, p, b)
		}
	}
}

// deliverDown sends every emulated downlink datagram due by now, and
// closes the connections of players the server dropped once what was
// sent them has left.
func (m *Match) deliverDown(now time.Duration) {
	for _, p := range m.peers {
		if p.down != nil {
			for {
				b, ok := p.down.Receive(now, m.pkt[:0])
				if !ok {
					break
				}
				m.send(p, b)
			}
		}
		if p.closing != "" && (p.down == nil || p.down.Len() == 0) {
			m.flush() // what was sent it leaves before its connection closes
			m.remove(p, p.closing)
		}
	}
	m.flush()
}

// route takes the core's handover r: it sends its datagrams, through
// each player's emulated downlink if it has one, else at once, and
// accounts for the rest (account). A session the core started is noted
// first (its seat and link rules, which the Accept then travels by); a
// peer whose session the core ended is closed once what was sent it has
// left (deliverDown).
func (m *Match) route(now time.Duration, r *server.Ready) {
	m.countRefused(r.Counts)
	for _, c := range r.Sessions {
		p := m.peers[c.Peer]
		switch {
		case p == nil:
		case c.Opened:
			m.seated(p) // accepted, or started again by a client restarted at its address
		case !c.ByClient || p.seat >= 0 && p.closing == "":
			p.closing = c.Reason
		}
	}
	for _, dg := range r.Messages {
		p := m.peers[dg.To]
		if p == nil {
			continue
		}
		if p.down != nil {
			p.down.Send(now, dg.Data)
		} else {
			m.send(p, dg.Data)
		}
	}
	m.flush()
	m.account(r)
}

// countRefused counts in the metrics what the core says it refused or dropped
// (Ready.Counts).
func (m *Match) countRefused(n server.Counts) {
	if n.Malformed > 0 {
		m.met.dropped[DropMalformed].Add(float64(n.Malformed))
	}
	if n.Tokens > 0 {
		m.met.dropped[DropToken].Add(float64(n.Tokens))
	}
	for code, k := range n.Kicked {
		if k > 0 {
			m.met.kicked[code].Add(float64(k))
		}
	}
}

// send puts one datagram for a player in the match's send batch, which
// flush sends without blocking.
func (m *Match) send(p *peer, b []byte) {
	if err := m.out.Add(p.conn, b); err != nil {
		m.met.dropped[DropSend].Inc()
		return
	}
	m.outN++
	m.outBytes += len(b)
}

// flush sends the match's send batch (a tick's snapshots in one or a few
// system calls) and counts it.
func (m *Match) flush() {
	m.out.Flush()
	if m.outN > 0 {
		m.met.dgOut.Add(float64(m.outN))
		m.met.bytesOut.Add(float64(m.outBytes))
		m.outN, m.outBytes = 0, 0
	}
}

// advance runs the core's due ticks, scheduled at scheduled, and
// accounts for them: the goroutine woke for them at woke and had read
// their datagrams by now. A tick's lateness is its wake's past its
// schedule; its time runs from the later of the two (reading datagrams
// included) to the end of the core's tick.
func (m *Match) advance(woke, now, scheduled time.Duration) {
	late := max(woke-scheduled, 0)
	m.met.late.Observe(late.Seconds())
	m.clock = max(m.clock, now)
	before := m.srv.Tick()
	r := m.srv.Advance(now)
	if f := m.r.cfg.OnTick; f != nil && r.Ticks > 0 {
		m.game.add(r)
		f(m.srv, m.game.take())
		m.game.reset()
	}
	// Several ticks run at once after a late start; each is charged the
	// mean.
	d := (m.now() - max(woke, scheduled)) / time.Duration(max(m.srv.Tick()-before, 1))
	m.met.tick.Observe(d.Seconds())
	if d > m.tick {
		m.met.overruns.Inc()
	}
	m.samples.add(d, late, d > m.tick, m.srv.Tick())
	m.srv.SetLoad(d, late)
	m.route(now, r)
	m.checkPeers()
	if m.delayed != nil {
		m.keepDelayed()
	}
}

// account turns what the core's handover r says happened into metrics,
// records and logs.
func (m *Match) account(r *server.Ready) {
	if m.r.cfg.OnTick != nil && r.Ticks == 0 {
		m.game.add(r) // for the next tick's OnTick
	}
	for _, rec := range r.Shots {
		m.keepRewind(&rec)
		m.keepShot(&rec)
		if !rec.Told {
			m.putShot(&rec) // a told hit is kept with its victim's judgment
		}
		if rec.Rewound {
			m.met.rewind.Inc()
			if rec.Hit {
				m.met.rollback.Observe(rec.RollbackM)
			}
		}
		if rec.Appealed {
			m.met.appeals.WithLabelValues(rec.Outcome.String()).Inc()
		}
	}
	m.putSightings(r)
	m.putReports(r)
	if r.Ticks > 0 {
		m.putPaths()
	}
	for i := range r.Log {
		e := &r.Log[i]
		m.putLog(e)
		if e.Kind != "disconnect" {
			continue
		}
		for _, p := range m.peers {
			if _, still := m.srv.ClientByPeer(p.id); p.seat == e.Player && p.closing == "" && !still {
				p.closing = "dropped by the server" // a drop whose Disconnect the messages did not carry
			}
		}
	}
}

// checkPeers closes, after a tick, the connections whose session the
// core dropped without a word and those that never asked for one.
func (m *Match) checkPeers() {
	now := m.now()
	for _, p := range m.peers {
		if p.seat >= 0 {
			if _, ok := m.srv.ClientByPeer(p.id); !ok && p.closing == "" {
				p.closing = "dropped by the server"
			}
		} else if now-p.joined > connectTimeout && p.closing == "" {
			p.closing = "no connect request"
		}
		if lost := p.lost(); lost > 0 {
			m.met.dropped[DropEmulated].Add(float64(lost))
		}
		if p.rule.target > 0 && p.seat >= 0 && now-p.holdAt >= holdEvery {
			m.holdRTT(p, now)
		}
	}
}

// holdEvery is how often a held round trip is read: the server's
// estimate is smoothed over several samples, so reading it more often
// would weigh the same samples again.
const holdEvery = 250 * time.Millisecond

// holdRTT feeds p's hold the server's round trip estimate of it and
// moves its links when the hold changes what it injects.
func (m *Match) holdRTT(p *peer, now time.Duration) {
	p.holdAt = now
	ci, ok := m.srv.Client(p.seat)
	if !ok || ci.RTT <= 0 {
		return // not measured yet
	}
	if _, changed := p.hold.Observe(now, ci.RTT); changed {
		m.setLinks(p)
		m.srv.SetEmulated(p.seat, p.lat[0], p.lat[1])
	}
}

// connectTimeout is how long a connection may stay without a session
// before it is closed.
const connectTimeout = 10 * time.Second

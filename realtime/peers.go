package realtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// peer is one connection of a match.
type peer struct {
	id       server.Peer
	conn     transport.Conn
	bot      bool
	seat     int // -1 until the server accepts it
	name     string
	up, down *netem.Link // nil: no emulation
	// closing is the reason to close the connection with once what the
	// server sent it has left.
	closing string
	removed bool
	// counted is set once a person's connection counts among the
	// match's humans: from its first proven Connect (see admit).
	counted bool
	cancel  context.CancelFunc
	joined  time.Duration
	rule    linkRule // the emulation in force
	lostN   int      // emulated losses counted so far
	// hold keeps the round trip at the rule's target, read from the
	// server's estimate at holdAt.
	hold   netem.Hold
	holdAt time.Duration
	// lat is the latency the links add, up and down.
	lat [2]time.Duration
}

// lost returns the emulated losses since the last call.
func (p *peer) lost() int {
	n := 0
	for _, l := range []*netem.Link{p.up, p.down} {
		if l != nil {
			st := l.Stats()
			n += st.Lost + st.BurstLost + st.Dropped
		}
	}
	d := n - p.lostN
	p.lostN = n
	return max(d, 0)
}

// add registers conn and starts its reader. A person's connection
// counts among the match's humans only from its first Connect that
// proves its address (see admit), and only then does a bot give up its
// seat, so connections from spoofed addresses (which the listener
// bounds and connectTimeout closes) empty no seat and lock nobody out.
func (m *Match) add(conn transport.Conn, id server.Peer, isBot bool) (*peer, error) {
	if !isBot && m.humans >= m.r.cfg.Seats {
		return nil, fmt.Errorf("realtime: match %s is full", m.id)
	}
	if id == 0 {
		id = m.nextPeer
		m.nextPeer++
	}
	if m.peers[id] != nil {
		return nil, fmt.Errorf("realtime: match %s has a connection from %s already", m.id, conn.Peer())
	}
	p := &peer{id: id, conn: conn, bot: isBot, seat: -1, joined: m.now()}
	m.peers[p.id] = p
	if isBot {
		m.bots = append(m.bots, p)
	}
	m.applyRule(p)
	if r, ok := conn.(transport.Routable); ok {
		// Its datagrams go to the match's batch; its reader only waits
		// for the close.
		r.ReceiveInto(m.batch, uint64(p.id))
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	m.wg.Add(1)
	go m.read(ctx, p)
	return p, nil
}

// read is a connection's reader goroutine: it copies each datagram into a
// buffer from the match's pool and queues it, dropping it when the pool
// is empty, so a flood never blocks the match or grows memory.
func (m *Match) read(ctx context.Context, p *peer) {
	defer m.wg.Done()
	leave := func() {
		select {
		case m.gone <- p:
			m.timer.poke()
		case <-m.done:
		case <-ctx.Done():
		}
	}
	// A panic in the transport's Recv ends this connection alone.
	defer m.recoverPanic("reader", leave)
	scratch := make([]byte, transport.MaxDatagram)
	for {
		n, err := p.conn.Recv(ctx, scratch)
		if err != nil {
			leave()
			return
		}
		select {
		case b := <-m.free:
			b = b[:n]
			copy(b, scratch[:n])
			m.inbox <- inbound{p: p, b: b} // the queue holds every pooled buffer
			m.timer.poke()
		default:
			m.met.dropped[DropQueueFull].Inc()
		}
	}
}

// seated notes a session the server has just started for a connection:
// its seat and name, which link rules may name. A client restarted at
// the same address starts a new session on the same connection, in the
// seat the server gives it (not always its old one); its old session
// ended.
func (m *Match) seated(p *peer) {
	seat, ok := m.srv.ClientByPeer(p.id)
	if !ok {
		return
	}
	if p.seat >= 0 && p.closing == "" {
		m.met.disconnects.Inc()
		m.log.Info("disconnect", "peer", p.conn.Peer(), "seat", p.seat, "name", p.name, "bot", p.bot, "reason", "restarted")
	}
	// A close pending for the session before (its goodbye came first,
	// and its last datagrams are still leaving) is not this one's.
	p.closing = ""
	ci, _ := m.srv.Client(seat)
	p.seat, p.name = seat, ci.Name
	m.count(p)
	m.applyRule(p)
	m.met.connects.Inc()
	m.players()
	m.log.Info("connect", "peer", p.conn.Peer(), "seat", seat, "name", ci.Name, "team", ci.Team, "bot", p.bot,
		"up_ms", msec.Of(p.lat[0]), "down_ms", msec.Of(p.lat[1]))
}

// applyRule gives p the emulated links its rule asks for, or none, and
// tells the core the latency they add (for the player's net graph).
func (m *Match) applyRule(p *peer) {
	defer func() {
		if p.seat >= 0 {
			m.srv.SetEmulated(p.seat, p.lat[0], p.lat[1])
		}
	}()
	r, ok := ruleFor(m.rules, p.conn.Peer(), p.name, p.seat)
	if !ok || !r.emulate {
		// Packets in flight on a link being removed are delivered at
		// once rather than lost.
		m.flushLinks(p)
		p.up, p.down, p.rule, p.lostN, p.lat = nil, nil, linkRule{}, 0, [2]time.Duration{}
		return
	}
	if r.target != p.rule.target {
		p.hold = netem.Hold{Target: r.target}
	}
	p.rule = r
	m.setLinks(p)
}

// setLinks sets p's links to its rule, with half of what its hold
// injects each way under a target.
func (m *Match) setLinks(p *peer) {
	r := p.rule
	if r.target > 0 {
		inj := p.hold.Injected()
		r.up.Latency, r.down.Latency = inj/2, inj-inj/2
	}
	set := func(l **netem.Link, cfg netem.Config) {
		if *l != nil {
			_ = (*l).SetConfig(cfg) // checked when the rule was made
			return
		}
		m.linkSeed = m.linkSeed*6364136223846793005 + 1442695040888963407
		*l, _ = netem.NewLink(cfg, m.linkSeed)
	}
	set(&p.up, r.up)
	set(&p.down, r.down)
	p.lat = [2]time.Duration{r.up.Latency, r.down.Latency}
}

// flushLinks delivers whatever p's emulated links hold.
func (m *Match) flushLinks(p *peer) {
	far := time.Duration(math.MaxInt64)
	now := m.now()
	if p.up != nil {
		for b, ok := p.up.Receive(far, m.pkt[:0]); ok; b, ok = p.up.Receive(far, m.pkt[:0]) {
			m.step(now, p, b)
		}
	}
	if p.down != nil {
		for b, ok := p.down.Receive(far, m.pkt[:0]); ok; b, ok = p.down.Receive(far, m.pkt[:0]) {
			m.send(p, b)
		}
	}
	m.flush()
}

// closed handles a connection whose peer or network closed it.
func (m *Match) closed(p *peer) {
	if p.removed {
		return
	}
	reason := p.conn.Reason()
	if reason == "" {
		reason = "connection closed"
	}
	if p.seat >= 0 {
		m.srv.Kick(p.seat, "") // nobody is left to tell
		r := m.srv.Ready()
		m.countRefused(r.Counts)
		m.account(r)
	}
	m.remove(p, reason)
}

// remove forgets p, closing its connection with reason.
func (m *Match) remove(p *peer, reason string) {
	if p.removed {
		return
	}
	p.removed = true
	m.flush()             // what was sent it leaves before its connection closes
	m.noteGone(p, reason) // for the study's record of the disconnect
	_ = p.conn.Close(reason)
	p.cancel()
	delete(m.peers, p.id)
	if p.bot {
		m.bots = slices.DeleteFunc(m.bots, func(b *peer) bool { return b == p })
	} else if p.counted {
		m.humans--
	}
	if p.seat >= 0 {
		m.met.disconnects.Inc()
		m.log.Info("disconnect", "peer", p.conn.Peer(), "seat", p.seat, "name", p.name, "bot", p.bot, "reason", reason)
	}
	m.players()
	if !m.ended.Load() {
		m.fillBots()
	}
}

// players sets the players gauges.
func (m *Match) players() {
	var h, b int
	for _, p := range m.peers {
		if p.seat >= 0 && p.closing == "" {
			if p.bot {
				b++
			} else {
				h++
			}
		}
	}
	m.met.humans.Set(float64(h))
	m.met.bots.Set(float64(b))
}

// admit has a bot give its seat to the person at p, not yet seated,
// whose datagram b is a Connect the server would give a slot, when the
// match is at its bot-filled size.
func (m *Match) admit(now time.Duration, p *peer, b []byte) {
	if p.bot || p.counted {
		return
	}
	if wanted, ok := m.srv.Proven(now, p.id, b); ok {
		m.count(p)
		m.makeRoom(wanted)
	}
}

// count counts a person's connection among the match's humans, once.
func (m *Match) count(p *peer) {
	if !p.bot && !p.counted {
		p.counted = true
		m.humans++
	}
}

// makeRoom has a bot give its seat to a person who joined a match at its
// bot-filled size: the bot in seat wanted (the seat a person coming back
// asks for, wire.Rejoin; -1: none) if one sits there, else the newest.
func (m *Match) makeRoom(wanted int) {
	if m.r.cfg.Bots == 0 {
		return // no bot holds a seat for people (AddBot's bots have their own)
	}
	for len(m.bots) > 0 && (m.humans+len(m.bots) > m.r.cfg.Seats || m.humans+len(m.bots) > max(m.r.cfg.Bots, m.humans)) {
		b := m.bots[len(m.bots)-1]
		for _, o := range m.bots {
			if wanted >= 0 && o.seat == wanted {
				b = o
			}
		}
		wanted = -1
		if b.seat >= 0 {
			m.srv.Kick(b.seat, "seat given to a player")
			m.route(m.now(), m.srv.Ready())
			m.checkPeers()
		}
		m.remove(b, "seat given to a player")
	}
}

// fillBots starts server-side bots until Bots seats are taken.
func (m *Match) fillBots() {
	for m.humans+len(m.bots) < m.r.cfg.Bots {
		if err := m.startBot(); err != nil {
			m.log.Error("bot", "err", err)
			return
		}
	}
}

// startBot runs one bot through a client driver over an in-memory pipe.
func (m *Match) startBot() error { return m.startNamedBot("", 0) }

// startNamedBot runs one bot named name (default botN) whose connect
// token names seat.
func (m *Match) startNamedBot(name string, seat int) error {
	m.botSeq++
	if name == "" {
		name = fmt.Sprintf("bot%d", m.botSeq)
	}
	srvEnd, cliEnd := Pipe(name, "server", 256)
	seed := m.r.cfg.Seed ^ uint64(m.botSeq)*0x9e3779b97f4a7c15
	b, err := m.newBot(seed)
	if err != nil {
		return err
	}
	cc := client.Config{Map: m.r.server.Map, Movement: m.r.params, Step: m.r.server.Step, Game: m.r.server.Game, Cmd: m.r.cfg.Cmd, Shape: m.r.cfg.Shape, Name: name}
	if m.r.loadout != nil {
		cc.ShotRays = weapon.ShotRays(m.r.loadout)
	}
	if n := m.r.server.MaxClients; n < wire.MaxEntities {
		cc.FirstEntity = n // the server's entities, in its bots' steps' view
	}
	if key := m.r.server.ConnectKey; len(key) != 0 {
		tok, err := token.Seal(key, token.Claims{Match: m.id, Player: name, Seat: uint8(seat), Address: m.r.server.Address, Expires: time.Now().Add(time.Minute)})
		if err != nil {
			return err
		}
		cc.Token = tok
	}
	rep := m.r.server.Replication
	cc.FollowReplication(rep.Policy, rep.Order, rep.Teams)
	if _, err := m.add(srvEnd, 0, true); err != nil {
		return err
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		// A bot that panics closes its end: the server sees it leave.
		defer m.recoverPanic("bot", func() { cliEnd.Close("bot error") })
		_, _ = RunClient(context.Background(), cliEnd, ClientConfig{Client: cc, Brain: b})
	}()
	return nil
}

// newBot makes the brain of the bot started last, seeded by seed: the
// game's policy (MatchConfig.BotPolicy), else lagkit's bot.
func (m *Match) newBot(seed uint64) (Brain, error) {
	if mk := m.r.cfg.BotPolicy; mk != nil {
		b, err := mk(m.botSeq-1, seed)
		if err == nil && b == nil {
			err = errors.New("no policy")
		}
		if err != nil {
			return nil, fmt.Errorf("bot %d: %w", m.botSeq-1, err)
		}
		return b, nil
	}
	grid, err := m.botGrid()
	if err != nil {
		return nil, err
	}
	return newBotBrain(m.botConfig(m.botSeq), m.r.server.Map, grid, m.r.params, m.r.weapon, seed)
}

// newBotBrain makes a server-side bot's brain (bots.New; tests swap in
// one that fails).
var newBotBrain = func(cfg bots.Config, w *world.Map, g *nav.Grid, p *game.Params, weapon *weapon.Weapon, seed uint64) (Brain, error) {
	return bots.New(cfg, w, g, p, weapon, seed)
}

// end ends the match: every player is told reason through the wire's
// Disconnect, sent at once (past any emulated delay), and every
// connection closed with it.
func (m *Match) end(reason string) {
	m.ended.Store(true)
	m.final = m.srv.Tallies()
	// What the emulated links hold goes first, past their delay: the
	// core takes the uplinks' datagrams, and what they and the downlinks
	// carry leaves before the Disconnects. Before the kicks, not between
	// taking the end's handover and reading it: a datagram taken is a
	// handover of its own (step), which would reuse the end's.
	for _, p := range m.peers {
		m.flushLinks(p)
	}
	for _, p := range m.peers {
		if p.seat >= 0 {
			m.srv.Kick(p.seat, reason)
		}
	}
	r := m.srv.Ready()
	m.countRefused(r.Counts)
	for _, dg := range r.Messages {
		if p := m.peers[dg.To]; p != nil {
			m.send(p, dg.Data)
		}
	}
	m.flush()
	m.endRecording(r) // the log: the disconnects the end made, and the hits on those sent away
	m.putReports(r)   // those that came since the last handover
	for _, p := range m.peers {
		m.remove(p, reason)
	}
	m.log.Info("match end", "reason", reason, "ticks", m.srv.Tick(), "uptime_s", time.Since(m.start).Seconds())
	m.reason = reason
	m.putRound(time.Now())
	m.met.remove() // before Done: a match seen ended has no series left
	close(m.done)
	// Readers and bots stop once their connections close; wait for them so
	// nothing of the match outlives it.
	m.wg.Wait()
}

// tickSamples keeps the recent ticks' durations and lateness. A late
// start can leave several ticks due at once, which one Advance runs: one
// sample then stands for them all, with their mean duration.
type tickSamples struct {
	dur, late [sampleRing]time.Duration
	over      [sampleRing]bool
	tick      [sampleRing]uint32 // the server's tick after the sample's Advance
	n         int                // samples taken
}

func (s *tickSamples) add(d, late time.Duration, overrun bool, tick uint32) {
	i := s.n % sampleRing
	s.dur[i], s.late[i], s.over[i], s.tick[i] = d, late, overrun, tick
	s.n++
}

// TickStats summarises ticks: how long they took, and how late they
// started against their schedule.
type TickStats struct {
	// Ticks is the server's tick count; Count how many starts are
	// summarised (the last 16384 at most; one start may run several due
	// ticks, as after a stall).
	Ticks      int     `json:"ticks"`
	Count      int     `json:"count"`
	Overruns   int     `json:"overruns"`
	MeanUS     float64 `json:"mean_us"`
	P99US      float64 `json:"p99_us"`
	MaxUS      float64 `json:"max_us"`
	LateP50US  float64 `json:"lateness_p50_us"`
	LateP99US  float64 `json:"lateness_p99_us"`
	LateMaxUS  float64 `json:"lateness_max_us"`
	IntervalUS float64 `json:"interval_us"`
}

// stats summarises the ticks after server tick since (those still held);
// now is the server's tick.
func (s *tickSamples) stats(tick time.Duration, since int, now uint32) TickStats {
	out := TickStats{Ticks: int(now), IntervalUS: us(tick)}
	var d, l []time.Duration
	for i := max(s.n-sampleRing, 0); i < s.n; i++ {
		j := i % sampleRing
		if int(s.tick[j]) <= since {
			continue
		}
		d = append(d, s.dur[j])
		l = append(l, s.late[j])
		if s.over[j] {
			out.Overruns++
		}
	}
	k := len(d)
	out.Count = k
	if k == 0 {
		return out
	}
	slices.Sort(d)
	slices.Sort(l)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	p := func(xs []time.Duration, q float64) float64 { return us(xs[min(len(xs)-1, int(q*float64(len(xs))))]) }
	out.MeanUS = us(sum) / float64(k)
	out.P99US, out.MaxUS = p(d, 0.99), us(d[k-1])
	out.LateP50US, out.LateP99US, out.LateMaxUS = p(l, 0.5), p(l, 0.99), us(l[k-1])
	return out
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

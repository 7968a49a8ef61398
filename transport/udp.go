package transport

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultIdleTimeout closes a UDP peer that has sent nothing for this long.
// lagkit clients send input every tick, so ten seconds of silence is a
// peer that is gone, not a slow one (the same default as Quake III's
// sv_timeout is far longer, 200 s, because it also covered map loads).
const DefaultIdleTimeout = 10 * time.Second

// DefaultMaxPeers bounds a UDP listener's sessions. Each holds a receive
// queue of QueueLen datagrams, so the bound caps memory when spoofed
// source addresses each look like a new peer.
const DefaultMaxPeers = 256

// DefaultAcceptBacklog bounds sessions waiting for Accept.
const DefaultAcceptBacklog = 64

// UDPOptions configures a UDP listener or dialer. The zero value gives the
// defaults.
type UDPOptions struct {
	// IdleTimeout closes a peer that sends nothing for this long
	// (DefaultIdleTimeout if 0).
	IdleTimeout time.Duration
	// MaxPeers bounds a listener's open sessions (DefaultMaxPeers if 0):
	// datagrams from further new addresses are dropped and counted.
	MaxPeers int
	// QueueLen is each session's receive queue, in datagrams
	// (DefaultQueueLen if 0).
	QueueLen int
	// AcceptBacklog bounds sessions not yet accepted
	// (DefaultAcceptBacklog if 0): new peers beyond it are dropped.
	AcceptBacklog int
	// LocalAddr is the HOST:PORT DialUDP sends from (default: a port the
	// system picks), as a client restarted on the port it had does.
	LocalAddr string
	// Unrouted, if set, makes a listener stateless toward addresses it
	// has no session with: it opens none by itself and hands each such
	// datagram to Unrouted on the goroutine reading the socket: its
	// reader, or a consumer polling it before a tick (see Inbox). b is
	// valid only during the call, which must not block: it may answer
	// with Reply and open a session with Route once the address has
	// proved itself, and hand anything slower to a goroutine of its own.
	// Accept then returns nothing until Close. A spoofed source
	// address then costs the listener nothing: as a server's handshake
	// keeps no state for an unproven address, neither does its socket.
	Unrouted func(l *UDPListener, from netip.AddrPort, b []byte)
}

func (o UDPOptions) withDefaults() UDPOptions {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxPeers <= 0 {
		o.MaxPeers = DefaultMaxPeers
	}
	if o.QueueLen <= 0 {
		o.QueueLen = DefaultQueueLen
	}
	if o.AcceptBacklog <= 0 {
		o.AcceptBacklog = DefaultAcceptBacklog
	}
	return o
}

// epoch anchors the monotonic clock that idle checks read.
var epoch = time.Now()

func monotonic() int64 { return int64(time.Since(epoch)) }

// idleLoop calls sweep with the oldest last-receive time still alive,
// eight times per timeout, until stop closes.
func idleLoop(timeout time.Duration, stop <-chan struct{}, sweep func(oldest int64)) {
	t := time.NewTicker(max(timeout/8, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			sweep(monotonic() - int64(timeout))
		}
	}
}

// ListenerStats counts what a UDP listener dropped before any session saw
// it.
type ListenerStats struct {
	Peers    int    // open sessions, accepted or waiting
	Received uint64 // datagrams read from the socket
	// PeersRefused counts datagrams from new addresses that opened no
	// session: over MaxPeers, backlog full, or the listener closed.
	PeersRefused uint64
	// Unrouted counts datagrams handed to UDPOptions.Unrouted.
	Unrouted uint64
	// Oversized counts datagrams longer than MaxDatagram.
	Oversized uint64
}

// UDPListener demultiplexes one UDP socket into a session per peer
// address. It is a Listener; Close stops accepting but keeps the socket
// open until the last accepted session closes.
type UDPListener struct {
	opts   UDPOptions
	sock   *udpSock
	addr   string
	accept *acceptQueue
	quit   chan struct{} // closed with the socket

	io         *udpBatchIO // reads, under rmu
	conns      []*udpConn  // scratch for one read's sessions, under rmu
	rmu        sync.Mutex
	lastPoll   atomic.Int64  // monotonic() of the latest poll
	floodUntil atomic.Int64  // monotonic() until which the reader reads regardless
	pollFresh  time.Duration // pollFresh when the listener opened
	kick       chan struct{} // a poll left datagrams for the reader
	wio        *udpBatchIO   // SendBatch's writes, under wmu
	wmu        sync.Mutex
	oneP       [1][]byte // one datagram's write, under wmu
	oneTo      [1]netip.AddrPort
	mu         sync.Mutex
	peers      map[netip.AddrPort]*udpConn
	sockOnce   sync.Once

	received, refused, oversized, unrouted atomic.Uint64
}

// ListenUDP opens a UDP listener on addr (HOST:PORT; port 0 picks one).
func ListenUDP(addr string, opts UDPOptions) (*UDPListener, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: udp listen %q: %w", addr, err)
	}
	sock, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("transport: udp listen %q: %w", addr, err)
	}
	addr = sock.LocalAddr().String()
	s, err := takeSock(sock)
	if err != nil {
		return nil, fmt.Errorf("transport: udp listen %q: %w", addr, err)
	}
	return newUDPListener(s, addr, opts), nil
}

func newUDPListener(sock *udpSock, addr string, opts UDPOptions) *UDPListener {
	opts = opts.withDefaults()
	l := &UDPListener{
		opts:      opts,
		sock:      sock,
		addr:      addr,
		accept:    newAcceptQueue(opts.AcceptBacklog),
		quit:      make(chan struct{}),
		peers:     make(map[netip.AddrPort]*udpConn),
		io:        newUDPBatchIO(sock, true),
		conns:     make([]*udpConn, ioBatch),
		kick:      make(chan struct{}, 1),
		pollFresh: pollFresh,
		wio:       newUDPBatchIO(sock, false),
	}
	l.lastPoll.Store(math.MinInt64 / 2) // never
	go l.readLoop()
	go idleLoop(opts.IdleTimeout, l.quit, l.sweep)
	return l
}

// Addr is the bound address, HOST:PORT.
func (l *UDPListener) Addr() string { return l.addr }

// Stats reports the listener's counters.
func (l *UDPListener) Stats() ListenerStats {
	l.mu.Lock()
	n := len(l.peers)
	l.mu.Unlock()
	return ListenerStats{Peers: n, Received: l.received.Load(), PeersRefused: l.refused.Load(), Oversized: l.oversized.Load(), Unrouted: l.unrouted.Load()}
}

// Accept returns the next peer's session.
func (l *UDPListener) Accept(ctx context.Context) (Conn, error) { return l.accept.Accept(ctx) }

// Close stops accepting and closes sessions not yet accepted. Accepted
// sessions stay open on the shared socket, which closes with the last of
// them.
func (l *UDPListener) Close() error {
	if !l.accept.close() {
		return nil
	}
	l.mu.Lock()
	if len(l.peers) == 0 {
		l.closeSocket()
	}
	l.mu.Unlock()
	return nil
}

// closeSocket ends the read and idle loops; called with l.mu held.
func (l *UDPListener) closeSocket() {
	l.sockOnce.Do(func() {
		close(l.quit)
		l.sock.close()
	})
}

// A listener's socket is read by whoever comes first: its consumers
// (the matches its sessions are routed into, through their Inbox), each
// before its tick, or its own reader goroutine. While consumers poll,
// the reader stays off the socket, so datagrams wait in the kernel,
// stamped with their arrival, until the next tick takes them: no thread
// wakes per datagram. When no consumer has polled for pollFresh (none
// is routed, or all stalled), the reader reads them as they come.
var (
	// pollFresh is how recent a poll keeps the reader off the socket:
	// longer than the slowest tick (20 Hz). (A variable for tests.)
	pollFresh = 200 * time.Millisecond
)

const (
	// pollCheck is how often an idle reader looks whether polls stopped.
	pollCheck = 50 * time.Millisecond
	// pollBatches bounds what one poll reads (ioBatch datagrams each),
	// so a flood costs a tick bounded time; the reader reads the rest,
	// and goes on reading as datagrams come while the flood lasts.
	pollBatches = 4
)

// readLoop is the listener's reader goroutine. It idles while
// consumers poll, unless a flood is on: a poll that met its bound, or a
// read of its own longer than a poll's bound, keeps it reading as
// datagrams come for pollFresh, so that the kernel's buffer does not
// overflow (and drop the datagrams of real peers) between two ticks.
func (l *UDPListener) readLoop() {
	t := time.NewTimer(pollCheck)
	defer t.Stop()
	for {
		now := monotonic()
		if canPoll && now-l.lastPoll.Load() < int64(l.pollFresh) && now >= l.floodUntil.Load() {
			t.Reset(pollCheck)
			select {
			case <-l.quit:
				return
			case <-l.kick: // a flood: read
			case <-t.C:
			}
			continue
		}
		// Waiting for the first datagram holds rmu: a poll meanwhile
		// finds the socket taken and leaves it (noting that it polled,
		// which sends the reader back to idling after this read).
		l.rmu.Lock()
		full, err := l.drainLocked(true, -1)
		l.rmu.Unlock()
		if l.readFailed(err) {
			return
		}
		if full >= pollBatches {
			l.flooded()
		}
	}
}

// flooded keeps the reader reading for pollFresh.
func (l *UDPListener) flooded() {
	l.floodUntil.Store(monotonic() + int64(l.pollFresh))
}

// readFailed ends the listener on a socket error; true if there was one.
func (l *UDPListener) readFailed(err error) bool {
	if err == nil {
		return false
	}
	if !errors.Is(err, net.ErrClosed) {
		l.fail(err)
	}
	return true
}

// poll reads the datagrams waiting on the socket, at most pollBatches
// batches, and hands them to their sessions: a consumer calls it (its
// Inbox's Take) before taking what its sessions received. Another
// reader at work makes it return at once; datagrams left after the
// bound are the reader goroutine's.
func (l *UDPListener) poll() {
	if !canPoll {
		return
	}
	l.lastPoll.Store(monotonic())
	if !l.rmu.TryLock() {
		return
	}
	full, err := l.drainLocked(false, pollBatches)
	l.rmu.Unlock()
	if full == pollBatches && err == nil {
		l.flooded()
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

// drainLocked reads the socket a batch of datagrams per system call
// (waiting for the first with wait) until it is empty or limit batches
// were read (no limit if negative), and hands each to its session or
// Unrouted; full counts the batches read whole (limit of them: the
// socket may hold more). Called with rmu held.
func (l *UDPListener) drainLocked(wait bool, limit int) (full int, err error) {
	for i := 0; limit < 0 || i < limit; i++ {
		n, err := l.io.read(wait && i == 0)
		if err != nil || n == 0 {
			return full, err
		}
		l.dispatch(n)
		if n < ioBatch {
			return full, nil
		}
		full++
	}
	return full, nil
}

// dispatch finds the sessions of the last read's n datagrams under one
// lock and hands each to its session (or Unrouted): counters move once
// per batch.
func (l *UDPListener) dispatch(n int) {
	io, conns := l.io, l.conns
	l.received.Add(uint64(n))
	l.mu.Lock()
	for i := range n {
		_, from, _ := io.datagram(i)
		conns[i] = l.peers[from]
	}
	l.mu.Unlock()
	oversized, unrouted := 0, false
	for i := range n {
		b, from, at := io.datagram(i)
		c := conns[i]
		conns[i] = nil
		if c == nil && unrouted {
			// Unrouted may have routed this address since the batch
			// was looked up.
			l.mu.Lock()
			c = l.peers[from]
			l.mu.Unlock()
		}
		switch {
		case len(b) > MaxDatagram:
			oversized++
		case c != nil:
			c.received(b, at)
		case l.opts.Unrouted != nil:
			l.unrouted.Add(1)
			l.opts.Unrouted(l, from, b)
			unrouted = true
		default:
			if c := l.session(from); c != nil {
				c.received(b, at)
			}
		}
	}
	if oversized > 0 {
		l.oversized.Add(uint64(oversized))
	}
}

// received takes one datagram that arrived at at.
func (c *udpConn) received(b []byte, at int64) {
	if at > c.lastRecv.Load() {
		c.lastRecv.Store(at)
	}
	c.deliver(b, at)
}

// ErrPeersFull is returned by Route when the listener has MaxPeers
// sessions open.
var ErrPeersFull = errors.New("transport: udp listener has its most sessions open")

// Route opens the session of address to (or returns the one open), for a
// listener with UDPOptions.Unrouted: from then on to's datagrams go to
// the session, not to Unrouted. The session is not offered to Accept:
// the caller has it. It counts against MaxPeers and closes as any other
// (idle timeout, Close).
func (l *UDPListener) Route(to netip.AddrPort) (Conn, error) {
	to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.peers[to]; c != nil {
		return c, nil
	}
	if l.accept.isClosed() {
		return nil, ErrClosed
	}
	if len(l.peers) >= l.opts.MaxPeers {
		l.refused.Add(1)
		return nil, ErrPeersFull
	}
	c := &udpConn{base: newBase("udp:"+to.String(), l.opts.QueueLen), l: l, to: to}
	c.lastRecv.Store(monotonic())
	l.peers[to] = c
	return c, nil
}

// Reply sends datagram b to address to from the listener's socket
// without a session: an answer to a datagram Unrouted was handed.
func (l *UDPListener) Reply(to netip.AddrPort, b []byte) error {
	if len(b) > MaxDatagram {
		return ErrTooLarge
	}
	err := l.sendTo(b, to)
	if errors.Is(err, net.ErrClosed) {
		return ErrClosed
	}
	return err
}

// sendTo sends one datagram from the listener's socket.
func (l *UDPListener) sendTo(b []byte, to netip.AddrPort) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.oneP[0], l.oneTo[0] = b, to
	_, err := l.wio.write(l.oneP[:], l.oneTo[:])
	l.oneP[0] = nil
	return err
}

// session finds or opens from's session; nil when a new one is refused.
func (l *UDPListener) session(from netip.AddrPort) *udpConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.peers[from]; c != nil {
		return c
	}
	if len(l.peers) >= l.opts.MaxPeers {
		l.refused.Add(1)
		return nil
	}
	c := &udpConn{base: newBase("udp:"+from.String(), l.opts.QueueLen), l: l, to: from}
	c.lastRecv.Store(monotonic()) // before the idle sweep can see it
	if !l.accept.offer(c) {       // backlog full or listener closed
		l.refused.Add(1)
		return nil
	}
	l.peers[from] = c
	return c
}

// fail closes every session when the socket itself fails.
func (l *UDPListener) fail(err error) {
	l.mu.Lock()
	conns := make([]*udpConn, 0, len(l.peers))
	for _, c := range l.peers {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close("udp: " + err.Error())
	}
	l.Close()
}

func (l *UDPListener) sweep(oldest int64) {
	var idle []*udpConn
	l.mu.Lock()
	for _, c := range l.peers {
		if c.lastRecv.Load() < oldest {
			idle = append(idle, c)
		}
	}
	l.mu.Unlock()
	for _, c := range idle {
		c.Close("idle timeout")
	}
}

func (l *UDPListener) remove(c *udpConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.peers[c.to] == c {
		delete(l.peers, c.to)
	}
	if len(l.peers) == 0 && l.accept.isClosed() {
		l.closeSocket()
	}
}

// udpConn is one peer: on a listener's shared socket (l set), or on its
// own connected socket from DialUDP (sock set).
type udpConn struct {
	base
	l        *UDPListener
	sock     *net.UDPConn
	to       netip.AddrPort
	lastRecv atomic.Int64
	wg       sync.WaitGroup // a dialed conn's loops
	// polled is the inbox that polls the listener for this session
	// (ReceiveInto), until the session closes.
	polled atomic.Pointer[Inbox]
}

// ReceiveInto routes the session's datagrams into in (see Routable);
// a listener's session also makes in poll the listener's socket before
// each Take, until the session closes.
func (c *udpConn) ReceiveInto(in *Inbox, tag uint64) {
	c.base.ReceiveInto(in, tag)
	if c.l == nil || !canPoll {
		return
	}
	in.watch(c.l)
	c.polled.Store(in)
	if c.closed() {
		c.unwatch()
	}
}

// unwatch stops the session's inbox polling for it, once.
func (c *udpConn) unwatch() {
	if in := c.polled.Swap(nil); in != nil {
		in.unwatch(c.l)
	}
}

// Send writes p in one datagram straight to the socket: no queue, no
// goroutine, no allocation. It waits only while the kernel's send buffer
// is full, which a game's send rate does not reach. A write the network
// refuses (an ICMP error from an earlier datagram) is a lost datagram:
// counted, not returned.
func (c *udpConn) Send(p []byte) error {
	if err := c.checkSend(p); err != nil {
		return err
	}
	var err error
	if c.l != nil {
		err = c.l.sendTo(p, c.to)
	} else {
		_, err = c.sock.Write(p)
	}
	switch {
	case err == nil:
		c.sent.Add(1)
	case errors.Is(err, net.ErrClosed):
		return ErrClosed
	default:
		c.sendDropped.Add(1)
	}
	return nil
}

// Close ends the session. UDP carries no reason: the driver sends the
// wire's Disconnect before.
func (c *udpConn) Close(reason string) error {
	if c.l != nil {
		// Leave the listener first, so that once Recv reports the close
		// the listener's place is free (remove is idempotent).
		if !c.closed() {
			c.l.remove(c)
		}
		c.markClosed(reason)
		c.unwatch()
		return nil
	}
	if !c.markClosed(reason) {
		return nil
	}
	err := c.sock.Close()
	c.wg.Wait()
	return err
}

// DialUDP opens a session to a UDP listener at addr (HOST:PORT) on a
// connected socket of its own. The session closes when the listener sends
// nothing for the idle timeout.
func DialUDP(ctx context.Context, addr string, opts UDPOptions) (Conn, error) {
	opts = opts.withDefaults()
	var d net.Dialer
	if opts.LocalAddr != "" {
		local, err := net.ResolveUDPAddr("udp", opts.LocalAddr)
		if err != nil {
			return nil, fmt.Errorf("transport: udp local address %q: %w", opts.LocalAddr, err)
		}
		d.LocalAddr = local
	}
	nc, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: udp dial %q: %w", addr, err)
	}
	sock := nc.(*net.UDPConn)
	to := sock.RemoteAddr().(*net.UDPAddr).AddrPort()
	c := &udpConn{base: newBase("udp:"+to.String(), opts.QueueLen), sock: sock, to: to}
	c.lastRecv.Store(monotonic())
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.dialedReadLoop()
	}()
	go func() {
		defer c.wg.Done()
		idleLoop(opts.IdleTimeout, c.done, func(oldest int64) {
			if c.lastRecv.Load() < oldest {
				go c.Close("idle timeout") // Close waits for this loop
			}
		})
	}()
	return c, nil
}

func (c *udpConn) dialedReadLoop() {
	var buf [MaxDatagram + 1]byte
	for {
		n, err := c.sock.Read(buf[:])
		switch {
		case err == nil:
			at := monotonic()
			c.lastRecv.Store(at)
			c.deliver(buf[:n], at)
		case errors.Is(err, syscall.ECONNREFUSED):
			// An ICMP port unreachable for an earlier datagram: the
			// listener is not up (yet); the idle timeout decides.
		case errors.Is(err, net.ErrClosed):
			return
		default:
			go c.Close("udp: " + err.Error()) // Close waits for this loop
			return
		}
	}
}

package realtime

import (
	"context"
	"crypto/ecdh"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// Brain chooses a player's input each tick from what its client shows,
// as sim.Brain does in virtual time: bot.Policy, which lagkit's bots and
// a game's own implement. A bot.FramePolicy with a frame rate is also
// called at its frames between ticks.
type Brain = bot.Policy

// ClientConfig sets up RunClient.
type ClientConfig struct {
	// Client configures the client core; its Map must be the server's.
	Client client.Config
	// Brain plays (nil: the player stands still).
	Brain Brain
	// Stats, when set, is updated as the session goes, for a caller to
	// read while it runs.
	Stats *LiveStats
	// Account, when set, keeps every reliable event the client delivers
	// (see Account), under the session's nonce (ClientStats.Nonce).
	Account *Account
	// OnReady, when set, is called with each of the client core's
	// handovers (client.Ready), after the driver took what it needs,
	// on the driver's goroutine: a tool's or a test's view of all the
	// client was told. r is valid during the call only.
	OnReady func(r *client.Ready)
}

// ClientStats are what a client driver measured over its session.
type ClientStats struct {
	Name      string  `json:"name"`
	Seat      int     `json:"seat"`
	Snapshots int     `json:"snapshots"`
	RTTms     float64 `json:"rtt_ms"`
	// RTTMeanMS is the mean of the smoothed round trip sampled once a
	// second after the first two seconds of the session.
	RTTMeanMS float64 `json:"rtt_mean_ms"`
	// RTTMedianMS is the median of the same samples: what the link
	// measures, without the few samples a stalled process inflates.
	RTTMedianMS float64 `json:"rtt_median_ms"`
	// PredErrMeanM is the mean prediction error: for each command the
	// server executed, how far the predicted position lay from the
	// server's.
	PredErrMeanM float64 `json:"prediction_error_mean_m"`
	PredErrMaxM  float64 `json:"prediction_error_max_m"`
	Shots        int     `json:"shots"`
	// Hits are the shots the server registered on others, as it told this
	// client; HitsReceived and SBCReceived the hits on this player, and
	// those its client found behind cover when they arrived.
	Hits         int `json:"hits"`
	HitsReceived int `json:"hits_received"`
	SBCReceived  int `json:"sbc_received"`
	BytesIn      int `json:"bytes_in"`
	// Reports counts the SBC reports the player sent, ReportsKept and
	// ReportsRefused the server's answers to them, ReportsResent the
	// copies sent of reports not yet answered.
	Reports        int `json:"reports"`
	ReportsKept    int `json:"reports_kept"`
	ReportsRefused int `json:"reports_refused"`
	ReportsResent  int `json:"reports_resent"`
	// Nonce is the session's nonce, which names it in the server's logs
	// and accounts.
	Nonce  uint64 `json:"nonce,string"`
	Reason string `json:"reason"`
	// Code is the server's code for the disconnect, if it sent one
	// (which limit the client went over, say).
	Code wire.DisconnectCode `json:"code,omitempty"`
}

// LiveStats holds a running client's statistics for other goroutines.
type LiveStats struct {
	mu sync.Mutex
	s  ClientStats
}

// Get returns the statistics so far.
func (l *LiveStats) Get() ClientStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}

func (l *LiveStats) set(s ClientStats) {
	l.mu.Lock()
	l.s = s
	l.mu.Unlock()
}

// RunClient plays one session over conn on the wall clock: it connects,
// ticks at the server's rate with cfg.Brain's input, and returns when the
// server ends the session, the connection closes, or ctx is done (then it
// says goodbye to the server). Its error is nil when ctx ended the
// session or the server disconnected it, and describes anything else
// (rejected, wrong map, connection lost).
func RunClient(ctx context.Context, conn transport.Conn, cfg ClientConfig) (ClientStats, error) {
	cc := cfg.Client
	if cc.Nonce == 0 {
		// A client restarted on the same address must start a new
		// session, so its nonce cannot come from its clock and name.
		cc.Nonce = client.RandomNonce()
	}
	if cc.Sealer == nil && transport.Forgeable(conn) {
		// Anyone can forge a UDP datagram's source address: the
		// session's datagrams are sealed under keys of its own.
		key, err := seal.NewKey()
		if err != nil {
			return ClientStats{}, err
		}
		cc.Sealer = clientSealer{key}
	}
	c, err := client.New(cc)
	if err != nil {
		return ClientStats{}, err
	}
	d := &clientDriver{conn: conn, c: c, brain: cfg.Brain, live: cfg.Stats,
		inbox: make(chan []byte, 256), start: time.Now()}
	d.observer, _ = cfg.Brain.(bot.Observer)
	if fb, ok := cfg.Brain.(bot.FramePolicy); ok && fb.FrameRate() > 0 {
		if r := fb.FrameRate(); r > bots.MaxFrameRate {
			return ClientStats{}, fmt.Errorf("realtime: client: frame rate %d above %d", r, bots.MaxFrameRate)
		}
		d.frames, d.frame = fb, time.Second/time.Duration(fb.FrameRate())
	}
	d.st.Name, d.st.Seat, d.st.Nonce = cfg.Client.Name, -1, cc.Nonce
	d.account, d.onReady = cfg.Account, cfg.OnReady
	return d.run(ctx)
}

type clientDriver struct {
	conn     transport.Conn
	c        *client.Client
	brain    Brain
	observer bot.Observer    // nil: a brain that sees no handovers
	frames   bot.FramePolicy // nil: no frames between ticks
	frame    time.Duration   // the time between frames
	live     *LiveStats
	account  *Account
	onReady  func(*client.Ready)
	inbox    chan []byte
	readErr  error
	start    time.Time

	st ClientStats
	// byServer is set when the server ended the session.
	byServer   bool
	predSum    float64
	predN      int
	rttSum     float64
	rttN       int
	rttSamples []float64 // sorted; one a second, so bounded by the session's length
	nextRTT    time.Duration
}

func (d *clientDriver) now() time.Duration { return time.Since(d.start) }

func (d *clientDriver) run(ctx context.Context) (ClientStats, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	readDone := make(chan struct{})
	go d.read(rctx, readDone)
	defer func() { cancel(); <-readDone }()

	d.c.Connect(d.now())
	d.take(d.c.Ready())
	// Until the server states its tick, the driver polls at 64 Hz, which
	// only paces the connect retries.
	tick := time.Second / 64
	next := d.now() + tick
	timer := time.NewTimer(tick)
	defer timer.Stop()
	d.nextRTT = 2 * time.Second
	nextF := d.now()
	for {
		done := false
		select {
		case <-ctx.Done():
			done = true
		case b, ok := <-d.inbox:
			switch {
			case ok:
				d.step(b)
			case ctx.Err() != nil:
				done = true // the reader saw ctx end first
			default:
				return d.finish(d.lost())
			}
		case <-timer.C:
		}
		if done {
			d.c.Disconnect("client left")
			d.take(d.c.Ready())
			_ = d.conn.Close("client left")
			return d.finish(nil)
		}
		if d.c.Phase() == client.Closed {
			_ = d.conn.Close(d.c.Reason())
			if d.byServer {
				return d.finish(nil)
			}
			return d.finish(errors.New(d.c.Reason()))
		}
		now := d.now()
		if d.frames != nil && now >= nextF {
			// Before the tick's input when both are due, as the
			// simulation driver orders them.
			if d.c.Phase() == client.Connected {
				d.frames.Frame(now, d.c)
			}
			nextF += d.frame
			if nextF <= now {
				nextF = now + d.frame // far behind: skip frames, do not burst
			}
		}
		if now >= next {
			if td := d.c.TickDuration(); td > 0 {
				tick = td
			}
			var in game.UserCmd
			if d.c.Phase() == client.Connected && d.brain != nil {
				in = d.brain.Input(now, d.c)
			}
			d.take(d.c.Tick(now, in))
			d.observe(now)
			next += tick
			if next <= now {
				next = now + tick // far behind (a stall): skip, do not burst
			}
		}
		wake := next
		if d.frames != nil {
			wake = min(wake, nextF)
		}
		timer.Reset(wake - d.now())
	}
}

// read is the connection's reader goroutine.
func (d *clientDriver) read(ctx context.Context, done chan struct{}) {
	defer close(done)
	defer close(d.inbox)
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, err := d.conn.Recv(ctx, buf)
		if err != nil {
			d.readErr = err
			return
		}
		b := append([]byte(nil), buf[:n]...)
		select {
		case d.inbox <- b:
		default: // the driver is behind: drop, as a full socket buffer would
		}
	}
}

// lost describes a connection that closed under the session.
func (d *clientDriver) lost() error {
	if d.byServer {
		return nil
	}
	reason := d.conn.Reason()
	if reason == "" && d.readErr != nil {
		reason = d.readErr.Error()
	}
	d.st.Reason = "connection closed: " + reason
	return errors.New(d.st.Reason)
}

// step hands one datagram to the client core.
func (d *clientDriver) step(b []byte) {
	d.st.BytesIn += len(b)
	_ = d.c.Step(d.now(), b) // the client counts what it rejects
	d.take(d.c.Ready())
}

// take sends what the client core handed over and takes in what
// happened: the session's changes, the prediction errors, the hits on
// the player and the server's word on its own, and the events
// delivered for the account.
func (d *clientDriver) take(r *client.Ready) {
	for _, dg := range r.Messages {
		_ = d.conn.Send(dg.Data) // datagrams are unreliable; a refused one is a lost one
	}
	for _, ch := range r.Session {
		switch {
		case ch.Kind == client.SessionConnected:
			d.st.Seat = ch.ID
		case ch.ByServer:
			d.byServer, d.st.Code = true, ch.Code
		}
	}
	for _, e := range r.PredictionErrors {
		d.predSum += e
		d.predN++
		d.st.PredErrMaxM = math.Max(d.st.PredErrMaxM, e)
	}
	for _, h := range r.Hits {
		d.st.HitsReceived++
		if h.SBC {
			d.st.SBCReceived++
		}
	}
	for _, c := range r.Confirms {
		switch c.Outcome {
		case wire.OutcomeRegistered, wire.OutcomeConfirmed, wire.OutcomeDeniedRefuted, wire.OutcomeTimeout:
			d.st.Hits++
		}
	}
	if d.account != nil {
		for _, n := range r.Notes {
			d.account.add(d.st.Nonce, d.c.ID(), n.Seq, n.Kind, n.Data, false)
		}
	}
	if d.observer != nil {
		d.observer.Observe(d.now(), d.c, r)
	}
	if d.onReady != nil {
		d.onReady(r)
	}
}

// observe samples the round trip and publishes the statistics.
func (d *clientDriver) observe(now time.Duration) {
	if d.c.Phase() == client.Connected && now >= d.nextRTT {
		ms := float64(d.c.RTT()) / float64(time.Millisecond)
		d.rttSum += ms
		d.rttN++
		i, _ := slices.BinarySearch(d.rttSamples, ms)
		d.rttSamples = slices.Insert(d.rttSamples, i, ms)
		d.nextRTT = now + time.Second
	}
	if d.live != nil {
		d.live.set(d.stats())
	}
}

func (d *clientDriver) stats() ClientStats {
	s := d.st
	cs := d.c.Stats()
	s.Snapshots, s.Shots = cs.SnapshotsReceived, cs.Shots
	s.Reports, s.ReportsKept, s.ReportsRefused, s.ReportsResent = cs.Reports, cs.ReportsKept, cs.ReportsRefused, cs.ReportsResent
	s.RTTms = float64(d.c.RTT()) / float64(time.Millisecond)
	if d.rttN > 0 {
		s.RTTMeanMS = d.rttSum / float64(d.rttN)
		n := len(d.rttSamples)
		s.RTTMedianMS = (d.rttSamples[(n-1)/2] + d.rttSamples[n/2]) / 2
	}
	if d.predN > 0 {
		s.PredErrMeanM = d.predSum / float64(d.predN)
	}
	if s.Reason == "" {
		s.Reason = d.c.Reason()
	}
	return s
}

func (d *clientDriver) finish(err error) (ClientStats, error) {
	s := d.stats()
	if d.live != nil {
		d.live.set(s)
	}
	return s, err
}

// clientSealer gives a client core package seal's sessions.
type clientSealer struct{ key *ecdh.PrivateKey }

func (s clientSealer) PublicKey() []byte { return s.key.PublicKey().Bytes() }

func (s clientSealer) Session(serverKey []byte, nonce uint64) (client.Sealed, error) {
	sess, err := seal.New(seal.Client, s.key, s.PublicKey(), serverKey, nonce)
	if err != nil {
		return nil, err // not a nil *seal.Session in an interface
	}
	return sess, nil
}

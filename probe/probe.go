// Package probe measures a client's round trip to a game server host
// over the game's own transport (WebTransport datagrams or WebSocket
// messages, package transport) and wire framing (wire.Probe), before any
// game session: an online study's prescreen. The server times its own
// pings, as a game server times its snapshots' acknowledgements, so the
// round trip it keeps is one the client cannot shade; the client only
// echoes.
package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// Server answers probes on a listener.
type Server struct {
	// Pings is how many round trips a measurement times (default 10, 3
	// to 100); the median is kept.
	Pings int
	// Ticket says whom a client's ticket stands for; false refuses it.
	Ticket func(ticket string) (id string, ok bool)
	// Measured is told each measurement, with the ticket's id.
	Measured func(id string, rtt time.Duration)
	// Seal, if set, seals each measurement (see Seal) for the client to
	// hand on: a host whose measurements are kept elsewhere vouches for
	// them.
	Seal func(ticket string, rtt time.Duration) string
	// Timeout bounds one measurement from the session's start (default
	// 20 s), and Lost the wait for one echo before the ping counts as
	// lost and another is sent (default 1 s).
	Timeout, Lost time.Duration
}

// Errors a measurement ends with.
var (
	ErrTicket = errors.New("probe: unknown ticket")
	ErrLost   = errors.New("probe: too many pings lost")
)

// Serve answers every session l accepts, each in a goroutine of its
// own, until ctx ends or l closes; it waits for the sessions under way.
func (s *Server) Serve(ctx context.Context, l transport.Listener) error {
	cfg := *s
	if cfg.Pings == 0 {
		cfg.Pings = 10
	}
	if cfg.Pings < 3 || cfg.Pings > 100 {
		return fmt.Errorf("probe: pings %d, want 3 to 100", cfg.Pings)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Lost <= 0 {
		cfg.Lost = time.Second
	}
	if cfg.Ticket == nil || cfg.Measured == nil {
		return errors.New("probe: a server needs Ticket and Measured")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, transport.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cfg.measure(ctx, c); err != nil {
				_ = c.Close(err.Error())
			}
		}()
	}
}

// measure runs one measurement over c, keeps it (Measured) and then
// tells the client, so that a client that has its result finds it kept.
func (s *Server) measure(ctx context.Context, c transport.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	buf := make([]byte, transport.MaxDatagram)
	var m wire.Probe
	// The client's first Probe names it; one repeated before the first
	// ping arrived is read as the same.
	for {
		n, err := c.Recv(ctx, buf)
		if err != nil {
			return fmt.Errorf("probe: no ticket: %w", err)
		}
		if wire.DecodeProbe(buf[:n], &m) == nil && m.Seq == 0 && m.Ticket != "" {
			break
		}
	}
	ticket := m.Ticket
	id, ok := s.Ticket(ticket)
	if !ok {
		return ErrTicket
	}
	var rtts []time.Duration
	out := make([]byte, 0, 16)
	seq := uint32(0)
	for lost := 0; len(rtts) < s.Pings; {
		if lost > s.Pings {
			return ErrLost
		}
		seq++
		out, _ = wire.AppendProbe(out[:0], &wire.Probe{Seq: seq})
		sent := time.Now()
		if err := c.Send(out); err != nil {
			return err
		}
		wait, cancelWait := context.WithTimeout(ctx, s.Lost)
		for {
			n, err := c.Recv(wait, buf)
			if err != nil {
				cancelWait()
				if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
					return fmt.Errorf("probe: %w", err)
				}
				lost++
				break
			}
			// An echo of an earlier ping (one that came late) or a
			// repeated ticket is passed over.
			if wire.DecodeProbe(buf[:n], &m) == nil && m.Seq == seq {
				rtts = append(rtts, time.Since(sent))
				cancelWait()
				break
			}
		}
	}
	slices.Sort(rtts)
	med := rtts[len(rtts)/2].Truncate(time.Microsecond)
	s.Measured(id, med)
	done := wire.Probe{Seq: seq + 1, Done: true, RTT: med}
	if s.Seal != nil {
		done.Ticket = s.Seal(ticket, med)
	}
	// The result goes again until the client, which closes once it has
	// it, has closed: a datagram may be lost, and a close sent at once
	// could overtake it.
	out, err := wire.AppendProbe(out[:0], &done)
	if err != nil {
		return err
	}
	for range 8 {
		if c.Send(out) != nil {
			break
		}
		wait, cancelWait := context.WithTimeout(ctx, 250*time.Millisecond)
		_, err := c.Recv(wait, buf)
		cancelWait()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			break
		}
	}
	_ = c.Close("measured")
	return nil
}

// Measure answers a probe server over c as a client, naming itself by
// ticket: it echoes each ping and returns the round trip the server
// measured and told it.
func Measure(ctx context.Context, c transport.Conn, ticket string) (time.Duration, error) {
	rtt, _, err := MeasureSealed(ctx, c, ticket)
	return rtt, err
}

// MeasureSealed is Measure, and returns the server's seal on the result
// too ("" from a server that does not seal).
func MeasureSealed(ctx context.Context, c transport.Conn, ticket string) (time.Duration, string, error) {
	if ticket == "" || len(ticket) > wire.MaxProbeTicket {
		return 0, "", fmt.Errorf("probe: ticket of %d bytes, want 1 to %d", len(ticket), wire.MaxProbeTicket)
	}
	hello, err := wire.AppendProbe(nil, &wire.Probe{Ticket: ticket})
	if err != nil {
		return 0, "", err
	}
	buf := make([]byte, transport.MaxDatagram)
	echo := make([]byte, 0, 16)
	pinged := false
	var m wire.Probe
	for {
		if !pinged {
			// The ticket goes again until the first ping shows it
			// arrived: a datagram may be lost.
			if err := c.Send(hello); err != nil {
				return 0, "", err
			}
		}
		wait, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		n, err := c.Recv(wait, buf)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			continue
		case err != nil:
			if r := c.Reason(); r != "" {
				return 0, "", fmt.Errorf("probe: the server closed: %s", r)
			}
			return 0, "", fmt.Errorf("probe: %w", err)
		}
		if err := wire.DecodeProbe(buf[:n], &m); err != nil {
			return 0, "", err
		}
		if m.Done {
			return m.RTT, m.Ticket, nil
		}
		pinged = true
		echo, _ = wire.AppendProbe(echo[:0], &wire.Probe{Seq: m.Seq})
		if err := c.Send(echo); err != nil {
			return 0, "", err
		}
	}
}

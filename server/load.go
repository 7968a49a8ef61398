package server

import (
	"fmt"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// A TickLoad is a server with clients connected over no network, each
// sending one command a tick and acknowledging every snapshot it gets:
// every player runs and turns, so positions, angles and distances change
// from tick to tick. It is the load of the server tick benchmarks
// (server's and `lagkit bench`).
type TickLoad struct {
	Server *Server
	bufs   [][]byte
	cmds   []game.UserCmd
	acks   []uint32
	next   uint32
}

// NewTickLoad connects players clients to a server on m at rate ticks a
// second and runs two seconds of ticks, so that snapshots are deltas in
// steady state.
func NewTickLoad(m *world.Map, players, rate int) (*TickLoad, error) {
	s, err := New(Config{Map: m, MaxClients: players, TickRate: rate})
	if err != nil {
		return nil, err
	}
	l := &TickLoad{Server: s, bufs: make([][]byte, players), cmds: make([]game.UserCmd, 1), acks: make([]uint32, players), next: 1}
	for i := range players {
		if err := l.join(Peer(i)); err != nil {
			return nil, err
		}
		l.bufs[i] = make([]byte, 0, wire.MaxDatagram)
	}
	for range 2 * rate {
		if err := l.Tick(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// join connects peer through the handshake.
func (l *TickLoad) join(peer Peer) error {
	if _, err := handshake(l.Server, l.Server.Time(), peer, "load"); err != nil {
		return fmt.Errorf("server: tick load: %w", err)
	}
	return nil
}

// Tick runs one server tick: every client's command, the tick, and the
// acknowledgement of each snapshot for the next tick's commands.
func (l *TickLoad) Tick() error {
	s := l.Server
	now := s.NextTick()
	for i := range l.bufs {
		l.cmds[0] = game.UserCmd{Tick: l.next, Duration: s.TickDuration(), Forward: 127, Yaw: uint16(i*1000) + uint16(l.next)*64}
		buf, err := wire.AppendCommands(l.bufs[i][:0], &wire.Commands{AckTick: l.acks[i], ClientTime: now, Cmds: l.cmds})
		if err != nil {
			return err
		}
		l.bufs[i] = buf
		if err := s.Step(now, Peer(i), buf); err != nil {
			return err
		}
	}
	l.next++
	s.Advance(now)
	for _, d := range s.Outbox() {
		l.acks[d.To] = s.Tick()
	}
	return nil
}

package server

import (
	"crypto/subtle"
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/wire"
)

// Sessions: the handshake that gives an address a slot, and the bounds
// on what a session's peer may claim (its commands' ticks, its
// acknowledgements' hold times).

// connect handles a Connect of size bytes from an address. Before a
// session exists nothing goes back larger than what came in (the Connect
// is padded, and a Connect of another version gets its Reject only if
// that fits), so the server cannot amplify a flood aimed at a spoofed
// address. A slot goes only to a client that has proved it receives at
// its address by echoing the token of a Challenge (as QUIC's Retry, RFC
// 9000, section 8.1.2); the token is a keyed hash of the address and the
// client's session nonce, so an unproven address holds no state at all.
//
// With Config.ConnectKey a Connect must also carry a connect token
// (package token; after the address token once proven), checked before
// anything else happens: it must open under the key, be unexpired at
// Config.Epoch+now (the driver supplies the epoch once, so the core reads
// no clock), name Config.MatchID and Config.Address, and, for a new
// session, carry an id not admitted before. A Connect that fails gets no
// reply and is counted in Stats.Tokens; the only state a token leaves is
// its id in a window of at most Config.TokenWindow, until it expires.
func (s *Server) connect(now time.Duration, from Peer, m *wire.Connect, size int) {
	if m.Version != wire.Version {
		s.reject(from, size, versionReason(m.Version))
		return
	}
	if why := s.mismatch(m); why != "" {
		s.reject(from, size, why)
		return
	}
	addr := s.gate.addressToken(from, m.Nonce)
	proven := m.Token == addr
	var claims token.Claims
	if len(s.cfg.ConnectKey) != 0 {
		// The connect token follows the address token once proven, and
		// stands alone in a first Connect; it is checked on both, so a
		// Connect without a valid one gets nothing back, not even a
		// Challenge.
		sealed := m.Token
		proven = len(sealed) >= addressTokenLen && subtle.ConstantTimeCompare([]byte(sealed[:addressTokenLen]), []byte(addr)) == 1
		if proven {
			sealed = sealed[addressTokenLen:]
		}
		var ok bool
		if claims, ok = s.openToken(now, sealed); !ok {
			return
		}
	}
	if !proven {
		s.stats.Challenged++
		s.scratch = s.gate.challenge(s.scratch[:0], m.Nonce, addr)
		s.queuePlain(from, s.scratch)
		return
	}
	if id, ok := s.byPeer[from]; ok {
		if c := s.clients[id]; c.nonce == m.Nonce {
			s.sendAccept(c) // our Accept was lost; repeat it
			return
		}
		if len(s.cfg.ConnectKey) != 0 && !s.admitToken(now, claims) {
			return // a replayed token ends no session
		}
		// A new session from the same address: the client restarted, and
		// its old session (whose commands it will never send again) ends.
		s.stats.Restarts++
		s.drop(id, wire.DisconnectUnspecified, "")
	}
	who := identity(claims, m, len(s.cfg.ConnectKey) != 0)
	id, place, refused := s.slotFor(who)
	if id < 0 {
		s.reject(from, size, refused)
		return
	}
	if len(s.cfg.ConnectKey) != 0 {
		if !s.admitToken(now, claims) {
			return
		}
		s.seenTokens[claims.ID] = claims.Expires.Sub(s.cfg.Epoch)
	}
	if s.clients[id] != nil {
		// The same player, back before its old session timed out: the
		// old one ends, its statistics kept for the new.
		s.stats.Rejoins++
		s.drop(id, wire.DisconnectUnspecified, "")
	}
	var sess *seal.Session
	if m.Key != "" && s.cfg.SealKey != nil {
		var err error
		if sess, err = seal.New(seal.Server, s.cfg.SealKey, []byte(m.Key), []byte(s.gate.sealKey), m.Nonce); err != nil {
			s.reject(from, size, "session key refused: "+err.Error())
			return
		}
	}
	rate := int(m.SnapshotRate)
	if rate <= 0 || rate > s.cfg.TickRate {
		rate = s.cfg.TickRate
	}
	c := &client{
		peer:        from,
		nonce:       m.Nonce,
		id:          id,
		name:        m.Name,
		queue:       make([]game.UserCmd, s.cfg.CmdQueue),
		snapEvery:   uint32(max(1, int(math.Round(float64(s.cfg.TickRate)/float64(rate))))),
		interpDelay: min(max(m.InterpDelay, s.cfg.InterpMin), s.cfg.InterpMax),
		lastHeard:   now,
		joinedAt:    now,
		ackedAt:     now,
		cmdAt:       now,
		usage:       usage{second: now},
		out:         make([]byte, 0, wire.MaxDatagram),
		seal:        sess,
	}
	c.nextEventSeq = 1
	c.eventBuf = make([]wire.Event, 0, wire.MaxEvents)
	c.appealTokens = s.cfg.AppealRate
	s.holdConnect(c)
	if s.cfg.Replication.Policy != nil {
		c.rep = make([]wire.EntityState, s.cfg.MaxClients)
		c.repSent = make([]bool, s.cfg.MaxClients)
		c.senders = make([]reckoning.Sender, s.cfg.MaxClients)
	}
	s.seat(c, who, place)
	s.spawn(c, 0, now)
	s.clients[id] = c
	s.sendSettings(c)
	s.announceName(c)
	s.byPeer[from] = id
	s.stats.Connects++
	s.ready.cur.Sessions = append(s.ready.cur.Sessions, SessionChange{Peer: from, Seat: id, Opened: true})
	s.record(LogEntry{Kind: "connect", Player: id, Team: c.team})
	s.record(LogEntry{Kind: "spawn", Player: id, Team: c.team, Pos: c.state.Pos})
	s.sendAccept(c)
}

// Proven reports whether data, received from from at now, is a Connect
// that would get a slot if one were free: of this version, echoing the
// address token of its session nonce (so its sender receives at that
// address), and with Config.ConnectKey carrying a connect token that
// opens, is unexpired, names this match and address, and was not used
// before; and, for one that is, the seat it asks to come back to
// (wire.Rejoin; -1: none). It changes nothing. A driver that keeps seats
// filled with bots asks it before a bot gives up its seat, so that
// datagrams from spoofed addresses, which never echo a token, cannot
// empty seats.
func (s *Server) Proven(now time.Duration, from Peer, data []byte) (seat int, ok bool) {
	var m wire.Connect
	if typ, err := wire.PeekType(data); err != nil || typ != wire.MsgConnect || wire.DecodeConnect(data, &m) != nil || m.Version != wire.Version {
		return -1, false
	}
	seat = -1
	if m.Rejoin.Asked {
		seat = int(m.Rejoin.Seat)
	}
	addr := s.gate.addressToken(from, m.Nonce)
	if len(s.cfg.ConnectKey) == 0 {
		if m.Token != addr {
			return -1, false
		}
		return seat, true
	}
	if len(m.Token) < addressTokenLen || subtle.ConstantTimeCompare([]byte(m.Token[:addressTokenLen]), []byte(addr)) != 1 {
		return -1, false
	}
	c, err := token.Open(s.cfg.ConnectKey, []byte(m.Token[addressTokenLen:]), s.cfg.Epoch.Add(now))
	if err == nil {
		err = c.Check(s.cfg.MatchID, s.cfg.Address)
	}
	if _, seen := s.seenTokens[c.ID]; err != nil || seen {
		return -1, false
	}
	return seat, true
}

func (s *Server) sendAccept(c *client) {
	buf, err := wire.AppendAccept(nil, &wire.Accept{
		ClientID: uint8(c.id),
		TickRate: uint16(s.cfg.TickRate),
		Tick:     s.tick,
		Map:      s.cfg.Map.Name,
	})
	if err == nil {
		s.queue(c.peer, buf)
	}
}

// mismatch returns why a client that sent Connect m cannot follow this
// server's game, or "": another declared game state, or other movement
// rules (unless it states none), or another declared command.
func (s *Server) mismatch(m *wire.Connect) string {
	if h := s.cfg.Game.Hash(); m.Game != h {
		name := s.cfg.Game.Name()
		if name == "" {
			name = "none"
		}
		return fmt.Sprintf("game state declaration differs: client %016x, server %016x (%s)", m.Game, h, name)
	}
	if h := s.cfg.Cmd.Hash(); m.Cmd != h {
		name := s.cfg.Cmd.Name()
		if name == "" {
			name = "none"
		}
		return fmt.Sprintf("game command declaration differs: client %016x, server %016x (%s)", m.Cmd, h, name)
	}
	if d := s.cfg.Shape.Diff(m.Shape); d != "" {
		return "game shape differs: " + d
	}
	if h := s.cfg.Movement.Hash(); m.Rules != 0 && m.Rules != h {
		return fmt.Sprintf("movement rules differ: client %016x, server %016x", m.Rules, h)
	}
	return ""
}

// reject refuses a Connect of size bytes, telling why if the Reject is
// no larger than the Connect (a server sends no more to an unproven
// address than it received), else silently.
func (s *Server) reject(to Peer, size int, reason string) {
	s.stats.Rejected++
	if _, playing := s.byPeer[to]; !playing {
		// A refused Connect ends no session the address has.
		s.ready.cur.Sessions = append(s.ready.cur.Sessions, SessionChange{Peer: to, Seat: -1, Reason: "rejected: " + reason})
	}
	if buf, ok := rejectFitting(s.scratch[:0], reason, size); ok {
		s.scratch = buf
		s.queuePlain(to, buf)
	}
}

// openToken opens and checks a Connect's connect token, counting a
// refusal by reason.
func (s *Server) openToken(now time.Duration, sealed string) (token.Claims, bool) {
	c, err := token.Open(s.cfg.ConnectKey, []byte(sealed), s.cfg.Epoch.Add(now))
	if err == nil {
		err = c.Check(s.cfg.MatchID, s.cfg.Address)
	}
	switch err {
	case nil:
		return c, true
	case token.ErrExpired:
		s.stats.Tokens.Expired++
		s.ready.cur.Counts.Tokens++
	case token.ErrWrongMatch:
		s.stats.Tokens.WrongMatch++
		s.ready.cur.Counts.Tokens++
	case token.ErrWrongAddress:
		s.stats.Tokens.WrongAddress++
		s.ready.cur.Counts.Tokens++
	default:
		s.stats.Tokens.Invalid++
		s.ready.cur.Counts.Tokens++
	}
	return c, false
}

// admitToken reports whether a connect token may get a slot, refusing
// one whose id is recorded (connect records the id of each that gets
// one). Ids are kept until their token expires, and at
// most Config.TokenWindow of them: expired ones are pruned when the
// window fills, and while it is full of unexpired ones no token is
// admitted.
func (s *Server) admitToken(now time.Duration, c token.Claims) bool {
	if s.seenTokens == nil {
		s.seenTokens = make(map[uint64]time.Duration)
	}
	if _, seen := s.seenTokens[c.ID]; seen {
		s.stats.Tokens.Replayed++
		s.ready.cur.Counts.Tokens++
		return false
	}
	if len(s.seenTokens) >= s.cfg.TokenWindow {
		for id, exp := range s.seenTokens {
			if exp <= now {
				delete(s.seenTokens, id)
			}
		}
		if len(s.seenTokens) >= s.cfg.TokenWindow {
			s.stats.Tokens.WindowFull++
			s.ready.cur.Counts.Tokens++
			return false
		}
	}
	return true
}

// addressTokenLen is the length of an address token: 128 bits of a
// keyed hash are beyond guessing.
const addressTokenLen = 16

// maxAckSlack is the scheduling slack allowed on top of one tick in the
// hold a client declares for the snapshot it acknowledges. A client
// acknowledges the newest snapshot in its next command packet, one tick
// at most after receiving it, so a longer declared hold is a lie (or a
// stall) and is not subtracted from the round trip: as QUIC bounds a
// peer's ack_delay by its max_ack_delay, 25 ms by default (RFC 9000,
// section 18.2). Declaring less than the true hold only makes the round
// trip look longer.
const maxAckSlack = 25 * time.Millisecond

// rttSample returns c's round-trip sample for a snapshot acknowledged,
// in a packet that arrived gap after c's previous one, elapsed after the
// snapshot was sent, declared held for declared. The declared hold is
// bounded by a tick plus maxAckSlack, and by gap: the packet before
// this one did not acknowledge the snapshot, so it left before the
// snapshot arrived, and the snapshot cannot have waited longer than the
// time between the two sends, which the server sees as the time between
// their arrivals. A client that answers each snapshot at once while
// declaring the longest hold can then look faster than it is by at most
// the interval between its packets (one tick when it sends every tick),
// not a tick plus the slack; jitter that brings two packets closer only
// makes an honest client's sample longer, never shorter.
func (s *Server) rttSample(elapsed, declared, gap time.Duration) time.Duration {
	return rtt.Sample(elapsed, min(declared, s.tickDur+maxAckSlack, gap))
}

// measuredRTT returns e's smoothed round trip, or unmeasuredRTT before
// any sample: a client that never acknowledged a snapshot has no known
// round trip, and reading it as zero would grant it what only low-ping
// clients get (alc's appeal, clc's compensation).
func measuredRTT(e *rtt.Estimator) time.Duration {
	if e.Samples() == 0 {
		return unmeasuredRTT
	}
	return e.Smoothed()
}

// unmeasuredRTT is what policies see for a round trip not yet measured:
// longer than any threshold, so no policy takes the client for a
// low-ping one.
const unmeasuredRTT = time.Duration(math.MaxInt64)

// cmdWindow is how far, in seconds of ticks, a command's tick may run
// ahead of the ticks that have passed since its client joined. A client
// numbers its commands from 1, one per tick, from the moment it is
// accepted, so an honest client is never ahead of that count; the second
// of slack absorbs a client clock that runs fast. Without the bound one
// datagram with a far-future tick (anyone can send one from a spoofed
// address) would move the replay guard past every honest command to come.
const cmdWindow = time.Second

// newestTick returns the newest command tick c can have issued by now.
func (s *Server) newestTick(now time.Duration, c *client) uint32 {
	ticks := (now-c.joinedAt+cmdWindow)/s.tickDur + 1
	return uint32(min(ticks, math.MaxUint32))
}

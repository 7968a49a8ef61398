package realtime

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/netcheck"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/bots"
)

// A match as one round of a study: recorded under the study's round
// index from the start of its measured part, paused and resumed by the
// study's administrator, ended by its own deadline on the play clock,
// with server-side bots in the seats the study gives them.

// Recording says how a match records a study's round (see Record).
type Recording struct {
	// Round is the index the records carry.
	Round int
	// Offset is added to every record's time: a round resumed after a
	// restart carries on from where its records stopped.
	Offset time.Duration
	// PathRate is how many times a second each living player's position
	// is recorded (record.Path) during the measured part (0: never; at
	// most the tick rate).
	PathRate int
}

// recording is a match's study recording state, owned by its goroutine.
type recording struct {
	on        bool
	measuring bool
	from      time.Duration // play time the measured part began at
	// pausedFrom is the server's pause total when the measured part
	// began.
	pausedFrom time.Duration
	offset     time.Duration
	pathEvery  time.Duration
	nextPath   time.Duration
	// played and paused are the measured part's figures when the match
	// ended (see Measured).
	played, paused time.Duration
	// departed holds, by seat, why the last connection removed from it
	// closed and its transport, for a disconnect the core logs after the
	// connection is gone.
	departed map[int][2]string
	// rtt holds each seat's server round-trip samples of the measured
	// part, links what its emulated links did in it (linkBase: each
	// peer's link counts when the measured part began or they were last
	// taken), checks the summary kept at the end (see NetChecks).
	rtt      map[int]*netcheck.RTT
	links    map[int]*[2]netcheck.Link
	linkBase map[server.Peer][2]netcheck.Link
	checks   map[int]NetCheck
}

// NetCheck is what a seat's link did in a recorded round's measured
// part: the server's round-trip samples and what its emulated links
// applied, up and down (zero counts for a link without emulation).
type NetCheck struct {
	RTT      netcheck.Summary
	Up, Down netcheck.Link
}

// NetChecks returns each seat's NetCheck for the round's measured part,
// by seat, once the match has ended (nil before).
func (m *Match) NetChecks() map[int]NetCheck {
	select {
	case <-m.done:
		return m.rec.checks
	default:
		return nil
	}
}

// linkCounts reads what l has done (zero for no link).
func linkCounts(l *netem.Link) netcheck.Link {
	if l == nil {
		return netcheck.Link{}
	}
	st := l.Stats()
	return netcheck.Link{Sent: st.Sent, Dropped: st.Lost + st.BurstLost + st.Dropped, Delivered: st.Delivered, Delay: st.DelaySum}
}

// takeLinks adds what p's links did since they were last taken to its
// seat's counts, during the measured part.
func (m *Match) takeLinks(p *peer) {
	r := &m.rec
	if !r.measuring || p.seat < 0 {
		return
	}
	now := [2]netcheck.Link{linkCounts(p.up), linkCounts(p.down)}
	base := r.linkBase[p.id]
	if r.links[p.seat] == nil {
		r.links[p.seat] = &[2]netcheck.Link{}
	}
	for i := range now {
		d := now[i]
		d.Sent -= base[i].Sent
		d.Dropped -= base[i].Dropped
		d.Delivered -= base[i].Delivered
		d.Delay -= base[i].Delay
		r.links[p.seat][i].Add(d)
	}
	r.linkBase[p.id] = now
}

// Record makes the match put what happens in it into sink as round
// rec.Round of a study: connects and disconnects from now on, and from
// the start of the measured part (Measure) its judged shots, kills,
// objective events, SBC reports and movement paths, timed on the play
// clock (pauses left out) from that start plus rec.Offset. Unlike
// SetSink it puts no record.Round: the study owns its rounds.
func (m *Match) Record(sink record.Sink, rec Recording) error {
	if rec.PathRate < 0 {
		return fmt.Errorf("realtime: path rate %d, want 0 or more", rec.PathRate)
	}
	return m.do(func() {
		m.sink, m.round = sink, rec.Round
		m.rec = recording{on: true, offset: rec.Offset}
		if rec.PathRate > 0 {
			m.rec.pathEvery = max(time.Second/time.Duration(rec.PathRate), m.tick)
		}
	})
}

// Restart begins the round anew (server.Server.Restart): scores,
// statistics and objectives back to their start, the living healed.
func (m *Match) Restart() error { return m.do(func() { m.srv.Restart() }) }

// Measure starts the measured part of a recorded round now and returns
// the play time it starts at.
func (m *Match) Measure() (time.Duration, error) {
	var at time.Duration
	err := m.do(func() {
		at = m.srv.PlayTime()
		m.rec.measuring, m.rec.from, m.rec.nextPath = true, at, at
		m.rec.pausedFrom = m.srv.PausedFor()
		m.rec.rtt, m.rec.links = map[int]*netcheck.RTT{}, map[int]*[2]netcheck.Link{}
		m.rec.linkBase = map[server.Peer][2]netcheck.Link{}
		for _, p := range m.peers {
			m.rec.linkBase[p.id] = [2]netcheck.Link{linkCounts(p.up), linkCounts(p.down)}
		}
	})
	return at, err
}

// Measured returns how long the measured part of a recorded round has
// run on the play clock (pauses left out, extensions in), the
// recording's offset included, and how long it was paused; once the
// match has ended, the figures it ended with. Both are 0 before Measure.
func (m *Match) Measured() (played, paused time.Duration) {
	err := m.do(func() { played, paused = m.measured() })
	if err != nil {
		<-m.done
		return m.rec.played, m.rec.paused
	}
	return played, paused
}

// measured computes Measured's figures on the match's goroutine.
func (m *Match) measured() (played, paused time.Duration) {
	if !m.rec.measuring {
		return 0, 0
	}
	return m.srv.PlayTime() - m.rec.from + m.rec.offset, m.srv.PausedFor() - m.rec.pausedFrom
}

// noteGone keeps why p's connection, removed, closed (see goneWhy).
func (m *Match) noteGone(p *peer, reason string) {
	if p.seat < 0 {
		return
	}
	if m.rec.departed == nil {
		m.rec.departed = map[int][2]string{}
	}
	kind, _, _ := strings.Cut(p.conn.Peer(), ":")
	m.rec.departed[p.seat] = [2]string{reason, kind}
	m.takeLinks(p)
}

// endRecording keeps what a study records of the match's end: the
// disconnects of the players the end sends away, with its reason and
// their transports, and the measured part's figures (Measured).
func (m *Match) endRecording(r *server.Ready) {
	m.rec.played, m.rec.paused = m.measured()
	if m.rec.measuring {
		for _, p := range m.peers {
			m.takeLinks(p)
		}
		m.rec.checks = map[int]NetCheck{}
		for seat, r := range m.rec.rtt {
			c := m.rec.checks[seat]
			c.RTT = r.Summary()
			m.rec.checks[seat] = c
		}
		for seat, l := range m.rec.links {
			c := m.rec.checks[seat]
			c.Up, c.Down = l[0], l[1]
			m.rec.checks[seat] = c
		}
	}
	for i := range r.Log {
		if r.Log[i].Kind == "disconnect" {
			m.putLog(&r.Log[i])
		}
	}
	// The hits on the players sent away whose judgment had not arrived
	// (the core hands them over as its sessions end).
	m.putSightings(r)
}

// at converts a core time (server time, pauses included) of something
// that happens now to a record's time, and reports whether it is kept.
func (m *Match) at(t time.Duration) (time.Duration, bool) {
	if !m.rec.on {
		return t, true
	}
	if !m.rec.measuring {
		return 0, false
	}
	return t - m.srv.PausedFor() - m.rec.from + m.rec.offset, true
}

// putPaths records the living players' positions when one is due.
func (m *Match) putPaths() {
	r := &m.rec
	if m.sink == nil || !r.measuring || r.pathEvery == 0 || m.srv.PlayTime() < r.nextPath {
		return
	}
	now := m.srv.PlayTime()
	for r.nextPath <= now {
		r.nextPath += r.pathEvery
	}
	at := now - r.from + r.offset
	for _, p := range m.peers {
		if p.seat < 0 {
			continue
		}
		ci, ok := m.srv.Client(p.seat)
		if ok {
			if r.rtt[p.seat] == nil {
				r.rtt[p.seat] = &netcheck.RTT{}
			}
			r.rtt[p.seat].Add(ci.RTT)
		}
		if !ok || ci.State.Has(game.FlagDead) {
			continue
		}
		m.sink.Put(record.Path{Round: m.round, At: at, Seat: p.seat, Team: ci.Team,
			X: ci.State.Pos.X, Y: ci.State.Pos.Y, Z: ci.State.Pos.Z,
			YawDeg: game.AngleToDeg(int32(ci.State.Yaw)), PitchDeg: game.AngleToDeg(int32(ci.State.Pitch))})
	}
}

// EndAt ends the match once its play clock (server time less pauses)
// reaches at: a study round's end, which a pause postpones and an
// extension moves (0: no such end).
func (m *Match) EndAt(at time.Duration) error {
	return m.do(func() { m.deadline = at })
}

// PlayTime returns the match's play clock: its time less its pauses.
func (m *Match) PlayTime() (time.Duration, error) {
	var t time.Duration
	err := m.do(func() { t = m.srv.PlayTime() })
	return t, err
}

// Pause freezes the game (see server.Server.Pause): nobody moves or
// fires, the mode's clock and the match's deadline stop; the players
// stay connected.
func (m *Match) Pause() error { return m.do(func() { m.srv.Pause() }) }

// Resume undoes Pause.
func (m *Match) Resume() error { return m.do(func() { m.srv.Resume() }) }

// SetTally seeds the statistics of the player a connect token names
// (see server.Server.SetTally); it needs MatchConfig.Seat.
func (m *Match) SetTally(player string, t server.Tally) error {
	if m.r.server.Seat == nil {
		return errors.New("realtime: the match places nobody by identity (MatchConfig.Seat): it keeps no statistics")
	}
	return m.do(func() { m.srv.SetTally(player, t) })
}

// Tally returns the statistics of player (see server.Server.TallyOf).
func (m *Match) Tally(player string) (server.Tally, bool, error) {
	var t server.Tally
	var ok bool
	err := m.do(func() { t, ok = m.srv.TallyOf(player) })
	return t, ok, err
}

// AddBot starts a server-side bot named name, whose connect token (when
// the match requires tokens) names it and seat, so that MatchConfig.Seat
// can place it. It plays until the match ends or its seat is taken.
func (m *Match) AddBot(name string, seat int) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("realtime: bot name %q: want 1 to 32 bytes", name)
	}
	if seat < 0 || seat > 255 {
		return fmt.Errorf("realtime: bot seat %d, want 0 to 255", seat)
	}
	var err error
	if e := m.do(func() { err = m.startNamedBot(name, seat) }); e != nil {
		return e
	}
	return err
}

// botGrid returns the navigation grid bots walk, built on first use.
func (m *Match) botGrid() (*nav.Grid, error) {
	if m.r.grid == nil {
		g, err := nav.Build(m.r.server.Map, m.r.params)
		if err != nil {
			return nil, err
		}
		m.r.grid = g
	}
	return m.r.grid, nil
}

// botConfig is a server-side bot's brain configuration: three in four
// attack, as in lagkit's matches of bots.
func (m *Match) botConfig(n int) bots.Config {
	return bots.Config{Skill: m.r.cfg.BotSkill, Attacker: n%4 != 0}
}

// Tallies returns every player's statistics by identity (see
// server.Server.Tallies); once the match has ended, those it ended with.
func (m *Match) Tallies() map[string]server.Tally {
	var t map[string]server.Tally
	if m.do(func() { t = m.srv.Tallies() }) != nil {
		<-m.done
		return m.final
	}
	return t
}

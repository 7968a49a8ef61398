package realtime

import (
	"strings"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
)

// SetSink makes the match put what happens in it into sink, as a study
// keeps it (package record): its round (the match's index in its host)
// now and when it ends, each judged shot, kill, objective event, connect
// and disconnect, and the players' "shot behind cover" reports, each
// with the newest hit on the reporter (nil: nothing kept). Players are
// named by slot; times are the match's.
func (m *Match) SetSink(sink record.Sink) error {
	return m.do(func() {
		m.sink = sink
		m.putRound(time.Time{})
	})
}

// putRound puts the match's round: started, or ended at end when end is
// set.
func (m *Match) putRound(end time.Time) {
	if m.sink == nil || m.rec.on {
		return
	}
	c := &m.r.cfg
	r := record.Round{Index: m.round, Name: "match " + m.id, Map: c.Map, Mode: c.Mode,
		Technique: "policy=" + m.r.server.Policy.Name, Duration: time.Duration(c.Duration), Started: m.start, Ended: end}
	m.sink.Put(r)
}

// putLog puts the record of a log entry of the core that a study keeps:
// a kill, an objective event, a connect or a disconnect.
func (m *Match) putLog(e *server.LogEntry) {
	if m.sink == nil {
		return
	}
	at, measured := m.at(e.Time)
	switch {
	case e.Kind == "kill" && measured:
		m.sink.Put(record.Kill{Round: m.round, At: at, Killer: e.Player, Victim: e.Other})
	case e.Objective >= 0 && measured:
		for _, seat := range e.Doers() {
			m.sink.Put(record.Objective{Round: m.round, At: at, Seat: seat, Team: e.Team, Kind: e.Kind})
		}
	case e.Kind == "connect":
		m.sink.Put(record.Session{Round: m.round, Seat: e.Player, Kind: record.Connect, Transport: m.transportOf(e.Player), At: m.start.Add(e.Time)})
	case e.Kind == "disconnect":
		reason, transport := m.goneWhy(e.Player, e.Reason)
		m.sink.Put(record.Session{Round: m.round, Seat: e.Player, Kind: record.Disconnect, Reason: reason, Transport: transport, At: m.start.Add(e.Time)})
	}
}

// goneWhy returns why the session in seat ended and its transport, for
// a disconnect the core logged with reason (empty when the core did not
// end it itself: the connection closed, the client said goodbye, or a
// new connect of the same player replaced it). The peer whose session
// it was is still known when the disconnect is logged.
func (m *Match) goneWhy(seat int, reason string) (string, string) {
	var gone *peer
	replaced := false
	for _, p := range m.peers {
		if p.seat != seat {
			continue
		}
		if _, still := m.srv.ClientByPeer(p.id); still {
			replaced = true
		} else if gone == nil || p.id < gone.id {
			gone = p
		}
	}
	transport := ""
	if gone != nil {
		transport, _, _ = strings.Cut(gone.conn.Peer(), ":")
	} else if d, ok := m.rec.departed[seat]; ok {
		// Its connection was closed and removed before the core's log
		// was read (a client's goodbye).
		delete(m.rec.departed, seat)
		if reason == "" {
			reason = d[0]
		}
		return reason, d[1]
	}
	switch {
	case reason != "":
	case gone != nil && gone.closing != "":
		reason = gone.closing
	case gone != nil && gone.conn.Reason() != "":
		reason = gone.conn.Reason()
	case replaced:
		reason = "replaced by a new connect of the same player"
	default:
		reason = "connection closed"
	}
	return reason, transport
}

// transportOf names the transport of the player in seat ("udp",
// "webtransport", "websocket", "pipe" for a server-side bot).
func (m *Match) transportOf(seat int) string {
	for _, p := range m.peers {
		if _, ok := m.srv.ClientByPeer(p.id); ok && p.seat == seat {
			kind, _, _ := strings.Cut(p.conn.Peer(), ":")
			return kind
		}
	}
	return ""
}

// clientShot fills in what the shooter's client sent of shot rec (its
// eye, aim, view time and own verdict), the view time on the clock of out.At, which
// must be set first or be rec.Time's: a projectile's record has none.
func clientShot(out *record.Shot, rec *server.ShotRecord) {
	if rec.Projectile {
		return
	}
	out.EyeX, out.EyeY, out.EyeZ = rec.Eye.X, rec.Eye.Y, rec.Eye.Z
	out.AimYawDeg, out.AimPitchDeg = game.AngleToDeg(int32(rec.Yaw)), game.AngleToDeg(int32(rec.Pitch))
	out.ViewAt = out.At - (rec.Time - rec.ViewTime)
	out.ClientVerdict = rec.ClientShown.String()
}

// putShot puts rec, a record of the core's Shots or, for a hit its
// victim was told of, of its Sightings, as a study keeps it, when it
// falls in the recorded part.
func (m *Match) putShot(rec *server.ShotRecord) {
	if at, ok := m.at(rec.Time); ok && m.sink != nil {
		sr := shotRecord(m.round, rec)
		sr.At, sr.ViewAt = at, sr.ViewAt-sr.At+at
		m.sink.Put(sr)
	}
}

// putSightings puts the told hits of handover rd with their victims'
// judgments, and counts those judged behind cover.
func (m *Match) putSightings(rd *server.Ready) {
	for i := range rd.Sightings {
		rec := &rd.Sightings[i]
		m.putShot(rec)
		if rec.Registered && rec.Sight.SBC {
			m.met.sbc.Inc()
		}
	}
}

// shotRecord is rec as a study keeps it: the shot behind cover its
// victim's client judged (rec.Sight, in a record of Ready.Sightings),
// beside the server's present-time test of it.
func shotRecord(round int, rec *server.ShotRecord) record.Shot {
	out := record.Shot{Round: round, At: rec.Time, Shooter: rec.Shooter, ShotTick: rec.ShotTick, Victim: rec.Victim,
		Weapon: rec.Weapon, Policy: rec.Policy, Hit: rec.Hit, Registered: rec.Registered, Damage: int(rec.Damage),
		RewindMS: rec.RewindMS, RollbackM: rec.RollbackM, ObjectiveSBC: rec.Sight.SBC, SBCKnown: rec.Sight.Known,
		ServerSBC: rec.ServerSBC, Kill: rec.Kill}
	clientShot(&out, rec)
	if rec.Victim >= 0 {
		out.Part = rec.Part.String()
	}
	if rec.Appealed {
		out.Appeal = rec.Outcome.String()
	}
	return out
}

// Place moves player id to pos facing yaw (radians), alive and
// unprotected, as server.Server.Place does: for scripted tests and
// study setups that need players where they can see each other.
func (m *Match) Place(id int, pos geom.Vec3, yaw float64) error {
	return m.do(func() { m.srv.Place(id, pos, yaw) })
}

// putReports hands the SBC reports of the core's handover rd to the sink.
func (m *Match) putReports(rd *server.Ready) {
	for i := range rd.Reports {
		r := &rd.Reports[i]
		if at, ok := m.at(r.Time); ok && m.sink != nil {
			sr := sbcRecord(r)
			sr.Round, sr.At = m.round, at
			m.sink.Put(sr)
		}
	}
}

// sbcRecord is r as a study keeps it.
func sbcRecord(r *server.SBCReport) record.SBCReport {
	out := record.SBCReport{At: r.Time, Reporter: r.Reporter, Shooter: r.Shooter}
	if r.Hit {
		out.ShotTick, out.RewindMS, out.RollbackM = r.ShotTick, r.RewindMS, r.RollbackM
		out.ObjectiveSBC = r.SBCKnown && r.ObjectiveSBC
		if r.Appealed {
			out.Appeal = r.Outcome.String()
		}
	}
	return out
}

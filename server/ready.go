package server

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Ready is everything the server did between two handovers (Advance or
// Ready): what to send, which sessions started, ended or were refused,
// the shots settled, the kills, the log, the players' SBC reports, the
// game's events and shots, and what was refused or dropped. It is the
// one place a driver learns what happened, as etcd raft's Ready is: a
// driver never diffs counters, pairs lists or decodes a datagram to
// find out.
//
// The server keeps two Readys and alternates them: a Ready and every
// slice in it stay valid until the next handover, when its buffers are
// reused. A driver that ignores a Ready loses it; nothing accumulates
// for a driver that does not read it.
type Ready struct {
	// Tick is the last tick simulated; Ticks how many ran since the
	// previous handover (several when a driver fell behind).
	Tick  uint32
	Ticks int
	// Messages are the datagrams to send, in order: snapshots, Accepts,
	// Challenges, and the Rejects and Disconnects of sessions refused or
	// ended. The driver sends them as they are.
	Messages []Datagram
	// Sessions are the sessions started and ended and the Connects
	// refused, in order: a driver notes a seat taken, or closes a peer's
	// connection once the Messages to it have left.
	Sessions []SessionChange
	// Shots are the shots settled, each pellet and projectile once.
	Shots []ShotRecord
	// Kills are the kills, in order, as the server judged them.
	Kills []Kill
	// Log is the match's log: spawns, kills, objectives, disconnects,
	// SBC reports.
	Log []LogEntry
	// Sightings are the records of Shots with Told set, each once more,
	// once its victim's client's judgment of it arrived or can no longer
	// come (Sight; sighting.go): a driver keeping a study's records
	// stores a told hit from here, and every other shot from Shots.
	Sightings []ShotRecord
	// Reports are the players' SBC reports that arrived.
	Reports []SBCReport
	// GameEvents are the game events clients sent, in the order they
	// arrived, each client's in its order, each once.
	GameEvents []GameEvent
	// Counts are what the server refused or dropped meanwhile: Stats'
	// counters of those, for the span alone, for a driver's metrics.
	Counts Counts
}

// Kill is one kill, as the server judged it.
type Kill struct {
	Time time.Duration
	// Killer is the killer's slot (Victim's own for a death by no one);
	// KillerTeam and VictimTeam the teams at the time.
	Killer, Victim         int
	KillerTeam, VictimTeam int
	// Weapon is the killing shot's loadout slot (its shooter's, for a
	// game's shot), -1 when the kill came through Damage (harm other
	// than a shot).
	Weapon int
	// Pos is where the victim died.
	Pos geom.Vec3
}

// ready holds the Ready being filled and the one last handed over.
type ready struct {
	// cur and out point into bufs, one each; a handover swaps the
	// pointers, not the Readys.
	cur, out *Ready
	bufs     [2]Ready
}

// Ready hands over what happened since the previous handover (this or
// Advance) without running a tick: the datagrams Step produced (an
// Accept, a Challenge, a Reject) for a driver that sends them at once.
// The Ready is valid until the next handover.
func (s *Server) Ready() *Ready {
	r := &s.ready
	r.cur, r.out = r.out, r.cur
	cur, out := r.cur, r.out
	out.Tick = s.tick
	out.Messages = out.Messages[:0]
	s.outq.Drain(s.collect)
	out.GameEvents = s.games.take()
	*cur = Ready{
		Messages:  cur.Messages[:0],
		Sessions:  cur.Sessions[:0],
		Shots:     cur.Shots[:0],
		Kills:     cur.Kills[:0],
		Log:       cur.Log[:0],
		Reports:   cur.Reports[:0],
		Sightings: cur.Sightings[:0],
	}
	return out
}

// collect appends one drained datagram to the Ready being handed over.
func (s *Server) collect(to Peer, b []byte) {
	s.ready.out.Messages = append(s.ready.out.Messages, Datagram{To: to, Data: b})
}

package client

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// Ready is everything the client did between two handovers (Tick or
// Ready): the datagrams to send, what became of the session, the
// snapshots taken, the shots its player fired, the hits on its player
// and the server's word on its own, the server's events, the
// prediction errors and what the span counted. It is the one place a
// driver learns what happened, as server.Ready is for a server core: a
// driver never diffs counters, pairs lists or decodes a datagram to
// find out.
//
// The client keeps two Readys and alternates them: a Ready and every
// slice in it stay valid until the next handover, when its buffers are
// reused. A driver that ignores a Ready loses it; nothing accumulates
// for a driver that does not read it, and one that steps datagrams
// without ever taking a Ready keeps at most a span of maxSpan (1,024)
// datagrams' events (Discarded).
type Ready struct {
	// Messages are the datagrams to send, in order: Connects, command
	// packets, appeals, reports, game events and a Disconnect. The
	// driver sends them as they are.
	Messages []Datagram
	// Session is what became of the session, in order: its acceptance,
	// its refusal or its end.
	Session []SessionChange
	// Snapshots are the snapshots taken (not stale, not malformed), in
	// the order they arrived.
	Snapshots []Snapshot
	// Shots are the shots the client predicted its player firing, each
	// once, on the tick its command was issued.
	Shots []Shot
	// Hits are the hits on the local player as they arrived, each with
	// its SBC detection, which the client tells the server (Sightings),
	// and, for a provisional hit, the client's answer to it (an appeal).
	Hits []HitReport
	// Sightings are the client's judgments of the hits on its player
	// (wire.Sighting, from Hits) as they first left for the server, on
	// a command packet; those dropped unsent are counted
	// (Counts.SightingsDropped).
	Sightings []wire.Sighting
	// Confirms are the server's word on the local player's hits.
	Confirms []ConfirmReport
	// Verdicts are the server's verdicts on the appeals the client sent
	// (the answers to Hits with Appeal set).
	Verdicts []wire.VerdictEvent
	// ReportAnswers are the server's answers to the player's SBC reports
	// (ReportSBC): kept, or refused as over the report rate.
	ReportAnswers []wire.ReportAck
	// Kills are the kills the server announced.
	Kills []wire.KillEvent
	// Rewinds are the server's accounts of the hits the local player made
	// or took (from a server with ShowRewind: what it tested, for a
	// rewind view).
	Rewinds []wire.RewindEvent
	// Projectiles are the projectiles launched (to draw their flight),
	// Explosions the projectiles that hit something.
	Projectiles []wire.ProjectileEvent
	Explosions  []wire.ExplosionEvent
	// Tracers are the other players' hitscan shots the server told of
	// (from a server with ShowTracers).
	Tracers []wire.TracerEvent
	// Placements are the server's placements of the local player (its
	// spawn, respawns, teleports), with the way it turned the player.
	Placements []wire.PlaceEvent
	// GameEvents are the game's own events the server sent (see
	// SendEvent for the other way), in the server's order, each once.
	GameEvents []wire.Event
	// Notes are every reliable event delivered, lagkit's and the game's,
	// in sequence order, each once, for a driver that keeps an account of
	// what reached the player to compare with the server's
	// (server.Server.SetEventNotes).
	Notes []wire.Event
	// PredictionErrors are, for each command the server reported
	// executed, the distance between the position predicted for it and
	// the server's.
	PredictionErrors []float64
	// Mispredictions are, for every field of the player's state
	// (lagkit's, then the game's declared ones), how many of the
	// Predictions measured (those of PredictionErrors) had it wrong: a
	// step that predicts a field exactly has 0 of any number. The list
	// holds every field, in the same order, in every Ready.
	Mispredictions []Misprediction
	Predictions    int
	// Counts are Stats' counters for the span alone.
	Counts Stats
	// Discarded counts the spans of events and datagrams the client
	// dropped unread since the previous handover, each because a driver
	// stepped 1,024 datagrams (maxSpan) without taking a Ready; the
	// Counts still count what they held.
	Discarded int

	// data backs the Data of GameEvents and Notes.
	data []byte
}

// SessionKind is what became of a session.
type SessionKind uint8

// Session changes.
const (
	// SessionConnected: the server accepted the client (ID, its slot).
	SessionConnected SessionKind = iota + 1
	// SessionRefused: the session could not start: the server rejected
	// the Connect, plays another map (ServerMap), or its Challenge
	// carried a key the client could not use.
	SessionRefused
	// SessionEnded: the server ended the session (ByServer, with Code),
	// or the client did (Disconnect).
	SessionEnded
)

// SessionChange is one change of the session.
type SessionChange struct {
	Kind SessionKind
	// ID is the client's slot (SessionConnected).
	ID int
	// Reason says why the session was refused or ended (Client.Reason).
	Reason string
	// ByServer is set when the server's Disconnect ended the session,
	// Code then being its code: which of the server's limits, if any,
	// the client went over.
	ByServer bool
	Code     wire.DisconnectCode
	// ServerMap is the map the server plays when its Accept named
	// another than Config.Map.
	ServerMap string
}

// Snapshot is one snapshot the client took.
type Snapshot struct {
	Tick uint32
	// First is set for the session's first.
	First bool
	// Corrections counts the reconciliations of the snapshot that moved
	// the predicted present by more than a millimetre (Stats.Corrections).
	Corrections int
}

// Shot is a shot the client predicted its player firing.
type Shot struct {
	// Cmd is the command that fired, as sent: with its Tick, its view
	// time, any fire press, and the client's own verdict on the shot
	// (Shown; see game.UserCmd.Shown).
	Cmd game.UserCmd
	// State is the player's predicted state after the command.
	State game.PlayerState
}

// maxSpan bounds the datagrams stepped between two handovers: a driver
// that steps more without taking a Ready (Tick or Ready) loses what the
// span held, so that a client stepped without ticks keeps no more than
// that (4 s of snapshots at 256 Hz).
const maxSpan = 1024

// readies holds the Ready being filled and the one last handed over.
type readies struct {
	// cur and out point into bufs, one each; a handover swaps the
	// pointers, not the Readys.
	cur, out *Ready
	bufs     [2]Ready
	// span counts the datagrams stepped since the last handover or
	// discard, statsAt the Stats at the last handover.
	span    int
	statsAt Stats
}

// Ready hands over what happened since the previous handover (this or
// Tick) without issuing a command: the datagrams Connect, Step or
// Disconnect queued, for a driver that sends them at once, and what
// the datagrams stepped did. The Ready is valid until the next
// handover.
func (c *Client) Ready() *Ready {
	r := &c.ready
	r.cur, r.out = r.out, r.cur
	out := r.out
	out.Messages = out.Messages[:0]
	c.outq.Drain(c.collect)
	out.Counts = c.stats.sub(&r.statsAt)
	r.statsAt, r.span = c.stats, 0
	c.reset(r.cur)
	return out
}

// collect appends one drained datagram to the Ready being handed over.
func (c *Client) collect(cmds bool, b []byte) {
	c.ready.out.Messages = append(c.ready.out.Messages, Datagram{Data: b, Commands: cmds})
}

// reset empties r for filling, keeping its buffers.
func (c *Client) reset(r *Ready) {
	truncate(r)
	for i := range r.Mispredictions {
		r.Mispredictions[i].Wrong = 0
	}
	r.Predictions, r.Counts, r.Discarded = 0, Stats{}, 0
}

// truncate empties r's lists, keeping their buffers.
func truncate(r *Ready) {
	r.Messages = r.Messages[:0]
	r.Session = r.Session[:0]
	r.Snapshots = r.Snapshots[:0]
	r.Shots = r.Shots[:0]
	r.Hits = r.Hits[:0]
	r.Sightings = r.Sightings[:0]
	r.Confirms = r.Confirms[:0]
	r.Verdicts = r.Verdicts[:0]
	r.ReportAnswers = r.ReportAnswers[:0]
	r.Kills = r.Kills[:0]
	r.Rewinds = r.Rewinds[:0]
	r.Projectiles = r.Projectiles[:0]
	r.Explosions = r.Explosions[:0]
	r.Tracers = r.Tracers[:0]
	r.Placements = r.Placements[:0]
	r.GameEvents = r.GameEvents[:0]
	r.Notes = r.Notes[:0]
	r.PredictionErrors = r.PredictionErrors[:0]
	r.data = r.data[:0]
}

// stepped counts a datagram stepped; past maxSpan since the last
// handover, the span's lists and datagrams are dropped (its counters
// are kept for the next Ready).
func (c *Client) stepped() {
	r := &c.ready
	if r.span++; r.span <= maxSpan {
		return
	}
	c.outq.Drain(func(bool, []byte) {})
	truncate(r.cur)
	r.cur.Discarded++
	r.span = 1
}

// keepEvent keeps one reliable event of kind with data in list, its data
// copied into the Ready's own buffer.
func (r *Ready) keepEvent(list *[]wire.Event, seq uint32, kind uint16, data []byte) {
	start := len(r.data)
	r.data = append(r.data, data...)
	*list = append(*list, wire.Event{Seq: seq, Kind: kind, Data: r.data[start:len(r.data):len(r.data)]})
}

// sub returns the counters of s less those of at.
func (s *Stats) sub(at *Stats) Stats {
	return Stats{
		SnapshotsReceived: s.SnapshotsReceived - at.SnapshotsReceived,
		BytesReceived:     s.BytesReceived - at.BytesReceived,
		Malformed:         s.Malformed - at.Malformed,
		Stale:             s.Stale - at.Stale,
		Corrections:       s.Corrections - at.Corrections,
		Shots:             s.Shots - at.Shots,
		Appeals:           s.Appeals - at.Appeals,
		AppealsResent:     s.AppealsResent - at.AppealsResent,
		Sightings:         s.Sightings - at.Sightings,
		SightingsDropped:  s.SightingsDropped - at.SightingsDropped,
		Reports:           s.Reports - at.Reports,
		ReportsKept:       s.ReportsKept - at.ReportsKept,
		ReportsRefused:    s.ReportsRefused - at.ReportsRefused,
		ReportsResent:     s.ReportsResent - at.ReportsResent,
		CommandsSent:      s.CommandsSent - at.CommandsSent,
		EncodeErrors:      s.EncodeErrors - at.EncodeErrors,
		CmdRefused:        s.CmdRefused - at.CmdRefused,
		ForeignGoodbyes:   s.ForeignGoodbyes - at.ForeignGoodbyes,
		Forged:            s.Forged - at.Forged,
	}
}

// Mispredicted returns how many of the span's Predictions had the field
// name wrong (-1 for no such field).
func (r *Ready) Mispredicted(name string) int {
	for _, m := range r.Mispredictions {
		if m.Field == name {
			return m.Wrong
		}
	}
	return -1
}

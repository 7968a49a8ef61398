package server

import (
	"time"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
)

// ClientInfo describes one connected client.
type ClientInfo struct {
	ID            int
	Peer          Peer
	Name          string
	State         game.PlayerState
	LastCmd       uint32
	RTT           time.Duration // server-measured smoothed round trip
	InterpDelay   time.Duration
	BytesSent     int
	PacketsSent   int
	Snapshots     int
	SnapshotBytes int
	CmdsLost      int // commands never executed (gaps in the sequence)
	CmdsDropped   int // commands dropped because the queue was full

	Shots, Hits, HitsTaken int // rays fired (a shotgun fires several per shot), those registered on others, hits registered on this player
	PressShots             int // shots whose command carried a fire press (sub-tick input)
	Kills, Deaths          int
	Team, Score            int
	Refuted                int // denials the server refuted
	// UpdatesSent counts the other players' states sent to this client:
	// under threshold replication or a bandwidth limit those sent anew,
	// else every one in every snapshot.
	UpdatesSent    int
	AppealsIgnored int // appeals for unknown, settled, foreign or late hits
	// Delay describes the time delay applied to the client.
	Delay delay.Stats
	// Charged is what the client was charged against its Limits.
	Charged LimitCounts
}

// PlayerState returns the state and team of the player in slot id, as
// Client does, without the rest of its information: for observers that
// look at every player every tick.
func (s *Server) PlayerState(id int) (st game.PlayerState, team int, ok bool) {
	if id < 0 || id >= len(s.clients) || s.clients[id] == nil {
		return game.PlayerState{}, 0, false
	}
	c := s.clients[id]
	return c.state, c.team, true
}

// Client returns information on the client in slot id.
func (s *Server) Client(id int) (ClientInfo, bool) {
	if id < 0 || id >= len(s.clients) || s.clients[id] == nil {
		return ClientInfo{}, false
	}
	c := s.clients[id]
	return ClientInfo{
		ID: c.id, Peer: c.peer, Name: c.name, State: c.state, LastCmd: c.lastExec,
		RTT: c.rtt.Smoothed(), InterpDelay: c.interpDelay,
		BytesSent: c.bytesSent, PacketsSent: c.packetsSent,
		Snapshots: c.snapshots, SnapshotBytes: c.snapshotBytes,
		CmdsLost: c.cmdsLost, CmdsDropped: c.cmdsDropped,
		Shots: c.shotsFired, Hits: c.hitsLanded, HitsTaken: c.hitsTaken, PressShots: c.pressShots,
		Kills: c.kills, Deaths: c.deaths, Team: c.team, Score: s.rules.Score(c.id), Refuted: c.refuted, AppealsIgnored: c.appealsIgnored, UpdatesSent: c.updatesSent,
		Delay: s.delay.Stats(c.id), Charged: c.usage.counts(),
	}, true
}

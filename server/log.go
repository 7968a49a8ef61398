package server

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// hashStates folds every player's authoritative state into the running
// state digest, in slot order, in one write.
func (s *Server) hashStates() {
	b := s.hashBuf[:0]
	for _, c := range s.clients {
		if c != nil {
			b = appendStateRecord(b, s.tick, c, s.cfg.Game)
		}
	}
	s.hash.Write(b)
	s.hashBuf = b
}

// appendStateRecord appends the digest's record of c's state at tick.
func appendStateRecord(b []byte, tick uint32, c *client, decl *game.Layout) []byte {
	b = binary.LittleEndian.AppendUint32(b, tick)
	b = append(b, byte(c.id))
	st := &c.state
	for _, v := range [...]float64{st.Pos.X, st.Pos.Y, st.Pos.Z, st.Vel.X, st.Vel.Y, st.Vel.Z} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = binary.LittleEndian.AppendUint16(b, st.Yaw)
	b = binary.LittleEndian.AppendUint16(b, uint16(st.Pitch))
	b = append(b, byte(st.Flags), st.Teleport)
	b = binary.LittleEndian.AppendUint16(b, uint16(st.Health))
	// The game's declared state, field by field, whatever the game is.
	return decl.AppendDigest(b, &st.Game)
}

// LogEntry is one thing that happened in the match: a connect,
// disconnect, spawn, placement, kill, SBC report (sbc_report), pause,
// resume, restart (Server.Restart), or objective event (flag_taken, flag_dropped, flag_returned,
// flag_captured, point_captured, point_neutral).
type LogEntry struct {
	Time time.Duration
	Kind string
	// Player did it (the killer of a kill, the reporter of an
	// sbc_report; -1 for nobody), Other is the victim of a kill or the
	// shooter of the hit an sbc_report refers to (else -1).
	Player, Other int
	Team          int
	Objective     int // index among the rules' objectives (Objective), else -1
	Pos           geom.Vec3
	// Code and Reason say why the server ended a session (a disconnect
	// the client asked for, or whose connection went, has neither).
	Code   wire.DisconnectCode
	Reason string
	// Scorers are the players a point_captured scored for (left out of
	// the state digest).
	Scorers []int
}

// Doers returns the players an objective event counts for, one record
// each: a point's capture's scorers, else its player.
func (e *LogEntry) Doers() []int {
	if len(e.Scorers) > 0 {
		return e.Scorers
	}
	return []int{e.Player}
}

// record logs an entry at the current tick and folds it into the state
// digest.
func (s *Server) record(e LogEntry) {
	e.Time = s.Time()
	if e.Kind != "kill" && e.Kind != "sbc_report" {
		e.Other = -1
	}
	if !strings.HasPrefix(e.Kind, "flag_") && !strings.HasPrefix(e.Kind, "point_") {
		e.Objective = -1
	}
	b := binary.LittleEndian.AppendUint32(s.hashBuf[:0], s.tick)
	b = append(b, 0xff)
	b = append(b, e.Kind...)
	b = append(b, byte(e.Player), byte(e.Other), byte(e.Team), byte(e.Objective))
	s.hash.Write(b)
	s.hashBuf = b
	s.ready.cur.Log = append(s.ready.cur.Log, e)
}

// StateHash returns a hex SHA-256 digest of every tick's authoritative
// player states and every logged event so far: two runs with the
// same inputs give the same digest.
func (s *Server) StateHash() string {
	return hex.EncodeToString(s.hash.Sum(nil))
}

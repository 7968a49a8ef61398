package wire

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Match events tell clients what the rules decided: objectives changing
// hands, the scoreboard and the server-mandated settings. Their layouts:
//
//	ObjectiveEvent:  What 4 | Objective 8 | Player 8 (255: none) | Team 8 |
//	                 Pos.X Pos.Y Pos.Z 32 each, game.PosQuantum units
//	ScoreboardEvent: TimeLeft uvarint ms | TeamScore 2 x 16 (signed) |
//	                 rows 6 | per row: ID 8 | Team 8 | Kills 16 | Deaths 16 |
//	                 Score 16 (signed) | PingMS 16
//	SettingsEvent:   FOVDeg 8 | HitIndicator 1 | Minimap 1 | PingColumn 1 |
//	                 Team 8 | Mode string (4-bit length) | More 1 |
//	                 if More: Paused 1 | PredictionOff 1 |
//	                 Display string (5-bit length) | MoreFeedback 1 |
//	                 if MoreFeedback: Feedback string (4-bit length) |
//	                 PlaceboMS 16 | PlaceboPermille 16
//
// More falls in the settings event's padding bit, and MoreFeedback in
// the padding bit after Display: settings with Paused, PredictionOff,
// Display and the feedback at their zero values are written without
// them, in as many bytes as before they existed.

// More event kinds (see EventHit).
const (
	EventObjective  uint16 = 5 // ObjectiveEvent, to every client
	EventScoreboard uint16 = 6 // ScoreboardEvent, to every client
	EventSettings   uint16 = 7 // SettingsEvent, to a client as it joins and when they change
)

// ObjectiveEvent reports a change of a flag or control point.
type ObjectiveEvent struct {
	// What is the change, a mode.EventKind (1 flag taken, 2 dropped, 3
	// returned, 4 captured, 5 point captured, 6 point neutralised).
	What      uint8
	Objective uint8 // index among the mode's flags or points
	Player    int   // who did it, -1 for nobody
	Team      uint8
	// Pos is where the objective now is, on the game.PosQuantum grid.
	Pos geom.Vec3
}

// ScoreRow is one player's line on the scoreboard.
type ScoreRow struct {
	ID, Team      uint8
	Kills, Deaths uint16
	Score         int16
	PingMS        uint16
}

// MaxScoreRows is the most rows one ScoreboardEvent carries; a server with
// more players sends several.
const MaxScoreRows = 24

// ScoreboardEvent is the scoreboard, or part of it.
type ScoreboardEvent struct {
	TimeLeft  time.Duration // 0: unlimited
	TeamScore [2]int16
	Rows      []ScoreRow
}

// SettingsEvent carries the settings the server mandates for every client
// (as a study requires them equal), the player's team, and whether the
// game is paused. A server sends it again whenever one of them changes.
type SettingsEvent struct {
	FOVDeg       uint8
	HitIndicator bool // show the direction hits come from
	Minimap      bool
	PingColumn   bool // show pings on the scoreboard
	Team         uint8
	Mode         string // at most 15 bytes
	// Paused reports that the game is paused: commands move nobody.
	Paused bool
	// PredictionOff has the client show its own player where the server
	// last put it, without predicting its commands.
	PredictionOff bool
	// Display names the display mode clients draw remote players with
	// (client.DisplayNames; empty: the client's own choice), at most
	// MaxDisplayName bytes.
	Display string
	// Feedback names what every client shows its player of the network
	// (client.Feedbacks: none, ping, netgraph or placebo; empty: the
	// client's own choice), at most MaxFeedbackName bytes. A placebo
	// shows PlaceboMS as its ping when set, else the real round trip
	// times PlaceboPermille/1000.
	Feedback        string
	PlaceboMS       uint16
	PlaceboPermille uint16
}

// MaxFeedbackName is the longest feedback name a SettingsEvent carries.
const MaxFeedbackName = 15

// MaxDisplayName is the longest display mode name a SettingsEvent
// carries.
const MaxDisplayName = 31

const (
	objectiveName  = "objective event"
	scoreboardName = "scoreboard event"
	settingsName   = "settings event"
)

// AppendObjectiveEvent appends the encoding of e to dst. e.Pos must lie
// on the game.PosQuantum grid within ±MaxCoord units.
func AppendObjectiveEvent(dst []byte, e *ObjectiveEvent) ([]byte, error) {
	if e.What == 0 || e.What > 15 || e.Player < -1 || e.Player > 254 {
		return dst, eventError(objectiveName, "what %d or player %d out of range", e.What, e.Player)
	}
	var u [3]int64
	for i, v := range [3]float64{e.Pos.X, e.Pos.Y, e.Pos.Z} {
		q, ok := quantize(v, game.PosQuantum)
		if !ok {
			return dst, eventError(objectiveName, "position off the PosQuantum grid or out of range")
		}
		u[i] = q
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.What), 4)
	w.writeBits(uint64(e.Objective), 8)
	w.writeBits(uint64(uint8(e.Player)), 8)
	w.writeBits(uint64(e.Team), 8)
	for _, q := range u {
		w.writeBits(uint64(uint32(int32(q))), 32)
	}
	return w.buf, nil
}

// DecodeObjectiveEvent decodes event data b into e.
func DecodeObjectiveEvent(b []byte, e *ObjectiveEvent) error {
	r := newEventReader(b, objectiveName)
	e.What = uint8(r.readBits(4))
	if e.What == 0 {
		r.failf("what 0 out of range")
	}
	e.Objective = uint8(r.readBits(8))
	e.Player = int(r.readBits(8))
	if e.Player == 255 {
		e.Player = -1
	}
	e.Team = uint8(r.readBits(8))
	var c [3]float64
	for i := range c {
		q := int64(int32(uint32(r.readBits(32))))
		if q < -MaxCoord || q > MaxCoord {
			r.failf("position out of range")
		}
		c[i] = float64(q) * game.PosQuantum
	}
	e.Pos = geom.V(c[0], c[1], c[2])
	return r.finish()
}

// AppendScoreboardEvent appends the encoding of e to dst; e.Rows holds at
// most MaxScoreRows rows.
func AppendScoreboardEvent(dst []byte, e *ScoreboardEvent) ([]byte, error) {
	if len(e.Rows) > MaxScoreRows {
		return dst, eventError(scoreboardName, "%d rows, at most %d", len(e.Rows), MaxScoreRows)
	}
	if e.TimeLeft < 0 || e.TimeLeft > MaxClock {
		return dst, eventError(scoreboardName, "time left %v out of range", e.TimeLeft)
	}
	w := bitWriter{buf: dst}
	w.writeUvarint(uint64(e.TimeLeft / time.Millisecond))
	w.writeBits(uint64(uint16(e.TeamScore[0])), 16)
	w.writeBits(uint64(uint16(e.TeamScore[1])), 16)
	w.writeBits(uint64(len(e.Rows)), 6)
	for _, row := range e.Rows {
		w.writeBits(uint64(row.ID), 8)
		w.writeBits(uint64(row.Team), 8)
		w.writeBits(uint64(row.Kills), 16)
		w.writeBits(uint64(row.Deaths), 16)
		w.writeBits(uint64(uint16(row.Score)), 16)
		w.writeBits(uint64(row.PingMS), 16)
	}
	return w.buf, nil
}

// DecodeScoreboardEvent decodes event data b into e, reusing e.Rows.
func DecodeScoreboardEvent(b []byte, e *ScoreboardEvent) error {
	r := newEventReader(b, scoreboardName)
	ms := r.readUvarint()
	if ms > uint64(MaxClock/time.Millisecond) {
		r.failf("time left out of range")
		ms = 0
	}
	e.TimeLeft = time.Duration(ms) * time.Millisecond
	e.TeamScore[0] = int16(r.readBits(16))
	e.TeamScore[1] = int16(r.readBits(16))
	n := int(r.readBits(6))
	if n > MaxScoreRows {
		r.failf("%d rows, at most %d", n, MaxScoreRows)
		n = 0
	}
	e.Rows = e.Rows[:0]
	for range n {
		e.Rows = append(e.Rows, ScoreRow{
			ID: uint8(r.readBits(8)), Team: uint8(r.readBits(8)),
			Kills: uint16(r.readBits(16)), Deaths: uint16(r.readBits(16)),
			Score: int16(r.readBits(16)), PingMS: uint16(r.readBits(16)),
		})
	}
	return r.finish()
}

// AppendSettingsEvent appends the encoding of e to dst.
func AppendSettingsEvent(dst []byte, e *SettingsEvent) ([]byte, error) {
	if why := checkString(e.Mode, 15); why != "" {
		return dst, eventError(settingsName, "mode %s", why)
	}
	if why := checkString(e.Display, MaxDisplayName); why != "" {
		return dst, eventError(settingsName, "display %s", why)
	}
	if why := checkString(e.Feedback, MaxFeedbackName); why != "" {
		return dst, eventError(settingsName, "feedback %s", why)
	}
	feedback := e.Feedback != "" || e.PlaceboMS != 0 || e.PlaceboPermille != 0
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.FOVDeg), 8)
	w.writeBool(e.HitIndicator)
	w.writeBool(e.Minimap)
	w.writeBool(e.PingColumn)
	w.writeBits(uint64(e.Team), 8)
	w.writeString(e.Mode, 4)
	if e.Paused || e.PredictionOff || e.Display != "" || feedback {
		w.writeBool(true)
		w.writeBool(e.Paused)
		w.writeBool(e.PredictionOff)
		w.writeString(e.Display, 5)
		if feedback {
			w.writeBool(true)
			w.writeString(e.Feedback, 4)
			w.writeBits(uint64(e.PlaceboMS), 16)
			w.writeBits(uint64(e.PlaceboPermille), 16)
		}
	}
	return w.buf, nil
}

// DecodeSettingsEvent decodes event data b into e.
func DecodeSettingsEvent(b []byte, e *SettingsEvent) error {
	r := newEventReader(b, settingsName)
	e.FOVDeg = uint8(r.readBits(8))
	e.HitIndicator = r.readBool()
	e.Minimap = r.readBool()
	e.PingColumn = r.readBool()
	e.Team = uint8(r.readBits(8))
	e.Mode = r.readString(4, 15, "mode")
	e.Paused, e.PredictionOff, e.Display = false, false, ""
	e.Feedback, e.PlaceboMS, e.PlaceboPermille = "", 0, 0
	if r.readBool() {
		e.Paused = r.readBool()
		e.PredictionOff = r.readBool()
		e.Display = r.readString(5, MaxDisplayName, "display")
		if r.readBool() {
			e.Feedback = r.readString(4, MaxFeedbackName, "feedback")
			e.PlaceboMS = uint16(r.readBits(16))
			e.PlaceboPermille = uint16(r.readBits(16))
		}
	}
	return r.finish()
}

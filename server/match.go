package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/wire"
)

// scoreboardEvery is how often clients get the scoreboard.
const scoreboardEvery = time.Second

// updateMatch applies the mode's objective rules to the players' positions,
// tells every client what changed, marks flag carriers, and sends the
// scoreboard now and then.
func (s *Server) updateMatch(now time.Duration) {
	s.players = s.players[:0]
	for _, c := range s.clients {
		if c != nil {
			s.players = append(s.players, mode.Player{ID: c.id, Team: c.team, Pos: c.state.Pos, Alive: !c.state.Has(game.FlagDead)})
		}
	}
	s.match.Update(now, s.tickDur, s.players)
	for _, ev := range s.match.Events() {
		pos := s.objectivePos(ev)
		s.record(LogEntry{Kind: ev.Kind.String(), Player: ev.Player, Team: ev.Team, Objective: ev.Objective, Pos: pos, Scorers: ev.Scorers})
		data, err := wire.AppendObjectiveEvent(nil, &wire.ObjectiveEvent{
			What: uint8(ev.Kind), Objective: uint8(ev.Objective), Player: ev.Player, Team: uint8(max(ev.Team, 0)), Pos: pos,
		})
		if err != nil {
			continue
		}
		for _, c := range s.clients {
			if c != nil {
				s.sendEvent(c, wire.EventObjective, data)
			}
		}
	}
	// The carrier's mark goes through the path a game's edits take
	// (Edit): a player's state written between its commands.
	for _, c := range s.clients {
		if c != nil && c.state.Flags&game.FlagCarrier != 0 && !s.carries(c.id) {
			s.edit(c, dropCarrier)
		}
	}
	for _, f := range s.match.Flags {
		if c := s.clients[max(f.Carrier, 0)]; f.Carrier >= 0 && c != nil && c.state.Flags&game.FlagCarrier == 0 {
			s.edit(c, markCarrier)
		}
	}
	if s.tick%uint32(max(1, int(scoreboardEvery/s.tickDur))) == 0 {
		s.sendScoreboard(now)
		s.sendServerEvents()
	}
}

// carries reports whether player id carries a flag.
func (s *Server) carries(id int) bool {
	for _, f := range s.match.Flags {
		if f.Carrier == id {
			return true
		}
	}
	return false
}

// markCarrier and dropCarrier set and clear a player's carrier mark;
// functions of their own, so that marking allocates no closure.
func markCarrier(st *game.PlayerState) { st.Flags |= game.FlagCarrier }
func dropCarrier(st *game.PlayerState) { st.Flags &^= game.FlagCarrier }

// objectivePos returns where the objective of event ev now is.
func (s *Server) objectivePos(ev mode.Event) geom.Vec3 {
	switch ev.Kind {
	case mode.PointCaptured, mode.PointNeutral:
		return game.SnapPos(s.match.Points[ev.Objective].Pos)
	}
	return game.SnapPos(s.match.Flags[ev.Objective].Pos)
}

// sendScoreboard sends every client the scoreboard, in parts of at most
// wire.MaxScoreRows rows.
func (s *Server) sendScoreboard(now time.Duration) {
	ev := wire.ScoreboardEvent{TeamScore: [2]int16{int16(s.match.TeamScore[0]), int16(s.match.TeamScore[1])}}
	if d := s.match.Config().Duration; d > 0 {
		ev.TimeLeft = max(0, d-now)
	}
	// One buffer for every part, reused once no client holds it
	// (boardBuf), and the rows and parts on the stack: a scoreboard
	// allocates nothing in a steady state.
	n := 0
	for _, c := range s.clients {
		if c != nil {
			n++
		}
	}
	var rows [wire.MaxScoreRows]wire.ScoreRow
	var partsBuf [wire.MaxEntities/wire.MaxScoreRows + 1][]byte
	parts := partsBuf[:0]
	buf, mark := s.boardBuf((n + wire.MaxScoreRows - 1) / wire.MaxScoreRows * wire.MaxEventData)
	ev.Rows = rows[:0]
	flush := func() {
		if data, err := wire.AppendScoreboardEvent(buf, &ev); err == nil {
			parts = append(parts, data[len(buf):len(data):len(data)])
			buf = data
		}
		ev.Rows = ev.Rows[:0]
	}
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		ev.Rows = append(ev.Rows, wire.ScoreRow{
			ID: uint8(c.id), Team: uint8(c.team), Kills: uint16(c.kills), Deaths: uint16(c.deaths),
			Score: int16(s.match.PlayerScore[c.id]), PingMS: uint16(min(c.rtt.Smoothed()/time.Millisecond, 65535)),
		})
		if len(ev.Rows) == wire.MaxScoreRows {
			flush()
		}
	}
	if len(ev.Rows) > 0 {
		flush()
	}
	for _, c := range s.clients {
		if c != nil {
			for _, p := range parts {
				s.sendBoardPart(c, p, mark)
			}
		}
	}
}

// sendSettings tells a client the mandated settings, its team and
// whether the game is paused: as it joins, and again when the pause
// changes.
func (s *Server) sendSettings(c *client) {
	st := s.cfg.Settings
	data, err := wire.AppendSettingsEvent(nil, &wire.SettingsEvent{
		FOVDeg: uint8(st.FOVDeg), HitIndicator: st.HitIndicator, Minimap: st.Minimap, PingColumn: st.PingColumn,
		Team: uint8(c.team), Mode: string(s.match.Kind()),
		Paused: s.pause.on, PredictionOff: st.PredictionOff, Display: st.Display,
		Feedback: st.Feedback, PlaceboMS: uint16(math.Round(st.PlaceboMS)), PlaceboPermille: uint16(math.Round(st.PlaceboScale * 1000)),
	})
	if err == nil {
		s.sendEvent(c, wire.EventSettings, data)
	}
}

// Match returns the round's rules and state.
func (s *Server) Match() *mode.Match { return s.match }

package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// scoreboardEvery is how often clients get the scoreboard.
const scoreboardEvery = time.Second

// updateMatch runs a tick of the game's rules over the players (their
// objectives tell the clients what changed and mark the players) and
// sends the scoreboard now and then.
func (s *Server) updateMatch(now time.Duration) {
	r := &s.referee
	r.Players = r.Players[:0]
	for _, c := range s.clients {
		if c != nil {
			r.Players = append(r.Players, MatchPlayer{ID: c.id, Team: c.team, Pos: c.state.Pos, Alive: c.state.Flags&game.FlagDead == 0, Flags: c.state.Flags})
		}
	}
	s.rules.Update(now, s.tickDur, r)
	if s.tick%uint32(max(1, int(scoreboardEvery/s.tickDur))) == 0 {
		s.sendScoreboard(now)
		s.sendServerEvents()
	}
}

// sendScoreboard sends every client the scoreboard, in parts of at most
// wire.MaxScoreRows rows.
func (s *Server) sendScoreboard(now time.Duration) {
	ts := s.rules.TeamScore()
	ev := wire.ScoreboardEvent{TeamScore: [2]int16{int16(ts[0]), int16(ts[1])}}
	if left, ok := s.rules.TimeLeft(now); ok {
		ev.TimeLeft = max(0, left)
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
			Score: int16(s.rules.Score(c.id)), PingMS: uint16(min(c.rtt.Smoothed()/time.Millisecond, 65535)),
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
		Team: uint8(c.team), Mode: s.rules.Name(),
		Paused: s.pause.on, PredictionOff: st.PredictionOff, Display: st.Display,
		Feedback: st.Feedback, PlaceboMS: uint16(math.Round(st.PlaceboMS)), PlaceboPermille: uint16(math.Round(st.PlaceboScale * 1000)),
	})
	if err == nil {
		s.sendEvent(c, wire.EventSettings, data)
	}
}

// Rules returns the match's rules (Config.Rules), which hold its
// state.
func (s *Server) Rules() Rules { return s.rules }

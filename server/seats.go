package server

import (
	"fmt"

	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/wire"
)

// Seats: who a connecting client is, where it sits, and the statistics
// the server keeps for it across a disconnect, so that a player who
// drops (a closed tab, a lost network) and connects again is the same
// player: same slot, same team, the same kills and deaths, nothing
// counted twice.

// Identity is who a connecting client is: with connect tokens its
// token's player and seat, else its Connect's name (Seat -1).
type Identity struct {
	Player string
	Seat   int
	// Token reports an identity taken from a connect token, which the
	// client cannot forge; a name can be anyone's.
	Token bool
	// Rejoin is the seat and team the client asks for, coming back after
	// it lost its server (its Connect's). Without Config.Seat the server
	// gives the seat when it is free and the team when that keeps the
	// teams even; Config.Seat decides for itself.
	Rejoin wire.Rejoin
}

// Placement is where Config.Seat puts a connecting client.
type Placement struct {
	// Slot is the slot it takes (-1: the first free one). A slot held by
	// a session of the same identity is taken over (the player came back
	// before its old session timed out); one held by another is refused.
	Slot int
	// Team is its team (-1: the one it had before it dropped, else the
	// rules' choice).
	Team int
	// Refuse, when set, refuses it with this reason.
	Refuse string
}

// Tally is what the server counts for a player, kept across a
// disconnect by identity when Config.Seat is set.
type Tally struct {
	Kills, Deaths, Score int
	// Shots counts rays fired, Hits those registered on others,
	// HitsTaken hits registered on the player, PressShots shots that
	// carried their fire press.
	Shots, Hits, HitsTaken, PressShots int
}

// kept is what the server keeps of an identity between its sessions.
type kept struct {
	tally Tally
	team  int // -1: never played
}

// identity returns who a Connect is from: its token's player and seat
// when the server requires tokens, else its name.
func identity(claims token.Claims, m *wire.Connect, tokens bool) Identity {
	if tokens {
		return Identity{Player: claims.Player, Seat: int(claims.Seat), Token: true}
	}
	return Identity{Player: m.Name, Seat: -1, Rejoin: m.Rejoin}
}

// slotFor returns the slot a proven Connect from who gets, or -1 with
// the reason it is refused.
func (s *Server) slotFor(who Identity) (int, Placement, string) {
	place := Placement{Slot: -1, Team: -1}
	if s.cfg.Seat != nil {
		place = s.cfg.Seat(who)
		if place.Refuse != "" {
			return -1, place, place.Refuse
		}
	}
	if place.Slot >= 0 {
		if place.Slot >= len(s.clients) {
			return -1, place, fmt.Sprintf("seat %d does not exist (%d seats)", place.Slot, len(s.clients))
		}
		if c := s.clients[place.Slot]; c != nil && c.ident != who.Player {
			return -1, place, fmt.Sprintf("seat %d is taken", place.Slot)
		}
		return place.Slot, place, ""
	}
	if s.cfg.Seat != nil && who.Player != "" {
		// The same player back before its old session timed out takes its
		// slot over rather than holding two.
		for i, c := range s.clients {
			if c != nil && c.ident == who.Player {
				return i, place, ""
			}
		}
	}
	if r := who.Rejoin; s.cfg.Seat == nil && r.Asked && int(r.Seat) < len(s.clients) && s.clients[r.Seat] == nil {
		return int(r.Seat), place, ""
	}
	for i, c := range s.clients {
		if c == nil {
			return i, place, ""
		}
	}
	return -1, place, "server full"
}

// seat gives a new session c of who its team and, when the server keeps
// statistics, the statistics who had when it dropped.
func (s *Server) seat(c *client, who Identity, place Placement) {
	var sizes [2]int
	for _, o := range s.clients {
		if o != nil && o.team < 2 {
			sizes[o.team]++
		}
	}
	c.team = s.rules.Team(sizes)
	if r := who.Rejoin; s.cfg.Seat == nil && r.Asked && s.rules.Teams() && r.Team < 2 && sizes[r.Team] <= sizes[1-r.Team] {
		c.team = int(r.Team)
	}
	if s.cfg.Seat == nil || who.Player == "" {
		return
	}
	c.ident = who.Player
	k, ok := s.kept[who.Player]
	if ok && k.team >= 0 {
		c.team = k.team
	}
	if place.Team >= 0 {
		c.team = place.Team
	}
	t := k.tally
	c.kills, c.deaths, c.shotsFired, c.hitsLanded, c.hitsTaken, c.pressShots = t.Kills, t.Deaths, t.Shots, t.Hits, t.HitsTaken, t.PressShots
	s.rules.SetScore(c.id, t.Score)
}

// keep saves the statistics of c, whose session ends, under its
// identity, and clears its slot's score for whoever takes it next.
func (s *Server) keep(c *client) {
	if s.cfg.Seat == nil || c.ident == "" {
		return
	}
	if s.kept == nil {
		s.kept = map[string]kept{}
	}
	s.kept[c.ident] = kept{tally: s.tallyOf(c), team: c.team}
	s.rules.SetScore(c.id, 0)
}

func (s *Server) tallyOf(c *client) Tally {
	score := s.rules.Score(c.id)
	return Tally{Kills: c.kills, Deaths: c.deaths, Score: score, Shots: c.shotsFired, Hits: c.hitsLanded,
		HitsTaken: c.hitsTaken, PressShots: c.pressShots}
}

// SetTally seeds the statistics of player, which its next session
// starts from: a restarted process restores what its players had from
// its records. It applies to a player connected now at once, and needs
// Config.Seat (without it the server keeps no statistics by identity).
func (s *Server) SetTally(player string, t Tally) {
	if s.cfg.Seat == nil || player == "" {
		return
	}
	if s.kept == nil {
		s.kept = map[string]kept{}
	}
	k, ok := s.kept[player]
	if !ok {
		k.team = -1
	}
	k.tally = t
	s.kept[player] = k
	for _, c := range s.clients {
		if c != nil && c.ident == player {
			c.kills, c.deaths, c.shotsFired, c.hitsLanded, c.hitsTaken, c.pressShots = t.Kills, t.Deaths, t.Shots, t.Hits, t.HitsTaken, t.PressShots
			s.rules.SetScore(c.id, t.Score)
		}
	}
}

// TallyOf returns player's statistics: its session's if it is
// connected, else those kept since it dropped or seeded.
func (s *Server) TallyOf(player string) (Tally, bool) {
	for _, c := range s.clients {
		if c != nil && c.ident == player && player != "" {
			return s.tallyOf(c), true
		}
	}
	k, ok := s.kept[player]
	return k.tally, ok
}

// Tallies returns every identity's statistics: the connected players'
// and those kept since they dropped or seeded (with Config.Seat).
func (s *Server) Tallies() map[string]Tally {
	out := make(map[string]Tally, len(s.kept))
	for id, k := range s.kept {
		out[id] = k.tally
	}
	for _, c := range s.clients {
		if c != nil && c.ident != "" {
			out[c.ident] = s.tallyOf(c)
		}
	}
	return out
}

package client

import (
	"slices"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// FlagView is a team's flag as the client knows it from the server's
// objective events.
type FlagView struct {
	Team      int
	Home, Pos geom.Vec3
	Carrier   int // -1: not carried
	Dropped   bool
}

// PointView is a control point as the client knows it.
type PointView struct {
	Name  string
	Pos   geom.Vec3
	Owner int // -1: neutral
}

// Scoreboard is the latest scoreboard the server sent.
type Scoreboard struct {
	TimeLeft  time.Duration
	TeamScore [2]int
	Rows      []wire.ScoreRow // by player slot, in slot order
}

// merge folds one part of the scoreboard into b.
func (b *Scoreboard) merge(e *wire.ScoreboardEvent) {
	b.TimeLeft = e.TimeLeft
	b.TeamScore = [2]int{int(e.TeamScore[0]), int(e.TeamScore[1])}
	for _, r := range e.Rows {
		i, found := slices.BinarySearchFunc(b.Rows, r.ID, func(x wire.ScoreRow, id uint8) int { return int(x.ID) - int(id) })
		if found {
			b.Rows[i] = r
		} else {
			b.Rows = slices.Insert(b.Rows, i, r)
		}
	}
}

// objective applies an objective event: flag events carry the flag's new
// place (and carrier), point events the new owner.
func (c *Client) objective(o *wire.ObjectiveEvent) {
	const (
		taken, dropped, returned, captured, pointCaptured, pointNeutral = 1, 2, 3, 4, 5, 6
	)
	switch o.What {
	case taken, dropped, returned, captured:
		if int(o.Objective) >= len(c.flags) {
			return
		}
		f := &c.flags[o.Objective]
		f.Pos, f.Carrier, f.Dropped = o.Pos, -1, false
		switch o.What {
		case taken:
			f.Carrier = o.Player
		case dropped:
			f.Dropped = true
		case returned, captured:
			f.Pos = f.Home
		}
	case pointCaptured, pointNeutral:
		if int(o.Objective) >= len(c.points) {
			return
		}
		p := &c.points[o.Objective]
		p.Owner = -1
		if o.What == pointCaptured {
			p.Owner = int(o.Team)
		}
	}
}

// Settings returns the settings the server mandates, and the player's team
// and the mode, once they have arrived.
func (c *Client) Settings() (wire.SettingsEvent, bool) { return c.settings, c.hasSettings }

// Team returns the local player's team (0 until the settings arrive).
func (c *Client) Team() int { return int(c.settings.Team) }

// Scoreboard returns the latest scoreboard.
func (c *Client) Scoreboard() *Scoreboard { return &c.board }

// Flags returns the flags as the client knows them (capture the flag).
func (c *Client) Flags() []FlagView { return c.flags }

// Points returns the control points as the client knows them
// (domination).
func (c *Client) Points() []PointView { return c.points }

// TeamOf returns the team of player id from the scoreboard, or -1 if the
// scoreboard does not list it yet.
func (c *Client) TeamOf(id int) int {
	for _, r := range c.board.Rows {
		if int(r.ID) == id {
			return int(r.Team)
		}
	}
	return -1
}

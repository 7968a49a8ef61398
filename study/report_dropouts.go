package study

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/record"
)

// CutRound is a round a lost game server cut short (record.Round.Cut):
// its records up to the loss stay in the database, and none of them
// counts in the report.
type CutRound struct {
	// Round is the round's index (pooled: numbered on from the
	// sessions before).
	Round     int       `json:"round"`
	Name      string    `json:"name"`
	Technique string    `json:"technique"`
	Started   time.Time `json:"started"`
}

// StandIn is a person's seat a bot played in one round after the
// person left mid-match (record.Participant.StandIn): the round counts
// the seat as a bot's. The rounds the person played before are theirs.
type StandIn struct {
	Round int    `json:"round"`
	Seat  int    `json:"seat"`
	Code  string `json:"code"`
	// FromS is the round's match time from which the bot played (0:
	// the whole round).
	FromS float64 `json:"from_s"`
}

func (s *Summariser) cutRound(v record.Round) {
	for _, c := range s.cut {
		if c.Round == v.Index {
			return
		}
	}
	s.cut = append(s.cut, CutRound{Round: v.Index, Name: v.Name, Technique: v.Technique, Started: v.Started})
}

func (s *Summariser) standIn(v record.Participant) {
	s.standIns = append(s.standIns, StandIn{Round: v.Round, Seat: v.Seat, Code: v.Code, FromS: v.StandInAt.Seconds()})
}

// markdownDropouts lists the cut rounds and the stand-ins, the data the
// analysis leaves out.
func (r *Report) markdownDropouts(b *strings.Builder) {
	if len(r.CutRounds) == 0 && len(r.StandIns) == 0 {
		return
	}
	b.WriteString("\n## Dropouts and lost game servers\n")
	if len(r.CutRounds) > 0 {
		b.WriteString("\nRounds cut short by a lost game server (killed or crashed mid-round). Their records up to the loss are kept in the database; none counts in this report's figures, tests or tables.\n\n| round | name | technique | started (UTC) |\n|---|---|---|---|\n")
		for _, c := range r.CutRounds {
			fmt.Fprintf(b, "| %d | %s | %s | %s |\n", c.Round+1, cellText(c.Name), cellText(c.Technique), c.Started.Format("2006-01-02 15:04:05"))
		}
	}
	if len(r.StandIns) > 0 {
		b.WriteString("\nSeats a bot played in place of a participant who left mid-match and did not come back in time. The rounds they played before are theirs; in these the seat counts as a bot's.\n\n| round | seat | participant code | bot from |\n|---|---|---|---|\n")
		for _, si := range r.StandIns {
			from := "the round's start"
			if si.FromS > 0 {
				from = secs(si.FromS) + " into the round"
			}
			fmt.Fprintf(b, "| %d | %d | %s | %s |\n", si.Round+1, si.Seat, cellText(si.Code), from)
		}
	}
}

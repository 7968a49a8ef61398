package study

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/store"
)

// FlowRow is a row of the participant-flow table: a stage, or one
// reason at it, and how many participants reached it.
type FlowRow struct {
	Stage        string `json:"stage"`
	Reason       string `json:"reason,omitempty"`
	Participants int    `json:"participants"`
}

// ParticipantFlow is an online study's participant flow, CONSORT-like:
// from arrival in the lobby through the prescreen and the matches to
// the participants analysed, each loss with its reasons. It counts
// participants, one per recruitment platform id, from the events the
// lobby stored as they happened (lobby_events), and the exclusions the
// report applied.
type ParticipantFlow struct {
	Rows []FlowRow `json:"rows"`
	// Lobbies counts the lobby processes that served the study.
	Lobbies int `json:"lobbies"`
}

// Flow stages, as the table names them.
const (
	FlowArrived          = "arrived"
	FlowConsented        = "consented"
	FlowRefused          = "refused at the prescreen"
	FlowAdmitted         = "passed the prescreen"
	FlowDroppedPrescreen = "dropped at the prescreen"
	FlowDroppedWaiting   = "dropped waiting for a match"
	FlowMatched          = "matched"
	FlowRequeued         = "requeued (game server lost)"
	FlowDroppedMatch     = "dropped from a match"
	FlowCompleted        = "completed"
	FlowInLobby          = "still in the lobby when it stopped"
	FlowExcluded         = "excluded"
	FlowAnalysed         = "analysed"
)

// Flow notes: a study run in a lab, and an online study whose lobby
// stored no event (a simulated pilot).
const (
	NoFlowLab    = "no participant flow: a lab study, whose participants were not recruited through a lobby"
	NoFlowEvents = "no participant flow: the study's lobby stored no participant events (a simulated pilot has none)"
)

// AddFlow sets r's participant flow from an online study's lobby
// events (an online schedule's), or the note that says why there is
// none; call it after the exclusions were applied.
func (r *Report) AddFlow(evs []store.LobbyEvent) {
	switch {
	case !r.online && len(evs) == 0:
		r.Flow, r.FlowNote = nil, NoFlowLab
		return
	case len(evs) == 0:
		r.Flow, r.FlowNote = nil, NoFlowEvents
		return
	}
	type who struct {
		consented, admitted, matched, requeued bool
		final, reason                          string
	}
	people := map[string]*who{}
	var order []string
	lobbies := map[int64]bool{}
	for _, e := range evs {
		lobbies[e.Lobby.UnixNano()] = true
		p := people[e.Participant]
		if p == nil {
			p = &who{}
			people[e.Participant] = p
			order = append(order, e.Participant)
		}
		switch e.Kind {
		case "consented":
			p.consented = true
		case "admitted":
			p.admitted = true
		case "matched":
			p.matched = true
		case "requeued":
			p.requeued = true
		case "refused", "dropped", "completed":
			p.final, p.reason = e.Kind, e.Reason
		}
	}
	counts := map[string]int{}
	reasons := map[string]map[string]int{}
	reason := func(stage, why string) {
		if reasons[stage] == nil {
			reasons[stage] = map[string]int{}
		}
		reasons[stage][why]++
	}
	for _, id := range order {
		p := people[id]
		counts[FlowArrived]++
		if p.consented {
			counts[FlowConsented]++
		}
		if p.admitted {
			counts[FlowAdmitted]++
		}
		if p.matched {
			counts[FlowMatched]++
		}
		if p.requeued {
			counts[FlowRequeued]++
		}
		switch p.final {
		case "refused":
			counts[FlowRefused]++
			reason(FlowRefused, p.reason)
		case "completed":
			counts[FlowCompleted]++
			if p.reason != "" {
				reason(FlowCompleted, p.reason) // finished when the game server was lost
			}
		case "dropped":
			stage := FlowDroppedMatch
			switch {
			case !p.admitted:
				stage = FlowDroppedPrescreen
			case !p.matched:
				stage = FlowDroppedWaiting
			}
			counts[stage]++
			reason(stage, p.reason)
		default:
			counts[FlowInLobby]++
		}
	}
	f := &ParticipantFlow{Lobbies: len(lobbies)}
	row := func(stage string) {
		f.Rows = append(f.Rows, FlowRow{Stage: stage, Participants: counts[stage]})
		for _, why := range slices.Sorted(maps.Keys(reasons[stage])) {
			f.Rows = append(f.Rows, FlowRow{Stage: stage, Reason: why, Participants: reasons[stage][why]})
		}
	}
	row(FlowArrived)
	if r.Consent != "" || counts[FlowConsented] > 0 {
		// A study without a consent step has no such row.
		row(FlowConsented)
	}
	for _, stage := range []string{FlowRefused, FlowDroppedPrescreen, FlowAdmitted, FlowDroppedWaiting, FlowMatched, FlowRequeued, FlowDroppedMatch, FlowCompleted} {
		row(stage)
	}
	if counts[FlowInLobby] > 0 {
		row(FlowInLobby)
	}
	// The participants in the records (those the matches seated) are
	// judged by the exclusion rules; the rest are analysed.
	inData := r.peopleSeats()
	excluded := 0
	if x := r.Exclusions; x != nil {
		inData, excluded = x.Judged, len(x.Seats)
		byRule := map[string]int{}
		for _, e := range x.Excluded {
			byRule[e.Rule]++
		}
		counts[FlowExcluded], reasons[FlowExcluded] = excluded, byRule
	}
	row(FlowExcluded)
	counts[FlowAnalysed] = inData - excluded
	row(FlowAnalysed)
	r.Flow, r.FlowNote = f, ""
}

// peopleSeats counts the participants' seats in the long-format table.
func (r *Report) peopleSeats() int {
	seats := map[int]bool{}
	for _, p := range r.Participants {
		if !p.Bot {
			seats[p.Seat] = true
		}
	}
	return len(seats)
}

// Count returns the participants at stage (its total row).
func (f *ParticipantFlow) Count(stage string) int {
	for _, r := range f.Rows {
		if r.Stage == stage && r.Reason == "" {
			return r.Participants
		}
	}
	return 0
}

// flowResults adds the participant-flow table.
func (r *Report) flowResults(res *experiment.Results) {
	if r.Flow == nil {
		return
	}
	t := experiment.Table{Name: "study_flow", Title: "Participant flow: participants (one per recruitment platform id) at each stage from arrival to analysis, each loss by its reason (a rule for the excluded)",
		Columns: []string{"stage", "reason", "participants"}}
	for _, row := range r.Flow.Rows {
		t.Rows = append(t.Rows, []string{row.Stage, row.Reason, strconv.Itoa(row.Participants)})
	}
	res.Tables = append(res.Tables, t)
}

// markdownFlow writes the participant flow (the design's paragraph says
// why a report has none).
func (r *Report) markdownFlow(b *strings.Builder) {
	if r.Flow == nil {
		return
	}
	b.WriteString("\n## Participant flow\n")
	fmt.Fprintf(b, "\nFrom the lobby's events (%d lobby process(es)), one participant per recruitment platform id; excluded by the schedule's exclusion rules.\n\n", r.Flow.Lobbies)
	b.WriteString("| stage | participants |\n|---|---|\n")
	for _, row := range r.Flow.Rows {
		if row.Reason == "" {
			fmt.Fprintf(b, "| %s | %d |\n", row.Stage, row.Participants)
		} else {
			fmt.Fprintf(b, "| &nbsp;&nbsp;%s | %d |\n", cellText(row.Reason), row.Participants)
		}
	}
}

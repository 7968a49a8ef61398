package study

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/stats"
)

// InstrumentSummary sums up the answers to one intake or final question
// over the participants who gave them.
type InstrumentSummary struct {
	Stage    string `json:"stage"`
	Question string `json:"question"`
	Kind     string `json:"kind"`
	Text     string `json:"text"`
	N        int    `json:"n"`
	// Choices counts a choice or yes/no question's answers per choice,
	// in the question's order (yes/no: no, yes).
	Choices []ChoiceCount `json:"choices,omitempty"`
	// Mean, Median and the median's interval (stats.MedianCI95) sum up
	// an answer on a scale or a number; CINote says why an interval is
	// missing.
	Mean   *float64 `json:"mean,omitempty"`
	Median *float64 `json:"median,omitempty"`
	CILo   *float64 `json:"ci95_lo,omitempty"`
	CIHi   *float64 `json:"ci95_hi,omitempty"`
	CINote string   `json:"ci_note,omitempty"`
	// Texts are the free-text answers, by seat.
	Texts []string `json:"texts,omitempty"`
}

// ChoiceCount is how many chose one choice, their share of the answers
// and the share's Wilson score interval.
type ChoiceCount struct {
	Choice string  `json:"choice"`
	N      int     `json:"n"`
	Share  float64 `json:"share"`
	CILo   float64 `json:"ci95_lo"`
	CIHi   float64 `json:"ci95_hi"`
}

// ClientSummary is what one participant's browser reported: the last
// report of each, and when the participant consented.
type ClientSummary struct {
	Seat        int       `json:"seat"`
	Consented   bool      `json:"consented"`
	ConsentedAt time.Time `json:"consented_at,omitzero"`
	RefreshHz   float64   `json:"refresh_hz"`
	Sensitivity float64   `json:"mouse_sensitivity"`
	UserAgent   string    `json:"user_agent"`
	ScreenW     int       `json:"screen_w"`
	ScreenH     int       `json:"screen_h"`
	// Reports counts the browser's reports (at consent and at each
	// round joined).
	Reports int `json:"reports"`
}

// instrumentTally collects what the instruments summaries need.
type instrumentTally struct {
	questions []record.Question
	answers   []record.Answer // intake and final
	clients   map[int]*ClientSummary
}

// put keeps r when it is one of the instruments' records, reporting
// whether it was.
func (t *instrumentTally) put(r record.Record) bool {
	switch v := r.(type) {
	case record.Question:
		// Every session of a pooled study stores its schedule's
		// questions: keep each once.
		if !slices.ContainsFunc(t.questions, func(q record.Question) bool { return q.Stage == v.Stage && q.ID == v.ID }) {
			t.questions = append(t.questions, v)
		}
	case record.Answer:
		if v.Stage != record.StageIntake && v.Stage != record.StageFinal {
			return false
		}
		t.answers = append(t.answers, v)
	case record.Client:
		if t.clients == nil {
			t.clients = map[int]*ClientSummary{}
		}
		c := t.clients[v.Seat]
		if c == nil {
			c = &ClientSummary{Seat: v.Seat}
			t.clients[v.Seat] = c
		}
		c.Reports++
		if v.Consented && !c.Consented {
			c.Consented, c.ConsentedAt = true, v.At.UTC()
		}
		c.RefreshHz, c.Sensitivity, c.UserAgent, c.ScreenW, c.ScreenH = v.RefreshHz, v.Sensitivity, v.UserAgent, v.ScreenW, v.ScreenH
	default:
		return false
	}
	return true
}

// sorted returns the questions in the order they are put: the intake,
// the questionnaire after each round, the final questions.
func (t *instrumentTally) sorted() []record.Question {
	qs := slices.Clone(t.questions)
	rank := map[string]int{record.StageIntake: 0, record.StageRound: 1, record.StageFinal: 2}
	slices.SortStableFunc(qs, func(a, b record.Question) int {
		if d := rank[a.Stage] - rank[b.Stage]; d != 0 {
			return d
		}
		return a.Seq - b.Seq
	})
	return qs
}

// summaries sums up the intake and final questions in the order they
// are put, and lists the clients by seat.
func (t *instrumentTally) summaries() ([]InstrumentSummary, []ClientSummary) {
	var out []InstrumentSummary
	for _, q := range t.sorted() {
		if q.Stage == record.StageRound {
			continue
		}
		out = append(out, summariseInstrument(q, t.answers))
	}
	var clients []ClientSummary
	for _, seat := range slices.Sorted(maps.Keys(t.clients)) {
		clients = append(clients, *t.clients[seat])
	}
	return out, clients
}

// summariseInstrument sums up the answers to q, one per seat (the
// last, should a seat have answered twice).
func summariseInstrument(q record.Question, answers []record.Answer) InstrumentSummary {
	s := InstrumentSummary{Stage: q.Stage, Question: q.ID, Kind: q.Kind, Text: q.Text}
	bySeat := map[int]record.Answer{}
	for _, a := range answers {
		if a.Question == q.ID {
			bySeat[a.Seat] = a
		}
	}
	seats := slices.Sorted(maps.Keys(bySeat))
	s.N = len(seats)
	switch {
	case q.Kind == record.Text:
		for _, seat := range seats {
			s.Texts = append(s.Texts, bySeat[seat].Text)
		}
	case q.Kind == record.Choice || q.Kind == record.YesNo:
		labels := strings.Split(q.Choices, "\n")
		if q.Kind == record.YesNo {
			labels = []string{"no", "yes"}
		}
		counts := make([]int, len(labels))
		for _, seat := range seats {
			if v := bySeat[seat].Value; v >= 0 && v < len(counts) {
				counts[v]++
			}
		}
		for i, l := range labels {
			c := ChoiceCount{Choice: l, N: counts[i]}
			if s.N > 0 {
				c.Share = float64(counts[i]) / float64(s.N)
				c.CILo, c.CIHi = stats.WilsonCI95(counts[i], s.N)
			}
			s.Choices = append(s.Choices, c)
		}
	default:
		vals := make([]float64, len(seats))
		for i, seat := range seats {
			vals[i] = float64(bySeat[seat].Value)
		}
		if len(vals) == 0 {
			return s
		}
		m := stats.Mean(vals)
		med, lo, hi := stats.MedianCI95(vals)
		s.Mean, s.Median = &m, &med
		if math.IsNaN(lo) {
			s.CINote = NTooSmall
		} else {
			s.CILo, s.CIHi = &lo, &hi
		}
	}
	return s
}

// instrumentResults adds the instruments' tables to res: the intake and
// final questions' answers, and the participants' browsers.
func (r *Report) instrumentResults(res *experiment.Results) {
	if len(r.Instruments) > 0 {
		t := experiment.Table{Name: "study_instruments", Title: "Intake and final questions, over the participants who answered " +
			"(choices and yes/no: count and share with its Wilson score interval; scales and numbers: mean, median and the median's distribution-free interval)",
			Columns: []string{"stage", "question", "kind", "answers", "choice", "count", "share", "mean", "median", "ci95_lo", "ci95_hi"}}
		for _, q := range r.Instruments {
			head := []string{q.Stage, q.Question, q.Kind, strconv.Itoa(q.N)}
			switch {
			case len(q.Choices) > 0:
				for _, c := range q.Choices {
					t.Rows = append(t.Rows, slices.Concat(head, []string{c.Choice, strconv.Itoa(c.N), num(c.Share), "", "", num(c.CILo), num(c.CIHi)}))
				}
			case q.Kind == record.Text:
				t.Rows = append(t.Rows, slices.Concat(head, []string{"", "", "", "", "", "", ""}))
			default:
				t.Rows = append(t.Rows, slices.Concat(head, []string{"", "", "", optNum(q.Mean), optNum(q.Median), optNum(q.CILo), optNum(q.CIHi)}))
			}
		}
		res.Tables = append(res.Tables, t)
	}
	if len(r.Clients) > 0 {
		t := experiment.Table{Name: "study_clients", Title: "Participants' browsers: consent, the display's refresh rate measured by the page, mouse sensitivity and screen (the last report of each)",
			Columns: []string{"seat", "consented", "consented_at", "refresh_hz", "mouse_sensitivity", "screen_w", "screen_h", "reports", "user_agent"}}
		for _, c := range r.Clients {
			at := ""
			if !c.ConsentedAt.IsZero() {
				at = c.ConsentedAt.Format(time.RFC3339)
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(c.Seat), strconv.FormatBool(c.Consented), at, num(c.RefreshHz), num(c.Sensitivity),
				strconv.Itoa(c.ScreenW), strconv.Itoa(c.ScreenH), strconv.Itoa(c.Reports), c.UserAgent})
		}
		res.Tables = append(res.Tables, t)
	}
}

// markdownInstruments writes the consent, the intake and final
// questions' answers and the participants' browsers.
func (r *Report) markdownInstruments(b *strings.Builder) {
	if r.Consent == "" && len(r.Instruments) == 0 && len(r.Clients) == 0 {
		return
	}
	b.WriteString("\n## Participants\n\n")
	if r.Consent != "" {
		fmt.Fprintf(b, "Consent text agreed to before playing:\n\n> %s\n\n", strings.ReplaceAll(strings.TrimSpace(r.Consent), "\n", "\n> "))
	}
	if len(r.Instruments) > 0 {
		b.WriteString("Intake (before the first round) and final (after the last) questions, over the participants who answered: " +
			"choices and yes/no as count and share (95% Wilson score interval); scales and numbers as mean and median (the median's 95% distribution-free interval).\n\n")
		b.WriteString("| stage | question | kind | n | answers | median | 95% CI |\n|---|---|---|---|---|---|---|\n")
		for _, q := range r.Instruments {
			var what, ci string
			switch {
			case len(q.Choices) > 0 && q.N == 0:
				// No one answered: no share and no interval, rather than
				// "0 (0%, 0–0%)".
				what = "no answers"
			case len(q.Choices) > 0:
				parts := make([]string, len(q.Choices))
				for i, c := range q.Choices {
					parts[i] = fmt.Sprintf("%s %d (%.0f%%, %.0f–%.0f%%)", c.Choice, c.N, 100*c.Share, 100*c.CILo, 100*c.CIHi)
				}
				what = strings.Join(parts, "; ")
			case q.Kind == record.Text:
				what = strings.Join(q.Texts, "; ")
			default:
				what = "mean " + fixed(q.Mean, 2)
				if q.CILo != nil {
					ci = fmt.Sprintf("%.2f to %.2f", *q.CILo, *q.CIHi)
				} else if q.CINote != "" {
					ci = "n too small"
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s |\n", q.Stage, q.Question, q.Kind, q.N, cellText(what), fixed(q.Median, 2), ci)
		}
	}
	if len(r.Clients) > 0 {
		b.WriteString("\nParticipants' browsers (the last report of each): the display's refresh rate as the page measured it, and the page's mouse sensitivity.\n\n")
		b.WriteString("| seat | consented | refresh (Hz) | mouse sensitivity | screen | browser |\n|---|---|---|---|---|---|\n")
		for _, c := range r.Clients {
			fmt.Fprintf(b, "| %d | %v | %.1f | %.2f | %d×%d | %s |\n", c.Seat, c.Consented, c.RefreshHz, c.Sensitivity, c.ScreenW, c.ScreenH, cellText(c.UserAgent))
		}
	}
}

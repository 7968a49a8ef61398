package study

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/stats"
)

// ParticipantRound is one seat's figures in one round, and its answers
// to the round's questionnaire: a row of the long-format table
// (study_participant_rounds.csv), a row per participant per round, as a
// mixed model (a random intercept per participant, technique and round
// as fixed effects) reads it.
type ParticipantRound struct {
	// Round counts from 1, as every CSV does.
	Round     int     `json:"round"`
	RoundName string  `json:"round_name"`
	Technique string  `json:"technique"`
	Seat      int     `json:"seat"`
	Code      string  `json:"code,omitempty"`
	Bot       bool    `json:"bot"`
	Team      int     `json:"team"`
	RTTms     float64 `json:"rtt_ms"`
	// Ping is "low" at a round trip up to LowPingMS, else "high".
	Ping         string `json:"ping"`
	Shots        int    `json:"shots"`
	Hits         int    `json:"hits"`
	HitsReceived int    `json:"hits_received"`
	SBC          int    `json:"sbc"`
	SBCReports   int    `json:"sbc_reports"`
	Appeals      int    `json:"appeals"`
	Kills        int    `json:"kills"`
	Deaths       int    `json:"deaths"`
	RewoundHits  int    `json:"rewound_hits"`
	// The ratios, absent when what they are over is 0 (no shot, no hit
	// received, no rewound hit).
	HitAccuracy      *float64 `json:"hit_accuracy,omitempty"`
	SBCPerHit        *float64 `json:"sbc_per_hit,omitempty"`
	SBCReportsPerHit *float64 `json:"sbc_reports_per_hit,omitempty"`
	RollbackMeanM    *float64 `json:"rollback_mean_m,omitempty"`
	// Answers holds the seat's answer to each yes/no, Likert and
	// fairness question after the round, by the question's id (the mean
	// if it answered twice); AnswerSource says whose they are:
	// AnswerParticipant, AnswerSynthetic, or "" with no answer.
	Answers      map[string]float64 `json:"answers,omitempty"`
	AnswerSource string             `json:"answer_source,omitempty"`
	// Intake holds the seat's answer to each intake question but free
	// text (a choice as its place from 0), by the question's id: the
	// participant's covariates, the same in each of its rows.
	Intake map[string]float64 `json:"intake,omitempty"`
}

// ParticipantRound.AnswerSource.
const (
	AnswerParticipant = "participant"
	// AnswerSynthetic marks answers a simulated study drew from a model
	// (study run --simulate --synthetic-answers): a bot's seat answered.
	AnswerSynthetic = "synthetic"
)

func optRatio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := float64(a) / float64(b)
	return &v
}

// participantRounds returns the long-format rows: each round's seats in
// order.
func (s *Summariser) participantRounds(rep *Report) []ParticipantRound {
	type key struct{ round, seat int }
	answers := map[key]map[string][]float64{}
	for _, a := range s.answers {
		if a.Kind == record.Text {
			continue
		}
		k := key{a.Round, a.Seat}
		if answers[k] == nil {
			answers[k] = map[string][]float64{}
		}
		answers[k][a.Question] = append(answers[k][a.Question], float64(a.Value))
	}
	intake := map[int]map[string]float64{}
	for _, a := range s.instruments.answers {
		if a.Stage != record.StageIntake || a.Kind == record.Text {
			continue
		}
		if intake[a.Seat] == nil {
			intake[a.Seat] = map[string]float64{}
		}
		intake[a.Seat][a.Question] = float64(a.Value)
	}
	var out []ParticipantRound
	for i, rt := range s.rounds {
		tech := rep.Rounds[i].Technique
		for _, seat := range slices.Sorted(maps.Keys(rt.rtt)) {
			if rt.excluded[seat] {
				// Left out by the exclusion rules: the table is of
				// the participants analysed (and the bots).
				continue
			}
			c := rt.seats[seat]
			if c == nil {
				c = &seatCounts{}
			}
			pr := ParticipantRound{Round: rt.rec.Index + 1, RoundName: rt.rec.Name, Technique: tech, Seat: seat,
				Code: rt.codes[seat], Bot: !rt.people[seat], Team: rt.team[seat], RTTms: rt.rtt[seat], Ping: "high",
				Shots: c.shots, Hits: c.hits, HitsReceived: c.hitsReceived, SBC: c.sbc, SBCReports: c.reports,
				Appeals: c.appeals, Kills: c.kills, Deaths: c.deaths, RewoundHits: c.rewound,
				HitAccuracy: optRatio(c.hits, c.shots), SBCPerHit: optRatio(c.sbc, c.hitsReceived),
				SBCReportsPerHit: optRatio(c.reports, c.hitsReceived)}
			if pr.RTTms <= rep.LowPingMS {
				pr.Ping = "low"
			}
			if c.rewound > 0 {
				m := c.rollbackSum / float64(c.rewound)
				pr.RollbackMeanM = &m
			}
			if as := answers[key{rt.rec.Index, seat}]; len(as) > 0 {
				pr.Answers = map[string]float64{}
				for q, vs := range as {
					pr.Answers[q] = stats.Mean(vs)
				}
				pr.AnswerSource = AnswerParticipant
				if pr.Bot || s.rep.Simulated {
					// In a pilot every answer was drawn from a model,
					// the participants' seats' too (bots played them).
					pr.AnswerSource = AnswerSynthetic
				}
			}
			pr.Intake = intake[seat]
			out = append(out, pr)
		}
	}
	return out
}

// intakeColumns returns the ids of the intake questions the long-format
// table has a column for: those but free text, in the order put.
func (s *Summariser) intakeColumns() []string {
	var ids []string
	for _, q := range s.instruments.sorted() {
		if q.Stage == record.StageIntake && q.Kind != record.Text {
			ids = append(ids, q.ID)
		}
	}
	return ids
}

// answerColumns returns the ids of the questions the long-format table
// has a column for: the schedule's yes/no, Likert and fairness
// questions in its order, then any other question answered.
func (s *Summariser) answerColumns() []string {
	var ids []string
	for _, id := range s.sched.order {
		if s.sched.questions[id].Kind != record.Text {
			ids = append(ids, id)
		}
	}
	for _, a := range s.answers {
		if a.Kind != record.Text && !slices.Contains(ids, a.Question) {
			ids = append(ids, a.Question)
		}
	}
	return ids
}

// ParticipantColumns are the long-format table's columns before its
// answers, one answer_<question id> column per question, then one
// intake_<question id> column per intake question.
var ParticipantColumns = []string{"round", "round_name", "technique", "seat", "code", "bot", "team", "rtt_ms", "ping",
	"shots", "hits", "hit_accuracy", "hits_received", "sbc", "sbc_per_hit", "sbc_reports", "sbc_reports_per_hit",
	"appeals", "kills", "deaths", "rewound_hits", "rollback_mean_m", "answer_source",
	"study", "study_id", "session", "counterbalance_group", "period", "session_round", "session_seat"}

// participantTable returns the long-format table.
func (r *Report) participantTable() experiment.Table {
	t := experiment.Table{Name: "study_participant_rounds",
		Title:   "Per participant per round, in long format for mixed models: a row per seat per round, its figures and answers (bots' seats marked)",
		Columns: slices.Clone(ParticipantColumns)}
	for _, q := range r.AnswerColumns {
		t.Columns = append(t.Columns, "answer_"+q)
	}
	for _, q := range r.IntakeColumns {
		t.Columns = append(t.Columns, "intake_"+q)
	}
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return num(*v)
	}
	periods := r.periods()
	for _, p := range r.Participants {
		sess, seat, _ := r.sessionOf(p.Seat)
		if len(r.Sessions) == 1 {
			sess = r.Sessions[0]
		}
		study := r.Study
		if sess.Study != 0 {
			study = strconv.FormatInt(sess.Study, 10)
		}
		// The session's own numbers, from 1 for rounds as every CSV.
		studyID := ""
		if r.StudyID != 0 {
			studyID = strconv.FormatInt(r.StudyID, 10)
		}
		tail := []string{study, studyID, strconv.Itoa(max(1, sess.Session)), strconv.Itoa(sess.Group), strconv.Itoa(periods[[2]int{p.Seat, p.Round}]),
			strconv.Itoa(p.Round - sess.FirstRound), strconv.Itoa(seat)}
		row := []string{strconv.Itoa(p.Round), p.RoundName, p.Technique, strconv.Itoa(p.Seat), p.Code, strconv.FormatBool(p.Bot),
			strconv.Itoa(p.Team), num(p.RTTms), p.Ping, strconv.Itoa(p.Shots), strconv.Itoa(p.Hits), opt(p.HitAccuracy),
			strconv.Itoa(p.HitsReceived), strconv.Itoa(p.SBC), opt(p.SBCPerHit), strconv.Itoa(p.SBCReports), opt(p.SBCReportsPerHit),
			strconv.Itoa(p.Appeals), strconv.Itoa(p.Kills), strconv.Itoa(p.Deaths), strconv.Itoa(p.RewoundHits), opt(p.RollbackMeanM),
			p.AnswerSource}
		row = append(row, tail...)
		for _, q := range r.AnswerColumns {
			cell := ""
			if v, ok := p.Answers[q]; ok {
				cell = num(v)
			}
			row = append(row, cell)
		}
		for _, q := range r.IntakeColumns {
			cell := ""
			if v, ok := p.Intake[q]; ok {
				cell = num(v)
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// periods returns, by seat and round (from 1), the period the round's
// technique is for that seat: 1 for the first technique it played, 2
// for the second, and so on, the order a crossover's period and
// carry-over effects are read from.
func (r *Report) periods() map[[2]int]int {
	out := map[[2]int]int{}
	seen := map[int][]string{}
	// A design that moves latency, or technique × latency, orders
	// conditions: a round's period is its condition's place, read from
	// the seat's order (one entry per round of its session).
	// Every seat of a session plays its group's order, so a bot's seat
	// (left out of the seat orders when people played) takes its
	// session's.
	orders, bySession := map[int][]string{}, map[int][]string{}
	for _, o := range r.SeatOrders {
		orders[o.Seat] = strings.Split(o.Order, ",")
		sess, _, _ := r.sessionOf(o.Seat)
		bySession[sess.Session] = orders[o.Seat]
	}
	for _, p := range r.Participants {
		cond := p.Technique
		sess, _, _ := r.sessionOf(p.Seat)
		o, ok := orders[p.Seat]
		if !ok {
			o = bySession[sess.Session]
		}
		if k := p.Round - sess.FirstRound - 1; k >= 0 && k < len(o) {
			cond = o[k]
		}
		i := slices.Index(seen[p.Seat], cond)
		if i < 0 {
			seen[p.Seat] = append(seen[p.Seat], cond)
			i = len(seen[p.Seat]) - 1
		}
		out[[2]int{p.Seat, p.Round}] = i + 1
	}
	return out
}

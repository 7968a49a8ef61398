package study

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lagkit/lagkit/record"
)

// SyntheticModel is how a simulated study draws one question's answers
// under one technique when asked to (study run --simulate
// --synthetic-answers), so that a researcher can try the whole analysis
// before recruiting: a [[question.synthetic]] table.
type SyntheticModel struct {
	// Technique names one of the schedule's techniques.
	Technique string `toml:"technique"`
	// Mean is the mean answer on the question's scale (Likert 1 to 5 or
	// 7, fairness -5 to 5, a scale's or a number's min to max), or for a yes/no question the chance of a yes
	// (0 to 1).
	Mean float64 `toml:"mean"`
	// SD is the spread of one participant's answers about their own
	// mean (a standard deviation on the scale, before rounding to a
	// point of it); not for yes/no questions.
	SD float64 `toml:"sd"`
}

// SyntheticText marks an answer drawn from the model, in the answer's
// Text (and the text column of answers.csv): no person gave it.
const SyntheticText = "synthetic"

// scale returns the bounds of q's answers.
func scale(q *Question) (lo, hi float64) {
	l, h := q.Bounds()
	return float64(l), float64(h)
}

// defaultModel is a technique's model when the schedule states none: the
// scale's middle, a quarter of its range as spread (yes/no: even
// chances).
func defaultModel(q *Question, technique string) SyntheticModel {
	lo, hi := scale(q)
	m := SyntheticModel{Technique: technique, Mean: (lo + hi) / 2}
	if q.Kind != record.YesNo {
		m.SD = (hi - lo) / 4
	}
	return m
}

// checkSynthetic checks the questions' models against the techniques.
func (s *Schedule) checkSynthetic() *problem {
	names := map[string]bool{}
	for _, t := range s.Techniques {
		names[t.Name] = true
	}
	for i, q := range s.Questions {
		at := fmt.Sprintf("question[%d].", i)
		lo, hi := scale(&q)
		switch {
		case q.Kind == record.Text && (len(q.Synthetic) > 0 || q.SyntheticParticipantSD != 0):
			return fail(at+"synthetic", "a free-text question has no model: synthetic answers are drawn for yes/no questions and those on a scale")
		case !(q.SyntheticParticipantSD >= 0 && q.SyntheticParticipantSD <= hi-lo):
			return fail(at+"synthetic_participant_sd", "%v, want 0 to %v (the scale's range)", q.SyntheticParticipantSD, hi-lo)
		}
		seen := map[string]bool{}
		for j, m := range q.Synthetic {
			mat := fmt.Sprintf("%ssynthetic[%d].", at, j)
			switch {
			case m.Technique == "":
				return fail(mat+"technique", "missing: name the technique the model is of")
			case !names[m.Technique]:
				return fail(mat+"technique", "%q is not one of the schedule's techniques", m.Technique)
			case seen[m.Technique]:
				return fail(mat+"technique", "%q has an earlier model for this question", m.Technique)
			case !(m.Mean >= lo && m.Mean <= hi):
				if q.Kind == record.YesNo {
					return fail(mat+"mean", "%v, want the chance of a yes, 0 to 1", m.Mean)
				}
				return fail(mat+"mean", "%v, want %v to %v (the %s scale)", m.Mean, lo, hi, q.Kind)
			case q.Kind == record.YesNo && m.SD != 0:
				return fail(mat+"sd", "a yes/no question's model is its chance of a yes (mean) alone")
			case !(m.SD >= 0 && m.SD <= hi-lo):
				return fail(mat+"sd", "%v, want 0 to %v (the scale's range)", m.SD, hi-lo)
			}
			seen[m.Technique] = true
		}
	}
	return nil
}

// model returns q's model under technique.
func (q *Question) model(technique string) SyntheticModel {
	for _, m := range q.Synthetic {
		if m.Technique == technique {
			return m
		}
	}
	return defaultModel(q, technique)
}

// SyntheticAnswers has d answer every questionnaire from the questions'
// models (Question.Synthetic), drawn under seed: each seat has its own
// offset per question (normal, SyntheticParticipantSD), kept across
// rounds so that its answers pair as a participant's would, and each
// answer adds the technique's spread (normal, SD) to the technique's
// mean and the offset, rounded to a point of the scale and kept within
// it (yes/no: a yes with the chance Mean plus the offset). Free-text
// questions get no answer. Every answer's Text is SyntheticText.
func (d *Simulation) SyntheticAnswers(seed uint64) {
	d.synthetic, d.syntheticSeed = true, seed
}

// stream returns a generator for one draw, from the seed and what the
// draw is of.
func stream(seed uint64, what ...any) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprint(h, what...)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Ask returns no answers, bots answering no questionnaires, unless
// SyntheticAnswers was called: then every seat the schedule gives to a
// person answers every yes/no, Likert and fairness question from its
// model (the bot seats, as live, answer nothing).
func (d *Simulation) Ask(_ context.Context, p *Plan, seats []Seat, qs []Question) ([]record.Answer, error) {
	if !d.synthetic {
		return nil, nil
	}
	var out []record.Answer
	for _, st := range seats {
		if st.Bot {
			// A bot seat answers nothing in the live study, so it
			// answers nothing in its pilot: the pilot's analysis has
			// the participants the live one will.
			continue
		}
		for i := range qs {
			q := &qs[i]
			if q.Kind == record.Text {
				continue
			}
			m := q.model(p.Technique.Name)
			offset := stream(d.syntheticSeed, "participant", q.ID, st.Index).NormFloat64() * q.SyntheticParticipantSD
			r := stream(d.syntheticSeed, "answer", q.ID, st.Index, p.Index)
			lo, hi := scale(q)
			var v int
			if q.Kind == record.YesNo {
				if r.Float64() < min(1, max(0, m.Mean+offset)) {
					v = 1
				}
			} else {
				v = int(min(hi, max(lo, math.Round(m.Mean+offset+m.SD*r.NormFloat64()))))
			}
			out = append(out, record.Answer{Round: p.Index, Seat: st.Index, Question: q.ID, Kind: q.Kind, Value: v,
				Text: SyntheticText, At: d.clock})
		}
	}
	slices.SortStableFunc(out, func(a, b record.Answer) int { return a.Seat - b.Seat })
	return out, nil
}

package study

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/stats"
)

// CheckResult is one check question's answers (Question.Check): for an
// attention check, each participant's rounds answered and those
// answered as instructed; for a manipulation check, its answers per
// technique. Checks are never tested as outcomes.
type CheckResult struct {
	Question string `json:"question"`
	Check    string `json:"check"`
	Kind     string `json:"kind"`
	Correct  *int   `json:"correct,omitempty"`
	// Participants is the attention check's answers by participant.
	Participants []CheckParticipant `json:"participants,omitempty"`
	// Techniques is the manipulation check's answers by technique.
	Techniques []CheckTechnique `json:"techniques,omitempty"`
}

// CheckParticipant is one participant's answers to an attention check.
type CheckParticipant struct {
	Seat     int `json:"seat"`
	Answered int `json:"answered"`
	Passed   int `json:"passed"`
}

// CheckTechnique is a manipulation check's answers under one technique:
// how many participants answered, their mean answer (a yes/no's share of
// yes) and, with a Correct answer, how many gave it.
type CheckTechnique struct {
	Technique    string  `json:"technique"`
	Participants int     `json:"participants"`
	Answers      int     `json:"answers"`
	Mean         float64 `json:"mean"`
	AsExpected   int     `json:"as_expected"`
}

// checkTally gathers the check questions' answers by question,
// technique and seat.
type checkTally struct {
	order []string
	by    map[string]map[string]map[int][]float64
}

func (c *checkTally) put(q, tech string, seat int, v float64) {
	if c.by == nil {
		c.by = map[string]map[string]map[int][]float64{}
	}
	if c.by[q] == nil {
		c.by[q] = map[string]map[int][]float64{}
		c.order = append(c.order, q)
	}
	if c.by[q][tech] == nil {
		c.by[q][tech] = map[int][]float64{}
	}
	c.by[q][tech][seat] = append(c.by[q][tech][seat], v)
}

// results sums the checks up, the techniques in order.
func (c *checkTally) results(si scheduleInfo, order []string) []CheckResult {
	var out []CheckResult
	for _, id := range c.order {
		q := si.questions[id]
		cr := CheckResult{Question: id, Check: q.Check, Kind: q.Kind, Correct: q.Correct}
		if q.Check == CheckAttention {
			per := map[int]*CheckParticipant{}
			for _, tech := range order {
				for seat, vs := range c.by[id][tech] {
					p := per[seat]
					if p == nil {
						p = &CheckParticipant{Seat: seat}
						per[seat] = p
					}
					for _, v := range vs {
						p.Answered++
						if q.Correct != nil && v == float64(*q.Correct) {
							p.Passed++
						}
					}
				}
			}
			for _, seat := range slices.Sorted(maps.Keys(per)) {
				cr.Participants = append(cr.Participants, *per[seat])
			}
		} else {
			for _, tech := range order {
				byseat := c.by[id][tech]
				if len(byseat) == 0 {
					continue
				}
				ct := CheckTechnique{Technique: tech, Participants: len(byseat)}
				var all []float64
				for _, seat := range slices.Sorted(maps.Keys(byseat)) {
					all = append(all, byseat[seat]...)
				}
				ct.Answers, ct.Mean = len(all), stats.Mean(all)
				for _, v := range all {
					if q.Correct != nil && v == float64(*q.Correct) {
						ct.AsExpected++
					}
				}
				cr.Techniques = append(cr.Techniques, ct)
			}
		}
		out = append(out, cr)
	}
	return out
}

// markdownChecks writes the attention and manipulation checks.
func (r *Report) markdownChecks(b *strings.Builder) {
	if len(r.Checks) == 0 {
		return
	}
	b.WriteString("\n## Attention and manipulation checks\n\nReported as checks: never tested as outcomes, and left out of the questionnaire's comparisons.\n")
	for _, c := range r.Checks {
		if c.Check == CheckAttention {
			fmt.Fprintf(b, "\nAttention check %s (instructed answer %d):\n\n| seat | answered | as instructed |\n|---|---|---|\n", c.Question, *c.Correct)
			for _, p := range c.Participants {
				fmt.Fprintf(b, "| %d | %d | %d |\n", p.Seat, p.Answered, p.Passed)
			}
			continue
		}
		fmt.Fprintf(b, "\nManipulation check %s (%s):\n\n| technique | participants | answers | mean | as expected |\n|---|---|---|---|---|\n", c.Question, c.Kind)
		for _, t := range c.Techniques {
			exp := ""
			if c.Correct != nil {
				exp = fmt.Sprintf("%d", t.AsExpected)
			}
			fmt.Fprintf(b, "| %s | %d | %d | %.2f | %s |\n", t.Technique, t.Participants, t.Answers, t.Mean, exp)
		}
	}
}

// isCheck reports whether answer a is to a check question.
func (si scheduleInfo) isCheck(a record.Answer) bool { return si.questions[a.Question].Check != "" }

package study

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
)

// Exclusion is a schedule's [exclusion] table: the rules, declared
// before anyone plays, by which the report leaves a participant out of
// its analyses. The schedule's key covers them, so they cannot change
// after the data came in without the study's key showing it. Each rule
// is off at 0.
type Exclusion struct {
	// FailedChecks excludes a participant who answered attention checks
	// other than instructed this many times or more (the schedule must
	// have an attention check).
	FailedChecks int `toml:"failed_checks" json:"failed_checks,omitempty"`
	// MinRounds excludes a participant who played less than this share
	// of their session's rounds (0 to 1): one who dropped out early.
	MinRounds float64 `toml:"min_rounds" json:"min_rounds,omitempty"`
	// MinFPS excludes a participant whose page drew under this many
	// frames a second, the median over their rounds of each round's
	// 1000 / mean frame time (a participant whose page reported no
	// frames is not judged by it).
	MinFPS float64 `toml:"min_fps" json:"min_fps,omitempty"`
	// MaxRTTErrorMS excludes a participant whose measured round trip
	// (the server's estimate, the round's mean) was off the round's
	// target by more than this in any round that held one: the latency
	// manipulation did not reach them (a round needs target_rtt_ms).
	MaxRTTErrorMS float64 `toml:"max_rtt_error_ms" json:"max_rtt_error_ms,omitempty"`
}

// Exclusion rule names, as the report's tables give them.
const (
	RuleFailedChecks = "failed_checks"
	RuleMinRounds    = "min_rounds"
	RuleMinFPS       = "min_fps"
	RuleMaxRTTError  = "max_rtt_error_ms"
)

// checkExclusion checks the [exclusion] table against what the schedule
// has: an attention check for failed_checks, a target round trip for
// max_rtt_error_ms.
func (s *Schedule) checkExclusion() *problem {
	e := s.Exclusion
	if e == nil {
		return nil
	}
	switch {
	case e.FailedChecks < 0 || e.FailedChecks > MaxRounds:
		return fail("exclusion.failed_checks", "%d, want 0 (off) to %d failed attention checks", e.FailedChecks, MaxRounds)
	case !(e.MinRounds >= 0 && e.MinRounds <= 1):
		return fail("exclusion.min_rounds", "%v, want a share of the session's rounds, 0 (off) to 1", e.MinRounds)
	case !(e.MinFPS >= 0 && e.MinFPS <= 1000):
		return fail("exclusion.min_fps", "%v, want 0 (off) to 1000 frames a second", e.MinFPS)
	case !(e.MaxRTTErrorMS >= 0 && e.MaxRTTErrorMS <= 5000):
		return fail("exclusion.max_rtt_error_ms", "%v, want 0 (off) to 5000 ms", e.MaxRTTErrorMS)
	case *e == Exclusion{}:
		return fail("exclusion", "every rule is 0 (off): set one of failed_checks, min_rounds, min_fps, max_rtt_error_ms, or leave the table out")
	}
	if e.FailedChecks > 0 && !slices.ContainsFunc(s.Questions, func(q Question) bool { return q.Check == CheckAttention }) {
		return fail("exclusion.failed_checks", "%d, but no [[question]] is an attention check (check = %q, with its correct answer)", e.FailedChecks, CheckAttention)
	}
	if e.MaxRTTErrorMS > 0 && !slices.ContainsFunc(s.plans, func(p *Plan) bool {
		return slices.ContainsFunc(p.Links, func(l Link) bool { return l.TargetRTTMS > 0 })
	}) {
		return fail("exclusion.max_rtt_error_ms", "%v, but no round holds a target round trip (latency = [{ target_rtt_ms = ... }]): there is nothing to be off", e.MaxRTTErrorMS)
	}
	return nil
}

// Text says the rules set, as a person reads them.
func (e *Exclusion) Text() string {
	var out []string
	switch {
	case e.FailedChecks == 1:
		out = append(out, "an attention check answered other than instructed")
	case e.FailedChecks > 1:
		out = append(out, fmt.Sprintf("attention checks answered other than instructed %d times or more", e.FailedChecks))
	}
	if e.MinRounds > 0 {
		out = append(out, fmt.Sprintf("under %s%% of the session's rounds played", num(e.MinRounds*100)))
	}
	if e.MinFPS > 0 {
		out = append(out, fmt.Sprintf("a page drawing under %s frames a second (median of the rounds)", num(e.MinFPS)))
	}
	if e.MaxRTTErrorMS > 0 {
		out = append(out, fmt.Sprintf("a measured round trip off a round's target by more than %s ms", num(e.MaxRTTErrorMS)))
	}
	return strings.Join(out, "; ")
}

// settings returns the rules set, for the schedule's key.
func (e *Exclusion) settings() []setting {
	var out []setting
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if e.FailedChecks > 0 {
		out = append(out, setting{"exclusion " + RuleFailedChecks, strconv.Itoa(e.FailedChecks)})
	}
	if e.MinRounds > 0 {
		out = append(out, setting{"exclusion " + RuleMinRounds, f(e.MinRounds)})
	}
	if e.MinFPS > 0 {
		out = append(out, setting{"exclusion " + RuleMinFPS, f(e.MinFPS)})
	}
	if e.MaxRTTErrorMS > 0 {
		out = append(out, setting{"exclusion " + RuleMaxRTTError, f(e.MaxRTTErrorMS)})
	}
	return out
}

// Excluded is one participant the schedule's exclusion rules left out
// of the analyses, by one rule: its value beside the rule's limit.
type Excluded struct {
	Seat int    `json:"seat"`
	Code string `json:"code,omitempty"`
	Rule string `json:"rule"`
	// Value is the participant's, Limit the rule's.
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	// Detail says what Value is, as a person reads it.
	Detail string `json:"detail"`
}

// Exclusions is the exclusion rules applied: the rules, the
// participants judged and those left out, a row per participant per
// rule broken (a participant may break several).
type Exclusions struct {
	Rules *Exclusion `json:"rules"`
	// Judged counts the participants the rules were applied to, and
	// Seats are those left out of the analyses.
	Judged   int        `json:"judged"`
	Seats    []int      `json:"excluded_seats"`
	Excluded []Excluded `json:"excluded"`
}

// applyExclusions applies the schedule's exclusion rules to r, the
// report of everyone: each participant is judged on it, and when the
// rules exclude any, the report is read again (reread) with their seats
// tallied as bots' are. It returns the report to write.
func (r *Report) applyExclusions(reread func(exclude map[int]bool) (*Report, error)) (*Report, error) {
	if r.rules == nil {
		return r, nil
	}
	ex := r.exclude(r.rules)
	rep := r
	if len(ex.Seats) > 0 {
		exclude := map[int]bool{}
		for _, seat := range ex.Seats {
			exclude[seat] = true
		}
		var err error
		if rep, err = reread(exclude); err != nil {
			return nil, err
		}
		rep.StudyID = r.StudyID
		// The checks are reported for everyone: they are what the
		// failed_checks rule judged.
		rep.Checks = r.Checks
	}
	rep.Exclusions = ex
	return rep, nil
}

// exclude applies rules to the participants of rep (the people's
// seats; a study of bots alone has none).
func (r *Report) exclude(rules *Exclusion) *Exclusions {
	out := &Exclusions{Rules: rules, Seats: []int{}, Excluded: []Excluded{}}
	if r.Subjects != SubjectsPeople {
		return out
	}
	code := map[int]string{}
	played := map[int]int{}
	for _, p := range r.Participants {
		if p.Bot {
			continue
		}
		played[p.Seat]++
		if p.Code != "" {
			code[p.Seat] = p.Code
		}
	}
	out.Judged = len(played)
	add := func(seat int, rule string, v, limit float64, detail string) {
		out.Excluded = append(out.Excluded, Excluded{Seat: seat, Code: code[seat], Rule: rule, Value: v, Limit: limit, Detail: detail})
	}
	if n := rules.FailedChecks; n > 0 {
		failed := map[int]int{}
		for _, c := range r.Checks {
			if c.Check != CheckAttention {
				continue
			}
			for _, p := range c.Participants {
				failed[p.Seat] += p.Answered - p.Passed
			}
		}
		for _, seat := range slices.Sorted(maps.Keys(failed)) {
			if _, ok := played[seat]; ok && failed[seat] >= n {
				add(seat, RuleFailedChecks, float64(failed[seat]), float64(n), fmt.Sprintf("%d attention checks answered other than instructed", failed[seat]))
			}
		}
	}
	if share := rules.MinRounds; share > 0 {
		for _, seat := range slices.Sorted(maps.Keys(played)) {
			of := r.sessionRounds(seat)
			if of == 0 {
				continue
			}
			if v := float64(played[seat]) / float64(of); v < share {
				add(seat, RuleMinRounds, v, share, fmt.Sprintf("played %d of %d rounds", played[seat], of))
			}
		}
	}
	if floor := rules.MinFPS; floor > 0 {
		fps := map[int][]float64{}
		for _, f := range r.Frames {
			if _, ok := played[f.Seat]; ok && f.Frames > 0 && f.MeanMS > 0 {
				fps[f.Seat] = append(fps[f.Seat], 1000/f.MeanMS)
			}
		}
		for _, seat := range slices.Sorted(maps.Keys(fps)) {
			if v := median(fps[seat]); v < floor {
				add(seat, RuleMinFPS, v, floor, fmt.Sprintf("median %.1f frames a second over %d rounds", v, len(fps[seat])))
			}
		}
	}
	if limit := rules.MaxRTTErrorMS; limit > 0 {
		type worst struct {
			off, target, measured float64
			round                 int
		}
		by := map[int]worst{}
		for _, n := range r.Network {
			if _, ok := played[n.Seat]; !ok || n.TargetRTTMS <= 0 || n.RTTSamples == 0 {
				continue
			}
			off := math.Abs(n.RTTMeanMS - n.TargetRTTMS)
			if w, ok := by[n.Seat]; !ok || off > w.off {
				by[n.Seat] = worst{off, n.TargetRTTMS, n.RTTMeanMS, n.Round + 1}
			}
		}
		for _, seat := range slices.Sorted(maps.Keys(by)) {
			if w := by[seat]; w.off > limit {
				add(seat, RuleMaxRTTError, w.off, limit, fmt.Sprintf("round %d: measured %.1f ms against a target of %s ms", w.round, w.measured, num(w.target)))
			}
		}
	}
	slices.SortStableFunc(out.Excluded, func(a, b Excluded) int { return cmp.Compare(a.Seat, b.Seat) })
	for _, e := range out.Excluded {
		if !slices.Contains(out.Seats, e.Seat) {
			out.Seats = append(out.Seats, e.Seat)
		}
	}
	return out
}

// sessionRounds is how many rounds seat's session plans.
func (r *Report) sessionRounds(seat int) int {
	if len(r.Sessions) == 1 {
		// One session's report counts the rounds it played.
		return max(r.Sessions[0].Rounds, r.planned)
	}
	for _, s := range r.Sessions {
		if seat >= s.FirstSeat && seat < s.FirstSeat+s.Seats {
			return s.Rounds
		}
	}
	return 0
}

// exclusionResults adds the table of the participants excluded.
func (r *Report) exclusionResults(res *experiment.Results) {
	if r.Exclusions == nil {
		return
	}
	t := experiment.Table{Name: "study_exclusions", Title: fmt.Sprintf("Participants the schedule's exclusion rules left out of the analyses: %d of %d, a row per rule broken",
		len(r.Exclusions.Seats), r.Exclusions.Judged), Columns: []string{"seat", "code", "rule", "value", "limit", "detail"}}
	for _, e := range r.Exclusions.Excluded {
		t.Rows = append(t.Rows, []string{strconv.Itoa(e.Seat), e.Code, e.Rule, num(e.Value), num(e.Limit), e.Detail})
	}
	res.Tables = append(res.Tables, t)
}

// markdownExclusions writes the rules and the participants excluded.
func (r *Report) markdownExclusions(b *strings.Builder) {
	x := r.Exclusions
	if x == nil {
		return
	}
	b.WriteString("\n## Exclusions\n\nThe schedule's exclusion rules, declared before anyone played (its key covers them):")
	for _, s := range x.Rules.settings() {
		fmt.Fprintf(b, " %s = %s;", strings.TrimPrefix(s.Label, "exclusion "), s.Value)
	}
	fmt.Fprintf(b, " applied to the %d participants, %d excluded. Every analysis of this report is of the %d included; the excluded participants' seats count as the bots' do (opponents, not subjects).\n",
		x.Judged, len(x.Seats), x.Judged-len(x.Seats))
	if len(x.Excluded) == 0 {
		return
	}
	b.WriteString("\n| seat | code | rule | value | limit | detail |\n|---|---|---|---|---|---|\n")
	for _, e := range x.Excluded {
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", e.Seat, e.Code, e.Rule, strconv.FormatFloat(e.Value, 'f', 2, 64), num(e.Limit), e.Detail)
	}
}

// median returns the median of xs (not empty); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

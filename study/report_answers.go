package study

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pelletier/go-toml/v2"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/stats"
)

// TechniqueAnswers sums up the answers to one question under one
// technique, pooled over its rounds.
type TechniqueAnswers struct {
	Technique string `json:"technique"`
	Question  string `json:"question"`
	Kind      string `json:"kind"`
	// Text is the question as the schedule asks it ("" when the study's
	// schedule is not at hand).
	Text string `json:"text,omitempty"`
	// N counts the answers, Participants the seats that gave them.
	N            int `json:"n"`
	Participants int `json:"participants"`
	// Median and Mean are of the answers (Likert, fairness); Yes counts
	// the yes answers and YesShare their share (yes/no).
	Median   *float64 `json:"median,omitempty"`
	Mean     *float64 `json:"mean,omitempty"`
	Yes      int      `json:"yes,omitempty"`
	YesShare *float64 `json:"yes_share,omitempty"`
}

// Comparison is a Wilcoxon signed-rank test of one Likert or fairness
// question between two techniques, paired by participant: each seat
// that answered under both gives one pair, its mean answer under A and
// under B (a seat that played a technique's rounds more than once
// answered more than once). The difference is B − A.
type Comparison struct {
	Question string `json:"question"`
	Kind     string `json:"kind"`
	A        string `json:"a"`
	B        string `json:"b"`
	// N counts the pairs; NonZero those whose difference is not zero,
	// the only ones the test ranks (zeros are dropped, as Wilcoxon
	// proposed; tied differences share their average rank).
	N       int `json:"n"`
	NonZero int `json:"nonzero"`
	// MedianA and MedianB are the medians of the participants' values.
	MedianA float64 `json:"median_a"`
	MedianB float64 `json:"median_b"`
	// W is W+, the rank sum of the differences above zero (B higher);
	// WMinus that of those below. P is two-sided: exact for up to 25
	// nonzero differences, else from the normal approximation with tie
	// and continuity corrections (stats.Wilcoxon).
	W      float64 `json:"w_plus"`
	WMinus float64 `json:"w_minus"`
	P      float64 `json:"p"`
	// Effect is the matched-pairs rank-biserial correlation, MedianDiff
	// the median of the differences.
	Effect     float64 `json:"effect"`
	MedianDiff float64 `json:"median_diff"`
	// CILo and CIHi bound the median difference's distribution-free 95%
	// interval; absent under six pairs, where no interval reaches 95%.
	CILo *float64 `json:"ci95_lo,omitempty"`
	CIHi *float64 `json:"ci95_hi,omitempty"`
	// PHolm is P Holm-adjusted within Family (the statistics policy's
	// secondary family) of HolmFamily tests, the same in every output.
	PHolm      float64 `json:"p_holm"`
	HolmFamily int     `json:"holm_family"`
	Family     string  `json:"family"`
}

// TextAnswer is one free-text answer.
type TextAnswer struct {
	Technique string `json:"technique"`
	Round     string `json:"round"`
	Seat      int    `json:"seat"`
	Question  string `json:"question"`
	Text      string `json:"text"`
}

// RollbackBin sets the hits people received against their SBC reports
// in one band of rollback distance, under one technique (Technique
// AllTechniques pools them). A report counts in the band of the hit it
// was about: the most recent hit on the reporter.
type RollbackBin struct {
	Technique string `json:"technique"`
	// FromM and ToM bound the band, [FromM, ToM); ToM is 0 for the last,
	// open band.
	FromM float64 `json:"from_m"`
	ToM   float64 `json:"to_m"`
	// Hits counts the registered hits on people, SBC those behind cover
	// on the victim's screen (objective), Reports the SBC reports.
	Hits    int `json:"hits"`
	SBC     int `json:"sbc"`
	Reports int `json:"reports"`
}

// Rollback bands: BinWidthM wide up to BinsToM, then one open band.
const (
	BinWidthM = 0.05
	BinsToM   = 0.5
	nBins     = 11 // 10 bands up to BinsToM and one beyond
	// AllTechniques names the rollback bins of every technique pooled
	// (with a space, which no technique's name has).
	AllTechniques = "all techniques"
	// minPeakHits is how many hits a band needs to be the peak of the
	// reported SBC share: a band of a few hits has a share of chance.
	minPeakHits = 10
)

// binTally counts hits and reports per rollback band.
type binTally struct {
	hits, sbc, reports [nBins]int
	// unmatched counts reports about no hit.
	unmatched int
}

func newBinTally() *binTally { return &binTally{} }

func binOf(rollbackM float64) int {
	if !(rollbackM > 0) { // NaN and negatives in the first band
		return 0
	}
	return min(int(rollbackM/BinWidthM+1e-9), nBins-1)
}

func (b *binTally) hit(rollbackM float64, sbc bool) {
	i := binOf(rollbackM)
	b.hits[i]++
	if sbc {
		b.sbc[i]++
	}
}

func (b *binTally) report(r record.SBCReport) {
	if r.Shooter < 0 {
		b.unmatched++
		return
	}
	b.reports[binOf(r.RollbackM)]++
}

func (b *binTally) merge(o *binTally) {
	for i := range nBins {
		b.hits[i] += o.hits[i]
		b.sbc[i] += o.sbc[i]
		b.reports[i] += o.reports[i]
	}
	b.unmatched += o.unmatched
}

func (b *binTally) empty() bool {
	for i := range nBins {
		if b.hits[i] > 0 || b.reports[i] > 0 {
			return false
		}
	}
	return true
}

func (b *binTally) bins(tech string) []RollbackBin {
	out := make([]RollbackBin, nBins)
	for i := range nBins {
		out[i] = RollbackBin{Technique: tech, FromM: round6(float64(i) * BinWidthM), Hits: b.hits[i], SBC: b.sbc[i], Reports: b.reports[i]}
		if i < nBins-1 {
			out[i].ToM = round6(float64(i+1) * BinWidthM)
		}
	}
	return out
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Mid is the band's middle (for the open band, half a width past its
// start).
func (b RollbackBin) Mid() float64 { return round6(b.FromM + BinWidthM/2) }

// PeakRollback returns the middle of the band where the share of hits
// that people reported as behind cover is highest, among bands of
// technique with at least 10 hits, and false when none has a report.
func (r *Report) PeakRollback(technique string) (float64, bool) {
	best, at := 0.0, 0.0
	for _, b := range r.Rollback {
		if b.Technique != technique || b.Hits < minPeakHits {
			continue
		}
		if s := float64(b.Reports) / float64(b.Hits); s > best {
			best, at = s, b.Mid()
		}
	}
	return at, best > 0
}

// scheduleInfo is what a study's schedule names: its techniques by their
// compact form (record.Round.Setting), the technique of each round by
// its index, and its questions.
type scheduleInfo struct {
	names     map[string]string
	settings  map[string]string // by name
	rounds    []string          // technique names, by round index
	questions map[string]Question
	// order is the questions' ids in the schedule's order.
	order []string
	// participant marks the seats the schedule gives to people (nil when
	// the schedule does not decode): in a pilot, where bots play every
	// seat, these are the seats analysed, as the live study would.
	participant map[int]bool
	// minFPS is the schedule's frame-rate floor (0: not set).
	minFPS float64
	// exclusion is the schedule's exclusion rules (nil: none); online
	// whether it is an online study's.
	exclusion *Exclusion
	online    bool
	// lowPing is the round trip its techniques judge victims apart at
	// (Schedule.LowPingMS; 0 when the schedule does not decode).
	lowPing float64
}

// readScheduleInfo reads the techniques and questions of a schedule's
// text, leniently: a schedule that does not decode (or a study with
// none, such as lagkit serve's) leaves the report with the techniques'
// compact forms and the questions' ids.
func readScheduleInfo(text string) scheduleInfo {
	info := scheduleInfo{names: map[string]string{}, settings: map[string]string{}, questions: map[string]Question{}}
	var s struct {
		Seats []struct {
			Bot   bool `toml:"bot"`
			Count int  `toml:"count"`
		} `toml:"seat"`
		Techniques []Technique `toml:"technique"`
		Rounds     []Round     `toml:"round"`
		Questions  []Question  `toml:"question"`
		MinFPS     float64     `toml:"min_fps"`
		Exclusion  *Exclusion  `toml:"exclusion"`
		Online     *Online     `toml:"online"`
	}
	if text == "" || toml.Unmarshal([]byte(text), &s) != nil {
		return info
	}
	info.minFPS, info.exclusion, info.online = s.MinFPS, s.Exclusion, s.Online != nil
	info.participant = map[int]bool{}
	seat := 0
	for _, sp := range s.Seats {
		for range max(1, min(sp.Count, MaxSeats)) {
			info.participant[seat] = !sp.Bot
			seat++
		}
	}
	for i := range s.Techniques {
		t := &s.Techniques[i]
		if t.check() != nil {
			continue
		}
		if _, dup := info.names[t.String()]; !dup {
			info.names[t.String()] = t.Name
		}
		info.settings[t.Name] = t.String()
	}
	info.lowPing, _, _ = lowPingOf(s.Techniques)
	for _, r := range s.Rounds {
		name := r.Technique
		if name == "" && len(s.Techniques) == 1 {
			name = s.Techniques[0].Name
		}
		info.rounds = append(info.rounds, name)
	}
	for _, q := range s.Questions {
		info.questions[q.ID] = q
		info.order = append(info.order, q.ID)
	}
	return info
}

// technique returns the name and the settings of the technique round
// rec was played under. A round stored before names were kept has its
// settings in Technique (and Setting the same, or empty): it is named as
// the schedule names its round's technique, or failing that the first
// technique of its settings, or by its settings.
func (si scheduleInfo) technique(rec record.Round) (name, setting string) {
	if rec.Setting != "" && rec.Setting != rec.Technique {
		return rec.Technique, rec.Setting
	}
	setting = rec.Technique
	if rec.Index >= 0 && rec.Index < len(si.rounds) {
		if n := si.rounds[rec.Index]; n != "" && si.settings[n] == setting {
			return n, setting
		}
	}
	return cmp.Or(si.names[setting], setting), setting
}

// compare fills the report's questionnaire summaries per technique,
// the paired comparisons, the free-text answers, the rollback bins and
// the paired test of high-ping accuracy by participant.
func (s *Summariser) compare(rep *Report, techs map[string]*techTally, order []string) {
	techOf := map[int]*roundTally{}
	for _, rt := range s.rounds {
		techOf[rt.rec.Index] = rt
	}
	type key struct{ tech, question string }
	// values[key][seat] are a seat's answers.
	values := map[key]map[int][]float64{}
	var questions []string
	kinds := map[string]string{}
	var checks checkTally
	defer func() { rep.Checks = checks.results(s.sched, order) }()
	for _, a := range s.answers {
		rt := techOf[a.Round]
		if rt == nil {
			continue
		}
		if rep.Subjects != SubjectsBots && !rt.people[a.Seat] {
			// Only participants' answers are analysed (a pilot's bot
			// seats answered, in studies stored before they stopped).
			continue
		}
		tech, _ := s.sched.technique(rt.rec)
		if s.sched.isCheck(a) {
			// A check is reported as one, never compared as an
			// outcome.
			checks.put(a.Question, tech, a.Seat, float64(a.Value))
			continue
		}
		if _, ok := kinds[a.Question]; !ok {
			questions = append(questions, a.Question)
			kinds[a.Question] = a.Kind
		}
		if a.Kind == record.Text {
			rep.Texts = append(rep.Texts, TextAnswer{Technique: tech, Round: rt.rec.Name, Seat: a.Seat, Question: a.Question, Text: a.Text})
			continue
		}
		k := key{tech, a.Question}
		if values[k] == nil {
			values[k] = map[int][]float64{}
		}
		values[k][a.Seat] = append(values[k][a.Seat], float64(a.Value))
	}
	names := order // the techniques by name
	for _, q := range questions {
		kind := kinds[q]
		for _, tech := range names {
			byseat := values[key{tech, q}]
			if kind == record.Text || len(byseat) == 0 {
				continue
			}
			ta := TechniqueAnswers{Technique: tech, Question: q, Kind: kind, Text: s.sched.questions[q].Text, Participants: len(byseat)}
			var all []float64
			for _, seat := range slices.Sorted(maps.Keys(byseat)) {
				all = append(all, byseat[seat]...)
			}
			ta.N = len(all)
			if kind == record.YesNo {
				for _, v := range all {
					if v == 1 {
						ta.Yes++
					}
				}
				share := float64(ta.Yes) / float64(ta.N)
				ta.YesShare = &share
			} else {
				med, mean := medianOf(all), stats.Mean(all)
				ta.Median, ta.Mean = &med, &mean
			}
			rep.Answers = append(rep.Answers, ta)
		}
		if !Ordered(kind) {
			continue
		}
		for i, a := range names {
			for _, b := range names[i+1:] {
				c, n, ok := compareAnswers(q, kind, a, b, values[key{a, q}], values[key{b, q}])
				switch {
				case ok:
					rep.Comparisons = append(rep.Comparisons, c)
				case n > 0:
					rep.Untested = append(rep.Untested, Untested{Outcome: q, A: a, B: b, N: n, Family: SecondaryFamily, Reason: tooFew(n)})
				}
			}
		}
	}
	all := newBinTally()
	for i, tech := range order {
		t := techs[tech]
		all.merge(t.bins)
		if !t.bins.empty() {
			rep.Rollback = append(rep.Rollback, t.bins.bins(names[i])...)
		}
	}
	if !all.empty() {
		rep.Rollback = append(rep.Rollback, all.bins(AllTechniques)...)
	}
	// Participants are people: in a study with people a seat pairs only
	// when people held it in every round of both techniques; a study of
	// bots alone (a simulation) pairs its bot seats, and says so.
	bots := rep.Subjects == SubjectsBots
	by := "participant (a person's seat)"
	if bots {
		by = "bot seat (bots alone played: no people)"
	}
	for i, a := range order {
		for j := i + 1; j < len(order); j++ {
			b := order[j]
			var xa, xb []float64
			for _, seat := range slices.Sorted(maps.Keys(techs[a].seats)) {
				sa, sb := techs[a].seats[seat], techs[b].seats[seat]
				if sb != nil && (bots || !sa.bot && !sb.bot) && sa.high.shots > 0 && sb.high.shots > 0 {
					xa = append(xa, float64(sa.high.hits)/float64(sa.high.shots))
					xb = append(xb, float64(sb.high.hits)/float64(sb.high.shots))
				}
			}
			t, why := pairedWilcoxon("hit_accuracy_high_ping", names[i], names[j], xa, xb,
				fmt.Sprintf("secondary, paired by %s: hit accuracy of each seat in its rounds above %v ms round trip under each", by, rep.LowPingMS), SecondaryFamily)
			if t == nil {
				rep.Untested = append(rep.Untested, Untested{Outcome: "hit_accuracy_high_ping", A: names[i], B: names[j], N: len(xa), Family: SecondaryFamily, Reason: why})
			} else {
				rep.Tests = append(rep.Tests, *t)
			}
		}
	}
}

// compareAnswers pairs the seats that answered q under both a and b and
// runs the Wilcoxon signed-rank test of b against a; false, with the
// number of pairs, when there are fewer than MinPairs.
func compareAnswers(q, kind, a, b string, va, vb map[int][]float64) (Comparison, int, bool) {
	var xa, xb []float64
	for _, seat := range slices.Sorted(maps.Keys(va)) {
		if ys, ok := vb[seat]; ok {
			xa = append(xa, stats.Mean(va[seat]))
			xb = append(xb, stats.Mean(ys))
		}
	}
	if len(xa) < MinPairs {
		return Comparison{}, len(xa), false
	}
	w, err := stats.Wilcoxon(xa, xb)
	if err != nil {
		return Comparison{}, len(xa), false
	}
	c := Comparison{Question: q, Kind: kind, A: a, B: b, N: w.N, MedianA: medianOf(xa), MedianB: medianOf(xb),
		W: w.Statistic, P: w.P, Effect: w.Effect, MedianDiff: w.MeanDiff}
	for i := range xa {
		if xb[i] != xa[i] {
			c.NonZero++
		}
	}
	c.WMinus = float64(c.NonZero*(c.NonZero+1))/2 - c.W
	if lo, hi := w.CI95[0], w.CI95[1]; !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		c.CILo, c.CIHi = &lo, &hi
	}
	return c, len(xa), true
}

// medianOf returns the median of x (not changed), NaN when empty.
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(x))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

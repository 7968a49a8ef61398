package study

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Counterbalancing. Every seat of a lagkit study plays each round in the
// same match, and a match runs one technique: the technique is the
// server's, so the seats of one round cannot play different ones without
// splitting the match (other opponents, other team sizes: another game).
// Counterbalancing the order of techniques is therefore done between
// groups of participants who play in separate sessions, the design of
// multiplayer latency studies: the schedule states the design, each
// session (one run of lagkit study run) plays one group's row of it, and
// every seat of that session plays the techniques in that row's order.
// The group is the schedule's counterbalance.group or study run's
// --group; the records keep it with each seat's order.
//
// The rounds stay where the schedule puts them (their maps, modes,
// durations and names); what moves is the technique each round plays.
// The schedule's rounds are the order of group 0: a round playing the
// j-th technique of the design's list plays, in group g, the technique
// in place j of row g. So tlc, alc, tlc, alc under a 2-technique Latin
// square becomes alc, tlc, alc, tlc in group 1, and a block design
// (A, A, B, B) keeps its blocks. Rounds under a technique the list
// leaves out (a practice round) keep it in every group.

// Counterbalancing designs.
const (
	// DesignLatin is a balanced Latin square (Williams design): for n
	// techniques n rows when n is even, 2n when it is odd (the square
	// and its mirror), in which every technique comes in every place
	// once and follows every other once (first-order carry-over
	// balanced).
	DesignLatin = "latin"
	// DesignRandom gives each group an order drawn from the design's
	// seed and the group's number: FPSci's per-user randomised session
	// order, per group. Any group number has an order.
	DesignRandom = "random"
)

// Designs are the counterbalancing designs a schedule may name.
var Designs = []string{DesignLatin, DesignRandom}

// Counterbalance is the [counterbalance] table of a schedule.
type Counterbalance struct {
	// Design is latin or random.
	Design string `toml:"design"`
	// Techniques are the techniques whose order is counterbalanced, in
	// the order the schedule's rounds give group 0 (default: every
	// technique the rounds play, in the order they first come).
	Techniques []string `toml:"techniques"`
	// Seed draws the orders of design random (recorded with the study).
	Seed uint64 `toml:"seed"`
	// Group is the group this schedule's runs play (study run --group
	// overrides it): under latin 0 to the number of rows less one.
	Group int `toml:"group"`
	// Factors are what the design moves: "technique", "latency" or
	// both (default: what varies across the rounds). With both, the
	// unit of the square is the technique × latency condition a round
	// plays, so that no latency block stays in its period in every
	// group and a pooled report can tell the two apart.
	Factors []string `toml:"factors"`

	// conds are the design's conditions in the order the rounds first
	// play them (group 0's), filled in by the check.
	conds []condition
}

// Factors a counterbalancing design may move.
const (
	FactorTechnique = "technique"
	FactorLatency   = "latency"
)

// condition is one unit of a design's square: a technique, the round's
// own latency rules, or both.
type condition struct {
	tech  string
	lat   []LinkRule
	label string
}

// unit names what the design orders: techniques, or conditions when it
// moves latency.
func (c *Counterbalance) unit() string {
	if c.moves(FactorLatency) {
		return "conditions"
	}
	return "techniques"
}

// moves reports whether the design moves factor f.
func (c *Counterbalance) moves(f string) bool { return slices.Contains(c.Factors, f) }

// latencyLabel names a round's own latency rules: what a latency
// condition is, as the design table prints it.
func latencyLabel(rules []LinkRule) string {
	if len(rules) == 0 {
		return "base latency"
	}
	var parts []string
	for _, r := range rules {
		s := fmt.Sprintf("%g ms", r.LatencyMS)
		if r.TargetRTTMS > 0 {
			s = fmt.Sprintf("%g ms round trip", r.TargetRTTMS)
		}
		if r.JitterMS != 0 {
			s += fmt.Sprintf(" ±%g", r.JitterMS)
		}
		if r.Loss != 0 {
			s += fmt.Sprintf(" loss %g", r.Loss)
		}
		if len(r.Seats) > 0 {
			seats := make([]string, len(r.Seats))
			for i, k := range r.Seats {
				seats[i] = fmt.Sprint(k)
			}
			s += " seats " + strings.Join(seats, " ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// conditionOf returns the condition round rd plays under c's factors
// and whether c moves it (a round under a technique the list leaves out
// keeps everything).
func (c *Counterbalance) conditionOf(rd Round, only string) (condition, bool) {
	tech := rd.Technique
	if tech == "" {
		tech = only
	}
	if !slices.Contains(c.Techniques, tech) {
		return condition{}, false
	}
	var k condition
	var label []string
	if c.moves(FactorTechnique) {
		k.tech = tech
		label = append(label, tech)
	}
	if c.moves(FactorLatency) {
		k.lat = rd.Latency
		label = append(label, latencyLabel(rd.Latency))
	}
	k.label = strings.Join(label, " / ")
	return k, true
}

// maxGroup bounds a random design's group number.
const maxGroup = 1 << 20

// williams returns the balanced Latin square of n conditions, relabelled
// so that its first row is 0, 1, ..., n-1: n rows for even n, 2n for
// odd n.
func williams(n int) [][]int {
	first := make([]int, n)
	lo, hi := 1, n-1
	for c := 1; c < n; c++ {
		if c%2 == 1 {
			first[c], lo = lo, lo+1
		} else {
			first[c], hi = hi, hi-1
		}
	}
	var rows [][]int
	for r := range n {
		row := make([]int, n)
		for c := range n {
			row[c] = (first[c] + r) % n
		}
		rows = append(rows, row)
	}
	if n%2 == 1 {
		for r := range n {
			mirror := slices.Clone(rows[r])
			slices.Reverse(mirror)
			rows = append(rows, mirror)
		}
	}
	// Relabel: condition first[c] becomes c, so row 0 is the identity
	// (the schedule as written); relabelling keeps the square balanced.
	label := make([]int, n)
	for c, v := range first {
		label[v] = c
	}
	for _, row := range rows {
		for c := range row {
			row[c] = label[row[c]]
		}
	}
	return rows
}

// row returns the order of group g: the indices into the design's
// conditions by place.
func (c *Counterbalance) row(g int) []int {
	n := len(c.conds)
	if c.Design == DesignRandom {
		r := rand.New(rand.NewPCG(c.Seed, uint64(g)))
		return r.Perm(n)
	}
	rows := williams(n)
	return rows[g%len(rows)]
}

// Groups returns how many groups the design has: the Latin square's
// rows, or 0 for random (any group number).
func (c *Counterbalance) Groups() int {
	if c.Design == DesignRandom {
		return 0
	}
	return len(williams(len(c.conds)))
}

// Order returns the conditions of group g by place, each named by its
// technique, its latency, or both ("tlc / 125 ms").
func (c *Counterbalance) Order(g int) []string {
	row := c.row(g)
	out := make([]string, len(row))
	for i, k := range row {
		out[i] = c.conds[k].label
	}
	return out
}

// Conditions returns the design's conditions as group 0 plays them.
func (c *Counterbalance) Conditions() []string {
	out := make([]string, len(c.conds))
	for i, k := range c.conds {
		out[i] = k.label
	}
	return out
}

// checkCounterbalance checks the [counterbalance] table against the
// techniques and rounds, and fills in its list.
func (s *Schedule) checkCounterbalance(techs map[string]*Technique) *problem {
	c := s.Counterbalance
	if c == nil {
		return nil
	}
	if !slices.Contains(Designs, c.Design) {
		if c.Design == "" {
			return fail("counterbalance.design", "missing: one of %s", strings.Join(Designs, ", "))
		}
		return fail("counterbalance.design", "unknown design %q, want one of %s", c.Design, strings.Join(Designs, ", "))
	}
	if c.Design != DesignRandom && c.Seed != 0 {
		return fail("counterbalance.seed", "only design random draws its orders from a seed")
	}
	if len(c.Techniques) == 0 {
		for _, rd := range s.Rounds {
			name := rd.Technique
			if name == "" && len(s.Techniques) == 1 {
				name = s.Techniques[0].Name
			}
			if name != "" && !slices.Contains(c.Techniques, name) {
				c.Techniques = append(c.Techniques, name)
			}
		}
	}
	seen := map[string]bool{}
	for i, name := range c.Techniques {
		at := fmt.Sprintf("counterbalance.techniques[%d]", i)
		switch {
		case techs[name] == nil:
			return fail(at, "unknown technique %q, want one of %s", name, strings.Join(s.techniqueNames(), ", "))
		case seen[name]:
			return fail(at, "%q is listed twice", name)
		}
		seen[name] = true
	}
	only := ""
	if len(s.Techniques) == 1 {
		only = s.Techniques[0].Name
	}
	if len(c.Factors) == 0 {
		// Default: whatever varies across the rounds the design covers.
		techs, lats := map[string]bool{}, map[string]bool{}
		for _, rd := range s.Rounds {
			t := rd.Technique
			if t == "" {
				t = only
			}
			if seen[t] {
				techs[t] = true
				lats[latencyLabel(rd.Latency)] = true
			}
		}
		if len(techs) > 1 || len(lats) < 2 {
			c.Factors = append(c.Factors, FactorTechnique)
		}
		if len(lats) > 1 {
			c.Factors = append(c.Factors, FactorLatency)
		}
	}
	for i, f := range c.Factors {
		if f != FactorTechnique && f != FactorLatency {
			return fail(fmt.Sprintf("counterbalance.factors[%d]", i), "unknown factor %q, want %s or %s", f, FactorTechnique, FactorLatency)
		}
		if slices.Index(c.Factors, f) != i {
			return fail(fmt.Sprintf("counterbalance.factors[%d]", i), "%q is listed twice", f)
		}
	}
	c.conds = nil
	for _, rd := range s.Rounds {
		k, ok := c.conditionOf(rd, only)
		if ok && !slices.ContainsFunc(c.conds, func(o condition) bool { return o.label == k.label }) {
			c.conds = append(c.conds, k)
		}
	}
	if c.moves(FactorTechnique) && !c.moves(FactorLatency) && len(c.Techniques) < 2 {
		return fail("counterbalance.techniques", "%d technique to order: counterbalancing orders two or more", len(c.Techniques))
	}
	if len(c.conds) < 2 && len(c.conds) > 0 {
		return fail("counterbalance.factors", "the rounds play one condition of %s (%s): counterbalancing orders two or more", strings.Join(c.Factors, " × "), c.conds[0].label)
	}
	used := false
	for i, rd := range s.Rounds {
		if seen[rd.Technique] || (rd.Technique == "" && seen[only]) {
			used = true
		}
		if c.moves(FactorTechnique) && rd.Name != "" && seen[rd.Name] && seen[rd.Technique] {
			return fail(fmt.Sprintf("round[%d].name", i), "%q names a technique, but counterbalancing gives this round other techniques in other groups: "+
				"name the round by its place (such as \"match %d\") or leave name out", rd.Name, i+1)
		}
	}
	if !used {
		return fail("counterbalance.techniques", "no round plays any of %s", strings.Join(c.Techniques, ", "))
	}
	if p := checkGroup(c, c.Group, "counterbalance.group"); p != nil {
		return p
	}
	return nil
}

// checkGroup checks group g against c.
func checkGroup(c *Counterbalance, g int, at string) *problem {
	switch n := c.Groups(); {
	case g < 0:
		return fail(at, "%d, want 0 or more", g)
	case n > 0 && g >= n:
		return fail(at, "%d, but design %s of %d %s has %d groups (0 to %d)", g, c.Design, len(c.conds), c.unit(), n, n-1)
	case g > maxGroup:
		return fail(at, "%d, want at most %d", g, maxGroup)
	}
	return nil
}

// Group returns the counterbalancing group the schedule plays (0 without
// counterbalancing).
func (s *Schedule) Group() int {
	if s.Counterbalance == nil {
		return 0
	}
	return s.group
}

// SetGroup makes the schedule play group g of its counterbalancing
// design: each round's technique is the one g's row puts in its place.
// A schedule without [counterbalance] takes only group 0.
func (s *Schedule) SetGroup(g int) error {
	c := s.Counterbalance
	if c == nil {
		if g != 0 {
			return fmt.Errorf("%s: group %d: the schedule has no [counterbalance] table, so every run plays its one order", s.path, g)
		}
		return nil
	}
	if p := checkGroup(c, g, "group"); p != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(p.Msg, fmt.Sprint(g)+", "), "but ")
		return fmt.Errorf("%s: group %d: %s", s.path, g, msg)
	}
	s.group = g
	s.applyGroup()
	return nil
}

// applyGroup sets each round's technique for s.group and counts the
// replicates anew.
func (s *Schedule) applyGroup() {
	c := s.Counterbalance
	if c == nil {
		return
	}
	byName := map[string]*Technique{}
	for i := range s.Techniques {
		byName[s.Techniques[i].Name] = &s.Techniques[i]
	}
	label := map[string]int{}
	for i, k := range c.conds {
		label[k.label] = i
	}
	only := ""
	if len(s.Techniques) == 1 {
		only = s.Techniques[0].Name
	}
	counts := map[string]int{}
	for i, p := range s.plans {
		p.Technique = p.base
		p.Links = s.links(s.Rounds[i].Latency)
		if k, ok := c.conditionOf(s.Rounds[i], only); ok {
			to := c.conds[c.row(s.group)[label[k.label]]]
			if c.moves(FactorTechnique) {
				p.Technique = byName[to.tech]
			}
			if c.moves(FactorLatency) {
				p.Links = s.links(to.lat)
			}
			p.condition = to.label
		}
		p.Replicate = counts[p.Technique.Name]
		counts[p.Technique.Name]++
	}
}

// SeatOrders returns the order of conditions each seat plays, one entry
// per round (its technique, or the condition the design moves: "alc /
// 125 ms"): every seat of a session plays its group's.
func (s *Schedule) SeatOrders() [][]string {
	order := make([]string, len(s.plans))
	for i, p := range s.plans {
		order[i] = p.Technique.Name
		if p.condition != "" && (s.Counterbalance == nil || !slices.Equal(s.Counterbalance.Factors, []string{FactorTechnique})) {
			order[i] = p.condition
		}
	}
	out := make([][]string, len(s.seats))
	for i := range out {
		out[i] = order
	}
	return out
}

// Design returns the counterbalancing design ("" without one).
func (s *Schedule) Design() string {
	if s.Counterbalance == nil {
		return ""
	}
	return s.Counterbalance.Design
}

// CounterbalanceInfo is the counterbalancing of a schedule's summary.
type CounterbalanceInfo struct {
	Design     string   `json:"design"`
	Techniques []string `json:"techniques"`
	// Factors are what the design moves and Conditions its units in
	// group 0's order.
	Factors    []string `json:"factors"`
	Conditions []string `json:"conditions"`
	// RoundConditions are the conditions this group's rounds play, by
	// round ("" for a round the design leaves alone).
	RoundConditions []string `json:"round_conditions,omitempty"`
	Seed            uint64   `json:"seed,omitempty"`
	// Groups is how many groups the design has (0: any number, random).
	Groups int `json:"groups"`
	// Group is the group this run plays and Order its order; Orders
	// are the orders of the design's groups by group (a random design's
	// first eight).
	Group  int        `json:"group"`
	Order  []string   `json:"order"`
	Orders [][]string `json:"orders"`
}

// counterbalanceInfo returns the summary's counterbalancing, nil
// without.
func (s *Schedule) counterbalanceInfo() *CounterbalanceInfo {
	c := s.Counterbalance
	if c == nil {
		return nil
	}
	info := &CounterbalanceInfo{Design: c.Design, Techniques: c.Techniques, Factors: c.Factors, Conditions: c.Conditions(), Seed: c.Seed, Groups: c.Groups(),
		Group: s.group, Order: c.Order(s.group)}
	for _, p := range s.plans {
		info.RoundConditions = append(info.RoundConditions, p.condition)
	}
	n := info.Groups
	if n == 0 {
		n = 8
	}
	for g := range n {
		info.Orders = append(info.Orders, c.Order(g))
	}
	return info
}

package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/lagcomp"
)

// DefaultLowPingMS is the round trip at or under which a seat counts as
// low-ping in a study whose techniques judge no victim apart: alc's
// default low_ping_ms.
const DefaultLowPingMS = 50

// lowPingMS is the round trip at or under which t's policy judges a
// victim apart (lagcomp.Traits.LowPing: alc's appeals, alc-predict's
// prediction), or 0 when it judges every victim alike. t is checked.
func (t *Technique) lowPingMS() float64 {
	p, err := lagcomp.New(t.Policy)
	if err != nil {
		return 0
	}
	return msec.Of(p.Traits().LowPing)
}

// lowPingOf returns the round trip the low-ping techniques among techs
// agree on (DefaultLowPingMS when none judges victims apart), and the
// first two that disagree, if any.
func lowPingOf(techs []Technique) (ms float64, a, b *Technique) {
	var first *Technique
	for i := range techs {
		t := &techs[i]
		lp := t.lowPingMS()
		switch {
		case lp == 0:
		case first == nil:
			first = t
		case lp != first.lowPingMS():
			return 0, first, t
		}
	}
	if first == nil {
		return DefaultLowPingMS, nil, nil
	}
	return first.lowPingMS(), nil, nil
}

// LowPingMS is the round trip at or under which the study's report
// counts a seat as low-ping (its low-ping victims, the primary outcome)
// and above which as high-ping: the one its low-ping techniques judge
// victims apart at (alc's low_ping_ms), or DefaultLowPingMS.
func (s *Schedule) LowPingMS() float64 {
	ms, _, _ := lowPingOf(s.Techniques)
	return ms
}

// checkLowPing checks the techniques that judge low-ping victims apart:
// they agree on the round trip that makes a victim low-ping, which the
// report's low-ping figures and primary outcome use too, and each can
// meet a participant seat at or under it in some group. A technique
// whose victims all play above it never appeals nor predicts: it plays
// as tlc, an arm that cannot differ from tlc's (an online study's alc at
// 80 and 200 ms round trips under alc's default 50 ms did).
func (s *Schedule) checkLowPing() *problem {
	ms, a, b := lowPingOf(s.Techniques)
	if a != nil {
		return fail(fmt.Sprintf("technique[%d].policy.low_ping_ms", slices.Index(s.Techniques, *b)),
			"technique %q judges victims apart at a round trip up to %v ms, %q up to %v ms: the report's low-ping victims need one round trip; give them the same low_ping_ms",
			a.Name, a.lowPingMS(), b.Name, b.lowPingMS())
	}
	for i := range s.Techniques {
		t := &s.Techniques[i]
		if t.lowPingMS() == 0 {
			continue
		}
		rtts := s.roundTripsOf(t.Name)
		if len(rtts) == 0 || slices.Min(rtts) <= ms {
			continue
		}
		slices.Sort(rtts)
		var list []string
		for _, r := range slices.Compact(rtts) {
			list = append(list, fmt.Sprint(r))
		}
		return fail(fmt.Sprintf("technique[%d].policy.low_ping_ms", i),
			"technique %q (policy %s) judges victims apart at a round trip up to %v ms, but the participants play its rounds at %s ms: none is judged apart and it plays as tlc; raise low_ping_ms or give some seats a lower latency",
			t.Name, t.Policy.Name, ms, strings.Join(list, ", "))
	}
	return nil
}

// roundTripsOf returns the round trips (Link.RTTMS) the participants'
// seats (every seat in a study of bots) play at in the rounds technique
// name can play, in any group: its own rounds, or, under a design that
// moves the technique or the latency but not both together, every round
// the design moves. Checked after the rounds are planned, before a
// group is applied.
func (s *Schedule) roundTripsOf(name string) []float64 {
	var people []int
	for _, st := range s.seats {
		if !st.Bot {
			people = append(people, st.Index)
		}
	}
	if len(people) == 0 {
		for _, st := range s.seats {
			people = append(people, st.Index)
		}
	}
	c := s.Counterbalance
	mixes := c != nil && c.moves(FactorTechnique) != c.moves(FactorLatency) && slices.Contains(c.Techniques, name)
	var rtts []float64
	for _, p := range s.plans {
		if p.Technique.Name != name && !(mixes && slices.Contains(c.Techniques, p.Technique.Name)) {
			continue
		}
		for _, seat := range people {
			if seat < len(p.Links) {
				rtts = append(rtts, p.Links[seat].RTTMS())
			}
		}
	}
	return rtts
}

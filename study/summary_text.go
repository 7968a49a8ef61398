package study

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// WriteText writes the summary for people: seats, techniques, rounds
// with their links, the order of techniques and the questionnaire.
func (s Summary) WriteText(w io.Writer) {
	people := 0
	for _, st := range s.Seats {
		if !st.Bot {
			people++
		}
	}
	fmt.Fprintf(w, "study %s: %d seats (%d for people, %d for bots), %d techniques, %d rounds, %s in all\n",
		s.Study, len(s.Seats), people, len(s.Seats)-people, len(s.Techniques), len(s.Rounds), clock(s.TotalS))
	var codes []string
	for _, st := range s.Seats {
		if st.Code != "" {
			codes = append(codes, fmt.Sprintf("%d=%s", st.Index, st.Code))
		}
	}
	if len(codes) > 0 {
		fmt.Fprintf(w, "codes: %s\n", strings.Join(codes, ", "))
	}
	if o := s.Online; o != nil {
		a := o.Admission
		fmt.Fprintf(w, "online: a lobby seats %d people a match as they arrive (join links carry ?%s=, %s, %s), bots take the empty seats after %s",
			people, o.IDParam, o.StudyParam, o.SessionParam, durationOr(o.MaxWait, lobby.DefaultMaxWait))
		if o.MinPeople > 1 {
			fmt.Fprintf(w, " once %d people wait", o.MinPeople)
		}
		fmt.Fprintf(w, "\n  prescreen within %s: ", durationOr(o.PrescreenTimeout, lobby.DefaultPrescreenTimeout))
		var rules []string
		if a.PointerLock {
			rules = append(rules, "pointer lock")
		}
		if a.MinFPS > 0 {
			rules = append(rules, fmt.Sprintf("at least %g fps", a.MinFPS))
		}
		if a.MinRefreshHz > 0 {
			rules = append(rules, fmt.Sprintf("at least %g Hz", a.MinRefreshHz))
		}
		if a.MaxBaseRTTMS > 0 {
			rules = append(rules, fmt.Sprintf("a round trip of at most %g ms", a.MaxBaseRTTMS))
		}
		rules = append(rules, "a round trip above a round's target: "+a.OverTarget)
		fmt.Fprintf(w, "%s\n", strings.Join(rules, ", "))
		if o.CompletionURL != "" {
			fmt.Fprintf(w, "  completion: %s\n", o.CompletionURL)
		} else {
			fmt.Fprintln(w, "  completion: the code is shown to the participant")
		}
		for _, g := range s.Lobby {
			var t []string
			for _, d := range g.TargetRTT {
				if d > 0 {
					t = append(t, fmt.Sprintf("%.0f", float64(d)/1e6))
				} else {
					t = append(t, "-")
				}
			}
			fmt.Fprintf(w, "  %s; target round trips (ms) by round: %s\n", g.Name, strings.Join(t, " "))
		}
	}
	fmt.Fprintln(w, "techniques:")
	for _, t := range s.Techniques {
		fmt.Fprintf(w, "  %-18s %s\n", t.Name, t.Setting)
	}
	// What a participant sees names the condition or not: say it for
	// every technique, so a schedule that unblinds does so on purpose.
	if people > 0 {
		fmt.Fprintln(w, "shown to each participant's page (feedback; the page never names the technique, policy, display or injected latency):")
		for _, t := range s.Techniques {
			fmt.Fprintf(w, "  %-18s %s\n", t.Name, t.ShownText)
		}
	}
	fmt.Fprintln(w, "rounds:")
	for i, r := range s.Rounds {
		start := ""
		if r.WarmupS > 0 {
			start += ", warm-up " + clock(r.WarmupS)
		}
		if r.Ready {
			start += ", ready and 3-2-1"
		}
		if r.IntervalS > 0 && i < len(s.Rounds)-1 {
			start += ", then " + clock(r.IntervalS) + " break"
		}
		fmt.Fprintf(w, "  %2d. %-16s %s %s %s%s; technique %s\n", i+1, r.Name, r.Map, r.Mode, clock(r.DurationS), start, r.Technique)
		if len(r.Weapons) > 0 {
			fmt.Fprintf(w, "      weapons %s\n", strings.Join(r.Weapons, ", "))
		}
		fmt.Fprintf(w, "      latency (one way) %s\n", linkGroups(r.Links))
		if r.Shown != "none" {
			fmt.Fprintf(w, "      every participant is shown: %s\n", r.Shown)
		}
	}
	order := make([]string, len(s.Rounds))
	for i, r := range s.Rounds {
		order[i] = r.Technique
	}
	if c := s.Counterbalance; c != nil {
		groups := fmt.Sprintf("%d groups", c.Groups)
		if c.Groups == 0 {
			groups = fmt.Sprintf("any number of groups, drawn from seed %d", c.Seed)
		}
		fmt.Fprintf(w, "counterbalanced: design %s of %s, %s (each session plays one group; --group picks it):\n",
			c.Design, strings.Join(c.Conditions, ", "), groups)
		if !slices.Equal(c.Factors, []string{FactorTechnique}) {
			fmt.Fprintf(w, "  the design moves %s: each condition is a unit of the square, and its rounds move with it\n", strings.Join(c.Factors, " × "))
			for i := range order {
				if i < len(c.RoundConditions) && c.RoundConditions[i] != "" {
					order[i] = c.RoundConditions[i]
				}
			}
		}
		for g, o := range c.Orders {
			mark := ""
			if g == c.Group {
				mark = "   <- this run"
			}
			fmt.Fprintf(w, "  group %d: %s%s\n", g, strings.Join(o, ", "), mark)
		}
		if c.Group >= len(c.Orders) {
			fmt.Fprintf(w, "  group %d: %s   <- this run\n", c.Group, strings.Join(c.Order, ", "))
		}
		what := "conditions"
		if slices.Equal(c.Factors, []string{FactorTechnique}) {
			what = "techniques"
		}
		fmt.Fprintf(w, "order of %s by round, every seat (group %d): %s\n", what, c.Group, strings.Join(order, ", "))
	} else {
		fmt.Fprintf(w, "order of techniques by round, every seat: %s\n", strings.Join(order, ", "))
	}
	s.WriteInstruments(w)
	if e := s.Exclusion; e != nil {
		fmt.Fprintf(w, "excluded from the report's analyses: %s\n", e.Text())
	}
	if len(s.Questions) == 0 {
		fmt.Fprintln(w, "no questionnaire")
		return
	}
	fmt.Fprintln(w, "questionnaire after each round:")
	for _, q := range s.Questions {
		check := ""
		switch {
		case q.Check != "" && q.Correct != nil:
			check = fmt.Sprintf(" [%s check, correct %d: not an outcome]", q.Check, *q.Correct)
		case q.Check != "":
			check = fmt.Sprintf(" [%s check: not an outcome]", q.Check)
		}
		fmt.Fprintf(w, "  %-20s %-9s %s%s\n", q.ID, q.Kind, q.Text, check)
	}
}

// linkGroups writes seats' links grouped by setting: "seats 0-5 125 ms,
// seats 6-11 10 ms".
func linkGroups(links []Link) string {
	var parts []string
	for i := 0; i < len(links); {
		j := i
		for j+1 < len(links) && links[j+1] == links[i] {
			j++
		}
		seats := "seat " + strconv.Itoa(i)
		if j > i {
			seats = fmt.Sprintf("seats %d-%d", i, j)
		}
		l := links[i]
		part := fmt.Sprintf("%s %v ms", seats, l.LatencyMS)
		if l.TargetRTTMS > 0 {
			part = fmt.Sprintf("%s held at %v ms round trip", seats, l.TargetRTTMS)
		}
		if l.JitterMS > 0 {
			part += fmt.Sprintf(" ± %v ms", l.JitterMS)
		}
		if l.Loss > 0 {
			part += fmt.Sprintf(" %v%% loss", l.Loss*100)
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// clock writes seconds as m:ss.
func clock(s float64) string {
	t := int(s + 0.5)
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

// durationOr writes d, or def when d is 0.
func durationOr(d Duration, def time.Duration) string {
	if d == 0 {
		return def.String()
	}
	return time.Duration(d).String()
}

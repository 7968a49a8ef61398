package study

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// setting is one thing a schedule sets that a study's records depend
// on, labelled as a person reads it ("round 2 duration").
type setting struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// settings returns what s sets, in a canonical order: the study's name
// and bot skill, its weapons file, each seat, each technique by name
// with its settings, each round (name, map, mode, times, technique,
// loadout and every seat's injected link) and each question. Comments,
// spacing, the order of keys and of [[technique]] tables, defaults
// written out or left out, and latency rules that come to the same
// links do not change it.
func (s *Schedule) settings() []setting {
	var out []setting
	add := func(label, format string, a ...any) {
		out = append(out, setting{label, fmt.Sprintf(format, a...)})
	}
	add("name", "%s", s.Name)
	add("bot skill", "%s", strconv.FormatFloat(s.BotSkill, 'g', -1, 64))
	add("weapons file", "%s", s.WeaponsFile)
	if s.MinFPS != 0 {
		// Only when set, so that older studies keep their keys.
		add("min fps", "%s", strconv.FormatFloat(s.MinFPS, 'g', -1, 64))
	}
	add("seats", "%d", len(s.seats))
	for _, st := range s.seats {
		who := "person"
		switch {
		case st.Bot:
			who = "bot"
		case st.Code != "":
			who = "person, code " + st.Code
		}
		add(fmt.Sprintf("seat %d", st.Index), "%s", who)
	}
	techs := slices.Clone(s.Techniques)
	slices.SortFunc(techs, func(a, b Technique) int { return strings.Compare(a.Name, b.Name) })
	add("techniques", "%d", len(techs))
	for i := range techs {
		add("technique "+techs[i].Name, "%s", techs[i].String())
	}
	add("rounds", "%d", len(s.plans))
	for _, p := range s.plans {
		r := fmt.Sprintf("round %d ", p.Index+1)
		add(r+"name", "%s", p.Name)
		add(r+"map", "%s", p.Map)
		add(r+"mode", "%s", p.Mode)
		add(r+"duration", "%v", p.Duration)
		add(r+"warm-up", "%v", p.Warmup)
		add(r+"ready", "%v", p.Ready)
		add(r+"interval", "%v", p.Interval)
		add(r+"technique", "%s", p.Technique.Name)
		add(r+"weapons", "%s", strings.Join(p.Weapons, ", "))
		for i, l := range p.Links {
			add(fmt.Sprintf("%sseat %d link", r, i), "%v ms latency, %v ms jitter, %v loss", l.LatencyMS, l.JitterMS, l.Loss)
			if l.TargetRTTMS > 0 {
				// Only a held link has this key: the keys of the others stay
				// as they were.
				add(fmt.Sprintf("%sseat %d target", r, i), "%v ms round trip", l.TargetRTTMS)
			}
		}
	}
	if c := s.Counterbalance; c != nil {
		// Only a counterbalanced schedule has these: the keys of the
		// others stay as they were.
		add("counterbalance design", "%s", c.Design)
		add("counterbalance techniques", "%s", strings.Join(c.Techniques, ", "))
		add("counterbalance seed", "%d", c.Seed)
		add("counterbalance group", "%d", s.group)
	}
	add("questions", "%d", len(s.Questions))
	for i, q := range s.Questions {
		add(fmt.Sprintf("question %d", i+1), "%s", q.setting())
	}
	// Only a schedule with instruments has these: the keys of the others
	// stay as they were.
	if s.Consent != nil {
		add("consent", "%s (%s)", s.Consent.Text, s.Consent.Agree)
	}
	for _, l := range []struct {
		label string
		qs    []Question
	}{{"intake", s.Intake}, {"final", s.Final}} {
		if len(l.qs) > 0 {
			add(l.label+" questions", "%d", len(l.qs))
		}
		for i, q := range l.qs {
			add(fmt.Sprintf("%s %d", l.label, i+1), "%s", q.setting())
		}
	}
	if s.Exclusion != nil {
		// Only a schedule with exclusion rules has these: the keys of
		// the others stay as they were.
		out = append(out, s.Exclusion.settings()...)
	}
	return out
}

// setting writes q as settings lists it: its id, kind and text, and
// its range, choices and anchors where the kind takes them.
func (q *Question) setting() string {
	out := fmt.Sprintf("%s (%s): %s", q.ID, q.Kind, q.Text)
	if q.Min != nil && q.Max != nil {
		out += fmt.Sprintf("; %d to %d", *q.Min, *q.Max)
	}
	if len(q.Choices) > 0 {
		out += "; choices " + strings.Join(q.Choices, " | ")
	}
	if len(q.Anchors) > 0 {
		out += "; anchors " + strings.Join(q.Anchors, " | ")
	}
	// Only when set, so that the keys of studies stored before checks
	// existed stay theirs.
	if q.Check != "" {
		out += "; check " + q.Check
	}
	if q.Correct != nil {
		out += fmt.Sprintf("; correct %d", *q.Correct)
	}
	return out
}

// Key identifies what the schedule sets, as Differences compares it:
// the SHA-256, in hex, of its settings in a canonical JSON form. Two
// files that differ only in comments, spacing or the order of their keys
// have the same key.
func (s *Schedule) Key() string {
	b, err := json.Marshal(s.settings())
	if err != nil {
		panic(err) // strings only
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Differences lists what now sets differently from was, one line each,
// as "round 2 duration: 30s stored, 1m0s now"; none when they set the
// same (their Keys are equal).
func Differences(was, now *Schedule) []string {
	old, cur := was.settings(), now.settings()
	curBy := map[string]string{}
	for _, x := range cur {
		curBy[x.Label] = x.Value
	}
	oldBy := map[string]string{}
	var out []string
	for _, x := range old {
		oldBy[x.Label] = x.Value
		v, ok := curBy[x.Label]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s stored, absent now", x.Label, show(x.Value)))
		case v != x.Value:
			out = append(out, fmt.Sprintf("%s: %s stored, %s now", x.Label, show(x.Value), show(v)))
		}
	}
	for _, x := range cur {
		if _, ok := oldBy[x.Label]; !ok {
			out = append(out, fmt.Sprintf("%s: absent stored, %s now", x.Label, show(x.Value)))
		}
	}
	return out
}

// show writes a setting's value for a message: empty as "none".
func show(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// ParseAlike parses text, another version of s's file, as s was parsed:
// from s's path (which anchors the map and weapons files it names), and
// shortened as s was (Shorten), set for counterbalancing group (SetGroup;
// a file without counterbalancing takes 0).
func (s *Schedule) ParseAlike(text string, group int) (*Schedule, error) {
	o, err := Parse(s.path, []byte(text))
	if err != nil {
		return nil, err
	}
	if o.Counterbalance != nil || group != 0 {
		if err := o.SetGroup(group); err != nil {
			return nil, err
		}
	}
	if s.shortened > 0 {
		o.Shorten(s.shortened)
	}
	return o, nil
}

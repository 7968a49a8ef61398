package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/store"
)

// StudyKey identifies the study s's sessions belong to: the Key of what
// its file sets with the counterbalancing group at 0, so that the
// sessions of every group of one schedule have the same, whether the
// group came from --group or the file's own group line, and a --quick
// run's shortened rounds do not change it.
func (s *Schedule) StudyKey() string {
	o, err := s.studyForm(s.Text())
	if err != nil {
		return s.Key()
	}
	return o.Key()
}

// studyForm parses text, another version of s's file, at group 0.
func (s *Schedule) studyForm(text string) (*Schedule, error) {
	o, err := Parse(s.path, []byte(text))
	if err != nil {
		return nil, err
	}
	if o.Counterbalance != nil {
		if err := o.SetGroup(0); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Join says which study a new session of a schedule joins: study run's
// --study and --new-study.
type Join struct {
	// Study names the study: its id, or its name when exactly one study
	// of that name ran the schedule. Empty: the study of the schedule's
	// name that ran it, if there is one.
	Study string
	// New starts a new study even when one of the name and schedule
	// exists.
	New bool
}

// Target returns the study a new session of s (simulated: a pilot on
// the simulation driver) joins: j.Study's, or with j.Study empty the one
// study of s's name and kind that ran s's schedule (the group aside).
// It returns a StudySet with ID 0 when the session starts a new study:
// with j.New, or when no study of the name and kind exists. A study of
// another schedule is refused with what differs, as is a name several
// studies of the schedule share, with their ids.
func (j Join) Target(ctx context.Context, db *store.DB, s *Schedule, simulated bool) (store.StudySet, error) {
	if j.New {
		if j.Study != "" {
			return store.StudySet{}, fmt.Errorf("study %s: --new-study starts a new study; --study %s joins one: give one of them", s.Name, j.Study)
		}
		return store.StudySet{}, nil
	}
	sets, err := db.StudySets(ctx)
	if err != nil {
		return store.StudySet{}, err
	}
	if id, err := strconv.ParseInt(j.Study, 10, 64); err == nil {
		for _, set := range sets {
			if set.ID == id {
				return set, s.joins(set, simulated)
			}
		}
	}
	name := j.Study
	if name == "" {
		name = s.Name
	}
	var named, same []store.StudySet
	for _, set := range sets {
		if set.Name != name || set.Simulated != simulated {
			continue
		}
		named = append(named, set)
		if s.joins(set, simulated) == nil {
			same = append(same, set)
		}
	}
	switch {
	case len(same) == 1:
		return same[0], nil
	case len(same) > 1:
		return store.StudySet{}, fmt.Errorf("study %s: %d %s studies named %q ran this schedule: %s; give --study the id of the one this session joins, or --new-study to start another",
			s.Name, len(same), kindOf(simulated), name, store.DescribeSets(same))
	case len(named) > 0:
		// The newest of the name says what differs.
		return store.StudySet{}, fmt.Errorf("%w; run this session with the schedule that study ran to join it, or give --new-study to start a separate study of this name",
			s.joins(named[len(named)-1], simulated))
	case j.Study != "":
		known := "the database holds no study"
		if len(sets) > 0 {
			known = "known: " + store.DescribeSets(sets)
		}
		return store.StudySet{}, fmt.Errorf("study %s: --study %s: no %s study of that id or name (%s)", s.Name, j.Study, kindOf(simulated), known)
	}
	return store.StudySet{}, nil
}

func kindOf(simulated bool) string {
	if simulated {
		return "simulated"
	}
	return "live"
}

// joins reports why a session of s (simulated or live) cannot join
// study set: a study of the other kind, or of another schedule (what
// differs, the group aside); nil when it can.
func (s *Schedule) joins(set store.StudySet, simulated bool) error {
	if set.Simulated != simulated {
		return fmt.Errorf("study %s: study %d (%s) is %s, this session %s: pool pilots and live sessions apart (leave --study out to start a study of this session's kind)",
			s.Name, set.ID, set.Name, kindOf(set.Simulated), kindOf(simulated))
	}
	if set.Key != "" && set.Key == s.StudyKey() {
		return nil
	}
	if len(set.Sessions) == 0 {
		return fmt.Errorf("study %s: study %d (%s) has no session", s.Name, set.ID, set.Name)
	}
	first := set.Sessions[0]
	was, err := s.studyForm(first.Schedule)
	if err != nil {
		return fmt.Errorf("study %s: study %d (%s): its schedule no longer loads: %w", s.Name, set.ID, set.Name, err)
	}
	now, err := s.studyForm(s.Text())
	if err != nil {
		now = s
	}
	d := Differences(was, now)
	if len(d) == 0 {
		return nil
	}
	more := ""
	if len(d) > maxDifferences {
		d, more = d[:maxDifferences], fmt.Sprintf("; and %d more", len(d)-maxDifferences)
	}
	return fmt.Errorf("study %s: study %d (%s) ran another schedule than this one: %s%s", s.Name, set.ID, set.Name, strings.Join(d, "; "), more)
}

// maxDifferences bounds the differences an error lists.
const maxDifferences = 8

// SessionNote says where writer w stored a session that joined target
// (ID 0: a new study): "session 3 of study 2 (its 2nd session)" or
// "session 3, the first of new study 2".
func SessionNote(target store.StudySet, w *store.Writer) string {
	if target.ID == 0 {
		return fmt.Sprintf("session %d, the first of new study %d", w.StudyID(), w.SetID())
	}
	return fmt.Sprintf("session %d of study %d (its session %d)", w.StudyID(), w.SetID(), len(target.Sessions)+1)
}

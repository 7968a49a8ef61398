package live

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// ErrNothingToResume is returned by ResumeFrom for a database that holds
// no unfinished live run of the schedule.
var ErrNothingToResume = errors.New("live: the database holds no unfinished live run of this schedule")

// Stored is a live study found in a database: its id, where it stopped,
// and its participants' codes.
type Stored struct {
	ID     int64
	Resume *Resume
	Codes  map[int]string
}

// ScheduleChangedError is returned by ResumeFrom when the newest live
// run of a study by the schedule's name stopped unfinished under a
// schedule that sets other things: resuming it under this one would mix
// two designs in one study.
type ScheduleChangedError struct {
	ID   int64
	Name string
	// Differences lists what differs ("round 2 duration: 30s stored, 1m0s
	// now"); Err, when set, is why the stored schedule no longer loads.
	Differences []string
	Err         error
}

// maxDifferences bounds the differences an error lists.
const maxDifferences = 8

func (e *ScheduleChangedError) Error() string {
	var what string
	if e.Err != nil {
		what = fmt.Sprintf("its stored schedule no longer loads (%v) and its text differs from this one", e.Err)
	} else {
		d := e.Differences
		more := ""
		if len(d) > maxDifferences {
			d, more = d[:maxDifferences], fmt.Sprintf("; and %d more", len(d)-maxDifferences)
		}
		what = "this schedule differs from the stored one: " + strings.Join(d, "; ") + more
	}
	return fmt.Sprintf("live: study %d (%s) stopped unfinished, but %s. Run it with the schedule it was started with to resume it, or give --fresh to start a new study",
		e.ID, e.Name, what)
}

// ResumeFrom finds the newest live run of schedule s in db (the same
// name, and a schedule that sets the same: the same text or Key, or a
// stored text that parses to the same settings, so that a comment or a
// reordered table changes nothing) that has rounds left, and where it
// stopped: in the first round that has not ended, after Elapsed of it,
// each seat's statistics in it counted from its committed kills and
// shots; or at the round after the last that ended, with the
// questionnaire after that round when some who played it had not
// answered. A study that played every round but stopped before its last
// questionnaire was answered is resumed too: its Resume.Round is then the
// number of rounds, and the resumed study puts that questionnaire again
// and ends. Participant codes are those the stored rounds gave their
// seats.
//
// When the newest live run by s's name stopped unfinished under a
// schedule that sets other things, ResumeFrom returns a
// *ScheduleChangedError saying what differs.
func ResumeFrom(ctx context.Context, db *store.DB, s *study.Schedule) (Stored, error) {
	return resumeFrom(ctx, db, s, 0)
}

// resumeFrom is ResumeFrom among the sessions of study set (0: of any
// study). A resumed session stays in its study.
func resumeFrom(ctx context.Context, db *store.DB, s *study.Schedule, set int64) (Stored, error) {
	all, err := db.Studies(ctx)
	if err != nil {
		return Stored{}, err
	}
	key := s.Key()
	var changed error
	for i := len(all) - 1; i >= 0; i-- {
		st := all[i]
		if st.Simulated || st.Name != s.Name || (set != 0 && st.Set != set) {
			continue
		}
		was, diffs, perr := s, []string(nil), error(nil)
		if (st.Schedule != s.Text() || st.Group != s.Group()) && (st.ScheduleKey == "" || st.ScheduleKey != key) {
			if was, perr = s.ParseAlike(st.Schedule, st.Group); perr == nil {
				diffs = study.Differences(was, s)
			} else {
				was = s // its rounds and questions, as far as they tell
			}
		}
		r, done, err := position(ctx, db, st.ID, was)
		if err != nil {
			return Stored{}, err
		}
		if perr != nil || len(diffs) > 0 {
			if !done && changed == nil {
				changed = &ScheduleChangedError{ID: st.ID, Name: st.Name, Differences: diffs, Err: perr}
			}
			continue
		}
		if changed != nil {
			return Stored{}, changed
		}
		if done {
			return Stored{}, fmt.Errorf("%w: study %d (%s) played every round", ErrNothingToResume, st.ID, st.Name)
		}
		out := Stored{ID: st.ID, Resume: r, Codes: map[int]string{}}
		if r.Crashed, err = crashed(ctx, db, st.ID); err != nil {
			return Stored{}, err
		}
		parts, err := store.All[record.Participant](ctx, db, st.ID)
		if err != nil {
			return Stored{}, err
		}
		team := map[int]int{}
		for _, p := range parts {
			if p.Code != "" {
				out.Codes[p.Seat] = p.Code
			}
			if p.StandIn && !p.Bot {
				// The round its person left: a bot plays the seat on.
				if r.Left == nil {
					r.Left = map[int]string{}
				}
				r.Left[p.Seat] = fmt.Sprintf("left mid-match (round %d of %d)", p.Round+1, len(was.Plans()))
			}
			if p.Round == r.Round {
				team[p.Seat] = p.Team
			}
		}
		if r.Tallies, err = tallies(ctx, db, st.ID, r.Round, team); err != nil {
			return Stored{}, err
		}
		if r.Consented, r.Intake, err = instruments(ctx, db, st.ID); err != nil {
			return Stored{}, err
		}
		return out, nil
	}
	if changed != nil {
		return Stored{}, changed
	}
	return Stored{}, ErrNothingToResume
}

// crashed reports whether the last run of study id ended without a
// stop: its event log holds no stop after its last resume (a study
// stored before lagkit kept events has none, and counts as crashed).
func crashed(ctx context.Context, db *store.DB, id int64) (bool, error) {
	stopped := false
	err := store.Each(ctx, db, id, func(e record.Event) error {
		switch e.Kind {
		case record.EventStop:
			stopped = true
		case record.EventResumed:
			stopped = false
		}
		return nil
	})
	return !stopped, err
}

// position finds where study id, run under schedule s, stopped (see
// ResumeFrom), and reports whether it is done: every round played and
// every questionnaire answered.
func position(ctx context.Context, db *store.DB, id int64, s *study.Schedule) (*Resume, bool, error) {
	rounds, err := db.Rounds(ctx, id)
	if err != nil {
		return nil, false, err
	}
	r := &Resume{Round: 0}
	inRound := false
	for _, rs := range rounds {
		if rs.Ended.IsZero() {
			r.Round, r.Elapsed, r.Started = rs.Index, rs.Elapsed, rs.Started
			inRound = true
			break
		}
		r.Round = rs.Index + 1
	}
	if !inRound && r.Round > 0 && len(s.QuestionsAfter(r.Round-1)) > 0 {
		// Stopped after a round: during its questionnaire (with the
		// final questions after the last) or the interval after it.
		if r.Questions, err = unanswered(ctx, db, id, r.Round-1, s.QuestionsAfter(r.Round-1)); err != nil {
			return nil, false, err
		}
	}
	return r, r.Round >= len(s.Plans()) && r.Questions == nil, nil
}

// unanswered finds who has not answered the questionnaire after round:
// the people's seats connected in the round whose stored answers miss
// some of qs. It returns nil when everyone answered.
func unanswered(ctx context.Context, db *store.DB, id int64, round int, qs []study.Question) (*Unanswered, error) {
	person := map[int]bool{}
	err := store.Each(ctx, db, id, func(p record.Participant) error {
		if p.Round == round && !p.Bot {
			person[p.Seat] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	played := map[int]bool{}
	err = store.Each(ctx, db, id, func(s record.Session) error {
		if s.Round == round && s.Kind == record.Connect && person[s.Seat] {
			played[s.Seat] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	done := map[int]map[string]bool{}
	err = store.Each(ctx, db, id, func(a record.Answer) error {
		if a.Round == round && played[a.Seat] {
			if done[a.Seat] == nil {
				done[a.Seat] = map[string]bool{}
			}
			done[a.Seat][a.Question] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	u := &Unanswered{Round: round, Seats: map[int]map[string]bool{}}
	for seat := range played {
		for _, q := range qs {
			if !done[seat][q.ID] {
				u.Seats[seat] = done[seat]
				break
			}
		}
	}
	if len(u.Seats) == 0 {
		return nil, nil
	}
	return u, nil
}

// instruments reads which seats of study id agreed to the consent text
// and which intake questions each answered.
func instruments(ctx context.Context, db *store.DB, id int64) (map[int]bool, map[int]map[string]bool, error) {
	consented := map[int]bool{}
	err := store.Each(ctx, db, id, func(c record.Client) error {
		if c.Consented {
			consented[c.Seat] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	intake := map[int]map[string]bool{}
	err = store.Each(ctx, db, id, func(a record.Answer) error {
		if a.Stage == record.StageIntake {
			if intake[a.Seat] == nil {
				intake[a.Seat] = map[string]bool{}
			}
			intake[a.Seat][a.Question] = true
		}
		return nil
	})
	return consented, intake, err
}

// tallies counts each seat's statistics in round from its committed
// kills, objectives and shots; team gives the seats' teams, to tell a team kill.
func tallies(ctx context.Context, db *store.DB, id int64, round int, team map[int]int) (map[int]server.Tally, error) {
	out := map[int]server.Tally{}
	teamRound := isTeamRound(team)
	add := func(seat int, f func(*server.Tally)) {
		if seat >= 0 {
			t := out[seat]
			f(&t)
			out[seat] = t
		}
	}
	err := store.Each(ctx, db, id, func(k record.Kill) error {
		if k.Round != round {
			return nil
		}
		add(k.Victim, func(t *server.Tally) { t.Deaths++ })
		add(k.Killer, func(t *server.Tally) {
			// As the server counts: a kill for any other player, a point
			// for an enemy, a point off for oneself or a team-mate.
			if k.Killer != k.Victim {
				t.Kills++
			}
			if k.Killer == k.Victim || (teamRound && team[k.Killer] == team[k.Victim]) {
				t.Score--
			} else {
				t.Score++
			}
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Objectives score as the mode scores them: a point's capture has a
	// record for each team-mate it scored for.
	err = store.Each(ctx, db, id, func(o record.Objective) error {
		if o.Round != round {
			return nil
		}
		switch o.Kind {
		case mode.FlagReturned.String():
			add(o.Seat, func(t *server.Tally) { t.Score += mode.ReturnScore })
		case mode.FlagCaptured.String():
			add(o.Seat, func(t *server.Tally) { t.Score += mode.CaptureScore })
		case mode.PointCaptured.String():
			add(o.Seat, func(t *server.Tally) { t.Score += mode.PointCaptureScore })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = store.Each(ctx, db, id, func(s record.Shot) error {
		if s.Round != round {
			return nil
		}
		add(s.Shooter, func(t *server.Tally) {
			t.Shots++
			if s.Registered && s.Victim >= 0 {
				t.Hits++
			}
		})
		if s.Registered {
			add(s.Victim, func(t *server.Tally) { t.HitsTaken++ })
		}
		return nil
	})
	return out, err
}

// isTeamRound reports whether the seats played on two teams.
func isTeamRound(team map[int]int) bool {
	for _, t := range team {
		if t == 1 {
			return true
		}
	}
	return false
}

package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// SessionInfo is one session of a study pooled over its sessions (each
// session one study run, one counterbalancing group): where its rounds
// and seats fall in the pooled report. A pooled report numbers rounds
// and seats on from the sessions before (session 2's round 1 follows
// session 1's last round), so that every participant is one seat and
// every round one round; study_participant_rounds.csv gives each row's
// session, group and the round and seat as its session numbers them.
type SessionInfo struct {
	// Study is the session's id in the database.
	Study   int64  `json:"study"`
	Session int    `json:"session"`
	Design  string `json:"design"`
	Group   int    `json:"group"`
	// FirstRound and FirstSeat are the pooled index of its first round
	// and seat (from 0); Rounds and Seats how many it has.
	FirstRound int  `json:"first_round"`
	Rounds     int  `json:"rounds"`
	FirstSeat  int  `json:"first_seat"`
	Seats      int  `json:"seats"`
	Simulated  bool `json:"simulated"`
}

// sessionOf returns the session holding pooled seat (and its own seat
// number), or false in an unpooled report.
func (r *Report) sessionOf(seat int) (SessionInfo, int, bool) {
	for _, s := range r.Sessions {
		if seat >= s.FirstSeat && seat < s.FirstSeat+s.Seats {
			return s, seat - s.FirstSeat, true
		}
	}
	return SessionInfo{}, seat, false
}

// Sessions returns the sessions of the study ref names (its study id,
// or its name when exactly one study has that name), oldest first: the
// sessions that joined it, one per counterbalancing group. Two studies
// that share a name are two studies.
func Sessions(ctx context.Context, db *store.DB, ref string) ([]store.StudyRow, error) {
	set, err := db.FindStudySet(ctx, ref)
	if err != nil {
		return nil, err
	}
	if len(set.Sessions) == 0 {
		return nil, fmt.Errorf("study: study %d (%s) has no session", set.ID, set.Name)
	}
	return set.Sessions, nil
}

// CheckSessions refuses sessions that cannot be pooled into one study:
// sessions of two studies, another simulation flag, or a schedule that
// sets something else than the first session's besides the
// counterbalancing group.
func CheckSessions(rows []store.StudyRow) error {
	if len(rows) < 2 {
		return nil
	}
	for i, r := range rows[1:] {
		if r.Set != rows[0].Set {
			return fmt.Errorf("study: session %d (id %d) belongs to study %d, session 1 (id %d) to study %d: pool one study's sessions",
				i+2, r.ID, r.Set, rows[0].ID, rows[0].Set)
		}
	}
	first, err := Parse("session.toml", []byte(rows[0].Schedule))
	if err != nil {
		return fmt.Errorf("study: session %d (id %d): its schedule: %w", 1, rows[0].ID, err)
	}
	for i, r := range rows[1:] {
		if r.Simulated != rows[0].Simulated {
			return fmt.Errorf("study: session %d (id %d) is %s, session 1 (id %d) is not: pool pilots and live sessions apart",
				i+2, r.ID, map[bool]string{true: "simulated", false: "live"}[r.Simulated], rows[0].ID)
		}
		s, err := Parse("session.toml", []byte(r.Schedule))
		if err != nil {
			return fmt.Errorf("study: session %d (id %d): its schedule: %w", i+2, r.ID, err)
		}
		if s.Design() != "" {
			if err := s.SetGroup(first.Group()); err != nil {
				return fmt.Errorf("study: session %d (id %d): %w", i+2, r.ID, err)
			}
		}
		if d := Differences(first, s); len(d) > 0 {
			return fmt.Errorf("study: session %d (id %d) ran another schedule than session 1 (id %d): %s",
				i+2, r.ID, rows[0].ID, strings.Join(d, "; "))
		}
	}
	return nil
}

// ReadPooled builds one report of a study's sessions (Sessions): every
// session's records in one Summariser, its rounds and seats numbered on
// from the sessions before, so that the paired tests, intervals and
// tables are over every session's participants. One session gives
// ReadReport's report with its session named. The schedule's exclusion
// rules, if any, are applied (Report.Exclusions).
func ReadPooled(ctx context.Context, db *store.DB, rows []store.StudyRow) (*Report, error) {
	rep, err := readPooled(ctx, db, rows, nil)
	if err != nil {
		return nil, err
	}
	return rep.applyExclusions(func(exclude map[int]bool) (*Report, error) { return readPooled(ctx, db, rows, exclude) })
}

// readPooled is ReadPooled with the seats of exclude left out of the
// participants.
func readPooled(ctx context.Context, db *store.DB, rows []store.StudyRow, exclude map[int]bool) (*Report, error) {
	if len(rows) == 1 {
		// One run: the report it wrote as it played, read back.
		return readReport(ctx, db, rows[0], exclude)
	}
	if err := CheckSessions(rows); err != nil {
		return nil, err
	}
	sum := Summariser{exclude: exclude}
	var sessions []SessionInfo
	round, seat := 0, 0
	for k, row := range rows {
		s, err := Parse("session.toml", []byte(row.Schedule))
		nr, ns := MaxRounds, MaxSeats
		if err == nil {
			nr, ns = len(s.Plans()), len(s.Seats())
		}
		si := SessionInfo{Study: row.ID, Session: k + 1, Design: row.Design, Group: row.Group, FirstRound: round, Rounds: nr,
			FirstSeat: seat, Seats: ns, Simulated: row.Simulated}
		if k == 0 {
			sum.Put(row.Study)
		} else {
			sum.extend(row.Schedule, round, seat)
		}
		put := func(r record.Record) error {
			sum.Put(shift(r, round, seat))
			return nil
		}
		if err := readInto(ctx, db, row, put); err != nil {
			return nil, err
		}
		sessions = append(sessions, si)
		round, seat = round+nr, seat+ns
	}
	rep, err := sum.Report()
	if err != nil {
		return nil, err
	}
	rep.Sessions = sessions
	rep.StudyID = rows[0].Set
	seed, _ := strconv.ParseUint(rep.Seed, 10, 64)
	rep.Design, rep.Effects = rep.crossover(seed)
	if len(rows) > 1 {
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = strconv.FormatInt(r.ID, 10)
		}
		rep.Run.Timeline, rep.Run.WallS = nil, 0
		for _, row := range rows {
			one, err := ReadReport(ctx, db, row)
			if err != nil {
				return nil, err
			}
			for _, e := range one.Run.Timeline {
				e.Detail = strings.TrimSpace(fmt.Sprintf("session %d (id %d) %s", sessionNumber(rows, row.ID), row.ID, e.Detail))
				rep.Run.Timeline = append(rep.Run.Timeline, e)
			}
			rep.Run.WallS += one.Run.WallS
		}
	}
	return rep, nil
}

func sessionNumber(rows []store.StudyRow, id int64) int {
	for i, r := range rows {
		if r.ID == id {
			return i + 1
		}
	}
	return 0
}

// extend adds a later session's schedule to what the Summariser knows:
// its rounds' techniques and its seats meant for people, at their
// pooled numbers.
func (s *Summariser) extend(schedule string, round, seat int) {
	info := readScheduleInfo(schedule)
	for len(s.sched.rounds) < round {
		s.sched.rounds = append(s.sched.rounds, "")
	}
	s.sched.rounds = append(s.sched.rounds[:round], info.rounds...)
	if info.participant != nil {
		if s.sched.participant == nil {
			s.sched.participant = map[int]bool{}
		}
		for k, v := range info.participant {
			s.sched.participant[k+seat] = v
		}
	}
	for k, v := range info.settings {
		s.sched.settings[k] = v
	}
	for k, v := range info.names {
		if _, ok := s.sched.names[k]; !ok {
			s.sched.names[k] = v
		}
	}
}

// shift renumbers a session's record into the pooled study: rounds on
// by round, seats on by seat (no seat, -1, stays -1; an intake answer's
// round, -1, stays -1).
func shift(r record.Record, round, seat int) record.Record {
	if round == 0 && seat == 0 {
		return r
	}
	rd := func(i int) int {
		if i < 0 {
			return i
		}
		return i + round
	}
	st := func(i int) int {
		if i < 0 {
			return i
		}
		return i + seat
	}
	switch v := r.(type) {
	case record.Round:
		v.Index = rd(v.Index)
		return v
	case record.Participant:
		v.Round, v.Seat = rd(v.Round), st(v.Seat)
		return v
	case record.Shot:
		v.Round, v.Shooter, v.Victim = rd(v.Round), st(v.Shooter), st(v.Victim)
		return v
	case record.Kill:
		v.Round, v.Killer, v.Victim = rd(v.Round), st(v.Killer), st(v.Victim)
		return v
	case record.SBCReport:
		v.Round, v.Reporter, v.Shooter = rd(v.Round), st(v.Reporter), st(v.Shooter)
		return v
	case record.Duel:
		v.Round, v.A, v.B, v.FirstHit, v.Killer, v.First = rd(v.Round), st(v.A), st(v.B), st(v.FirstHit), st(v.Killer), st(v.First)
		return v
	case record.Answer:
		v.Round, v.Seat = rd(v.Round), st(v.Seat)
		return v
	case record.Client:
		v.Round, v.Seat = rd(v.Round), st(v.Seat)
		return v
	case record.SeatOrder:
		v.Seat = st(v.Seat)
		return v
	case record.Network:
		v.Round, v.Seat = rd(v.Round), st(v.Seat)
		return v
	case record.Frames:
		v.Round, v.Seat = rd(v.Round), st(v.Seat)
		return v
	case record.Event:
		v.Round = rd(v.Round)
		return v
	}
	return r
}

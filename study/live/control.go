package live

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/study"
)

// The study.Control side of the driver: what the admin and
// questionnaire pages see and do.

var _ study.Control = (*Driver)(nil)

// pageOnline is how recently a page must have polled the study's status
// to count as online between rounds (it polls every 500 ms).
const pageOnline = 2 * time.Second

// State describes the study now.
func (d *Driver) State() study.LiveState {
	d.mu.Lock()
	st := study.LiveState{Study: d.cfg.Schedule.Name, Phase: d.phase, Rounds: len(d.cfg.Schedule.Plans())}
	p, m, deadline, playEnd, q, last, resume := d.plan, d.match, d.deadline, d.playEnd, d.quest, d.last, d.resume
	online := map[int]bool{}
	for seat, at := range d.seen {
		online[seat] = time.Since(at) < pageOnline
	}
	left := maps.Clone(d.left)
	answered := map[int]bool{}
	if q != nil {
		for s := range q.answered {
			answered[s] = true
		}
	}
	d.mu.Unlock()
	if p == nil {
		p = d.cfg.Schedule.Plans()[0]
		if resume != nil {
			p = d.cfg.Schedule.Plans()[min(resume.Round, len(d.cfg.Schedule.Plans())-1)]
		}
	}
	st.Round, st.RoundName, st.Technique, st.Map, st.Mode = p.Index, p.Name, p.Technique.Name, p.Map, string(p.Mode)
	if !deadline.IsZero() {
		st.Remaining = study.Duration(max(time.Until(deadline), 0))
	}
	st.Seats = make([]study.SeatState, len(d.seats))
	for i := range d.seats {
		t := last[i]
		st.Seats[i] = study.SeatState{Seat: i, Code: d.codes[i], Bot: d.botPlays(i), Answered: answered[i], Kills: t.Kills, Deaths: t.Deaths,
			Connected: online[i], Left: left[i], LeftCode: left[i] != "" && d.leftCode()}
	}
	if m != nil {
		select {
		case <-m.Done():
			m = nil // the round is over, its match ending
		default:
		}
	}
	if m == nil {
		return st // between rounds: the last round's statistics
	}
	st.Match = m.ID()
	if (st.Phase == study.PhasePlaying || st.Phase == study.PhasePaused) && playEnd > 0 {
		if play, err := m.PlayTime(); err == nil {
			st.Remaining = study.Duration(max(playEnd-play, 0))
		}
	}
	info, err := m.Info()
	if err != nil {
		return st
	}
	// In a round, online is in its match.
	for i := range st.Seats {
		st.Seats[i].Connected = false
	}
	for _, pl := range info.Players {
		if pl.Seat < 0 || pl.Seat >= len(st.Seats) {
			continue
		}
		ss := &st.Seats[pl.Seat]
		ss.Connected, ss.Team, ss.Kills, ss.Deaths, ss.RTTms = true, pl.Team, pl.Kills, pl.Deaths, pl.RTTms
	}
	team := teams(p, len(d.seats))
	for i := range st.Seats {
		ss := &st.Seats[i]
		if ss.Connected {
			continue
		}
		ss.Team, ss.Kills, ss.Deaths = team[i], 0, 0
		if t, ok, err := m.Tally(d.playerName(i)); err == nil && ok {
			ss.Kills, ss.Deaths = t.Kills, t.Deaths
		}
	}
	return st
}

// Command runs an admin command, and puts it in the study's event log
// when it was carried out.
func (d *Driver) Command(c study.Command) error {
	err := d.command(c)
	if err == nil {
		detail := ""
		if c.Action == study.ActionExtend {
			detail = "by " + time.Duration(c.Extend).String()
		}
		d.event(c.Action, detail)
	}
	return err
}

func (d *Driver) command(c study.Command) error {
	d.mu.Lock()
	phase, m := d.phase, d.match
	d.mu.Unlock()
	if closed(phase) {
		return study.ErrEnded
	}
	switch c.Action {
	case study.ActionStart:
		if phase != study.PhaseWaiting {
			return fmt.Errorf("live: the study has already started (%s)", phase)
		}
		d.startOnce.Do(func() { close(d.started) })
		return nil
	case study.ActionPause:
		if m == nil || (phase != study.PhasePlaying && phase != study.PhaseWarmup) {
			return fmt.Errorf("live: nothing to pause in phase %s", phase)
		}
		if err := m.Pause(); err != nil {
			return err
		}
		d.mu.Lock()
		d.before, d.phase = phase, study.PhasePaused
		d.mu.Unlock()
		return nil
	case study.ActionResume:
		if m == nil || phase != study.PhasePaused {
			return fmt.Errorf("live: the round is not paused (%s)", phase)
		}
		if err := m.Resume(); err != nil {
			return err
		}
		d.mu.Lock()
		d.phase, d.before = d.before, ""
		d.mu.Unlock()
		return nil
	case study.ActionSkip:
		if phase == study.PhasePaused && m != nil {
			if err := m.Resume(); err != nil {
				return err
			}
			d.mu.Lock()
			d.phase, d.before = d.before, ""
			d.mu.Unlock()
		}
		select {
		case d.skip <- struct{}{}:
		default: // a skip is already waiting
		}
		return nil
	case study.ActionExtend:
		ext := time.Duration(c.Extend)
		if ext <= 0 || ext > study.MaxExtend {
			return invalid("live: extend by %v, want more than 0 and at most %v", ext, study.MaxExtend)
		}
		if m == nil || (phase != study.PhasePlaying && phase != study.PhasePaused) {
			return fmt.Errorf("live: no round is being played to extend (%s)", phase)
		}
		d.mu.Lock()
		d.playEnd += ext
		end := d.playEnd
		d.mu.Unlock()
		return m.EndAt(end)
	case study.ActionEnd:
		d.mu.Lock()
		d.ending = true
		d.mu.Unlock()
		if phase == study.PhaseWaiting || phase == study.PhaseInterval || phase == study.PhaseQuestions {
			select {
			case d.skip <- struct{}{}:
			default:
			}
		}
		if phase == study.PhaseWaiting {
			d.startOnce.Do(func() { close(d.started) })
		}
		return nil
	}
	return invalid("live: unknown action %q, want one of start, pause, resume, skip, extend, end", c.Action)
}

// invalidError is a request that does not fit the study (an answer out of
// its question's range, an unknown command): it wraps study.ErrInvalid.
type invalidError string

func (e invalidError) Error() string { return string(e) }
func (invalidError) Unwrap() error   { return study.ErrInvalid }

// invalid returns an invalidError of the formatted message.
func invalid(format string, a ...any) error { return invalidError(fmt.Sprintf(format, a...)) }

// seatOf returns the seat whose participant code is code.
func (d *Driver) seatOf(code string) (int, error) {
	if i := slices.IndexFunc(d.codes, func(c string) bool { return study.SameCode(c, code) }); i >= 0 {
		return i, nil
	}
	return -1, study.ErrUnknownCode
}

// Join admits the participant holding code: a connect token for its
// seat in the round's match, or, between rounds, its seat alone (the
// page asks again when a round starts).
func (d *Driver) Join(code string) (study.Admission, error) {
	seat, err := d.seatOf(code)
	if err != nil {
		return study.Admission{}, err
	}
	d.mu.Lock()
	phase, m := d.phase, d.match
	agreed := d.consented[seat]
	left := d.left[seat]
	d.mu.Unlock()
	switch {
	case left != "":
		return study.Admission{}, study.ErrStoodIn
	case closed(phase):
		return study.Admission{}, study.ErrEnded
	case d.cfg.Schedule.Consent != nil && !agreed:
		return study.Admission{}, study.ErrNoConsent
	}
	a := study.Admission{Seat: seat, Name: fmt.Sprintf("player %d", seat+1), Phase: phase}
	if m == nil || phase == study.PhaseQuestions || phase == study.PhaseInterval {
		return a, nil
	}
	tok, err := d.cfg.Host.IssueToken(m.ID(), d.playerName(seat), d.cfg.TokenTTL)
	if err != nil {
		select {
		case <-m.Done():
			return a, nil // the round has just ended: the page asks again
		default:
		}
		if errors.Is(err, realtime.ErrEnded) {
			return a, nil // ending: a token would connect to nothing
		}
		return study.Admission{}, err
	}
	a.Match, a.Token = m.ID(), tok
	return a, nil
}

// Pending returns the questionnaire the participant holding code has
// yet to answer: the intake first (once the participant has agreed to
// the consent text, when there is one), then the questionnaire after
// the round.
func (d *Driver) Pending(code string) (study.Questionnaire, bool) {
	seat, err := d.seatOf(code)
	if err != nil {
		return study.Questionnaire{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// Every page asks this with its status: the page is online.
	d.seen[seat] = time.Now()
	if closed(d.phase) {
		return study.Questionnaire{}, false
	}
	if d.cfg.Schedule.Consent != nil && !d.consented[seat] {
		return study.Questionnaire{}, false
	}
	if qs := unasked(d.cfg.Schedule.Intake, d.intake[seat]); len(qs) > 0 {
		return study.Questionnaire{Round: study.IntakeRound, RoundName: "intake", Stage: record.StageIntake, Questions: qs}, true
	}
	q := d.quest
	if q == nil || !q.asked[seat] || q.answered[seat] {
		return study.Questionnaire{}, false
	}
	return study.Questionnaire{Round: q.round, RoundName: q.name, Stage: record.StageRound, Questions: q.pending(seat)}, true
}

// maxText bounds a free-text answer.
const maxText = 2000

// Answer records the participant's answers to the questionnaire after
// round: into the round's sink at once.
func (d *Driver) Answer(code string, round int, answers []study.Response) error {
	seat, err := d.seatOf(code)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if round == study.IntakeRound {
		return d.answerIntake(seat, answers)
	}
	q := d.quest
	switch {
	case q == nil || q.round != round || !q.asked[seat]:
		return study.ErrNoQuestions
	case q.answered[seat]:
		return study.ErrAnswered
	}
	recs, err := check(seat, answers, q.pending(seat))
	if err != nil {
		return err
	}
	q.answered[seat] = true
	for _, r := range recs {
		r.Round = round
		d.out.Put(r)
	}
	select {
	case q.changed <- struct{}{}:
	default:
	}
	return nil
}

// check checks answers against the questions qs: each question once,
// each answer within its question's range, and returns them as records
// (a choice's with the choice's text).
func check(seat int, answers []study.Response, qs []study.Question) ([]record.Answer, error) {
	byID := map[string]*study.Question{}
	for i := range qs {
		byID[qs[i].ID] = &qs[i]
	}
	seen := map[string]bool{}
	now := time.Now()
	out := make([]record.Answer, 0, len(answers))
	for i, a := range answers {
		q, ok := byID[a.Question]
		switch {
		case !ok:
			return nil, invalid("live: answer %d: no question %q", i, a.Question)
		case seen[a.Question]:
			return nil, invalid("live: answer %d: question %q answered twice", i, a.Question)
		}
		seen[a.Question] = true
		r := record.Answer{Seat: seat, Question: a.Question, Kind: q.Kind, Stage: q.Stage, At: now}
		if r.Stage == "" {
			r.Stage = record.StageRound
		}
		if q.Kind == record.Text {
			if len(a.Text) > maxText || !utf8.ValidString(a.Text) {
				return nil, invalid("live: answer to %q: want valid text of at most %d bytes", a.Question, maxText)
			}
			r.Text = a.Text
			out = append(out, r)
			continue
		}
		lo, hi := q.Bounds()
		if a.Value < lo || a.Value > hi {
			return nil, invalid("live: answer to %q (%s): %d, want %d to %d", a.Question, q.Kind, a.Value, lo, hi)
		}
		r.Value = a.Value
		if q.Kind == record.Choice {
			r.Text = q.Choices[a.Value]
		}
		out = append(out, r)
	}
	if len(seen) != len(qs) {
		return nil, invalid("live: %d of %d questions answered: answer each", len(seen), len(qs))
	}
	return out, nil
}

package web

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lagkit/lagkit/study"
)

// fakeStudy is a small study.Control for the web package's tests: seats
// with codes, the phases the admin's commands move it through, and a
// questionnaire after each round, its answers checked by kind. The live
// driver (package study/live) is the real one.
type fakeStudy struct {
	mu        sync.Mutex
	st        study.LiveState
	questions []study.Question
	pending   map[string]int // code: the round whose questionnaire waits
	answers   map[string][]study.Response
	commands  []study.Command
	readies   []string
	// issue returns a seat's connect token (nil: none).
	issue func(seat int, name string) ([]byte, error)
	// pause, when set, pauses (true) or resumes the round's match.
	pause func(on bool) error
}

var errStarted = errors.New("study: the study has already started")

func newFakeStudy(codes ...string) *fakeStudy {
	f := &fakeStudy{
		st: study.LiveState{
			Study: "pilot", Phase: study.PhaseWaiting, Rounds: 2, RoundName: "baseline", Technique: "tlc",
			Map: "arena", Mode: "tdm",
		},
		questions: []study.Question{
			{ID: "sbc", Text: "Were you shot behind cover?", Kind: "yesno"},
			{ID: "smooth", Text: "The game felt smooth.", Kind: "likert"},
			{ID: "fair", Text: "How fair was the round?", Kind: "fairness"},
			{ID: "notes", Text: "Anything else?", Kind: "text"},
		},
		pending: map[string]int{}, answers: map[string][]study.Response{},
	}
	for i, c := range codes {
		f.st.Seats = append(f.st.Seats, study.SeatState{Seat: i, Code: c, Team: i % 2})
	}
	f.st.Seats = append(f.st.Seats, study.SeatState{Seat: len(codes), Bot: true, Connected: true, Team: len(codes) % 2})
	return f
}

func (f *fakeStudy) State() study.LiveState {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.st
	st.Seats = slices.Clone(f.st.Seats)
	return st
}

// set changes the state under the lock.
func (f *fakeStudy) set(change func(st *study.LiveState)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.st)
}

func (f *fakeStudy) Command(c study.Command) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.commands = append(f.commands, c)
	st := &f.st
	switch {
	case st.Phase == study.PhaseEnded:
		return study.ErrEnded
	case c.Action == study.ActionStart && st.Phase != study.PhaseWaiting:
		return errStarted
	case c.Action == study.ActionStart, c.Action == study.ActionResume:
		st.Phase, st.Remaining = study.PhasePlaying, study.Duration(time.Minute)
		if c.Action == study.ActionResume && f.pause != nil {
			return f.pause(false)
		}
	case c.Action == study.ActionPause:
		st.Phase = study.PhasePaused
		if f.pause != nil {
			return f.pause(true)
		}
	case c.Action == study.ActionExtend:
		st.Remaining += c.Extend
	case c.Action == study.ActionSkip:
		st.Phase, st.Remaining = study.PhaseQuestions, study.Duration(2*time.Minute)
		for i := range st.Seats {
			if !st.Seats[i].Bot {
				f.pending[st.Seats[i].Code] = st.Round
				st.Seats[i].Answered = false
			}
		}
	case c.Action == study.ActionEnd:
		st.Phase = study.PhaseEnded
	}
	return nil
}

func (f *fakeStudy) seat(code string) (int, bool) {
	for i, s := range f.st.Seats {
		if !s.Bot && study.SameCode(s.Code, code) {
			return i, true
		}
	}
	return 0, false
}

func (f *fakeStudy) Join(code string) (study.Admission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := f.seat(code)
	switch {
	case !ok:
		return study.Admission{}, study.ErrUnknownCode
	case f.st.Phase == study.PhaseEnded:
		return study.Admission{}, study.ErrEnded
	}
	a := study.Admission{Seat: i, Name: "p" + code, Match: f.st.Match, Phase: f.st.Phase}
	if f.issue != nil && a.Match != "" {
		tok, err := f.issue(i, a.Name)
		if err != nil {
			return study.Admission{}, err
		}
		a.Token = tok
	}
	f.st.Seats[i].Connected = true
	return a, nil
}

func (f *fakeStudy) Pending(code string) (study.Questionnaire, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	round, ok := f.pending[code]
	if !ok {
		return study.Questionnaire{}, false
	}
	return study.Questionnaire{Round: round, RoundName: "baseline", Questions: f.questions}, true
}

func (f *fakeStudy) Answer(code string, round int, answers []study.Response) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := f.seat(code)
	if !ok {
		return study.ErrUnknownCode
	}
	if _, done := f.answers[code]; done && f.st.Seats[i].Answered {
		return study.ErrAnswered
	}
	want, ok := f.pending[code]
	if !ok || want != round {
		return study.ErrNoQuestions
	}
	kinds := map[string]string{}
	for _, q := range f.questions {
		kinds[q.ID] = q.Kind
	}
	for _, a := range answers {
		lo, hi := 0, 0
		switch kinds[a.Question] {
		case "yesno":
			lo, hi = 0, 1
		case "likert":
			lo, hi = 1, 5
		case "fairness":
			lo, hi = -5, 5
		case "text":
			continue
		default:
			return fmt.Errorf("no question %q: %w", a.Question, study.ErrInvalid)
		}
		if a.Value < lo || a.Value > hi {
			return fmt.Errorf("question %q: %d outside %d..%d: %w", a.Question, a.Value, lo, hi, study.ErrInvalid)
		}
	}
	f.answers[code] = answers
	delete(f.pending, code)
	f.st.Seats[i].Answered = true
	return nil
}

func (f *fakeStudy) Ready(code string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.seat(code); !ok {
		return study.ErrUnknownCode
	}
	if f.st.Phase != study.PhaseReady {
		return errors.New("study: no round is waiting for ready")
	}
	f.readies = append(f.readies, code)
	return nil
}

func (f *fakeStudy) answered(code string) []study.Response {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.answers[code]
}

func (f *fakeStudy) sent() []study.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.commands)
}

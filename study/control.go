package study

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Control is a live study as the pages see it: the admin page reads its
// State and sends it Commands, and a participant's page joins with the
// participant's code, then answers the questionnaire between rounds. The
// live driver implements it; package web serves it over HTTP.
// Every method is safe for concurrent use.
type Control interface {
	// State describes the study now. Codes are included: the admin page
	// is the only reader, behind the admin token.
	State() LiveState
	// Command runs an admin command: see the Action constants.
	Command(c Command) error
	// Join admits the participant holding code to the round being
	// played (or the next one): a connect token for its seat's match.
	// The same code joins again after a drop, to the same seat.
	Join(code string) (Admission, error)
	// Pending returns the questionnaire the participant holding code has
	// yet to answer, if any.
	Pending(code string) (Questionnaire, bool)
	// Answer records the participant's answers to the questionnaire
	// after round; each answer is checked against its question's kind.
	// Answering twice is refused (ErrAnswered).
	Answer(code string, round int, answers []Response) error
}

// Admin commands.
const (
	ActionStart  = "start"  // start the first round (the study waits for it)
	ActionPause  = "pause"  // freeze the round's clock and the players
	ActionResume = "resume" // undo pause
	ActionSkip   = "skip"   // end the round now and go on to the next
	ActionExtend = "extend" // lengthen the round being played by Command.Extend
	ActionEnd    = "end"    // end the study after the round being played
)

// Command is one admin command.
type Command struct {
	Action string `json:"action"`
	// Extend is how much longer the round runs (ActionExtend only).
	Extend Duration `json:"extend,omitempty"`
}

// Phases of a live study, as LiveState.Phase reads.
const (
	PhaseWaiting   = "waiting"   // before the admin starts the first round
	PhaseWarmup    = "warmup"    // the round's warm-up
	PhaseReady     = "ready"     // waiting for every seat to press ready
	PhaseCountdown = "countdown" // the 3-2-1 countdown
	PhasePlaying   = "playing"   // the measured part
	PhasePaused    = "paused"    // paused by the admin
	PhaseQuestions = "questions" // the questionnaire after a round
	PhaseInterval  = "interval"  // the interval between rounds
	PhaseEnded     = "ended"     // the study is over
	// PhaseStopped is a study stopped by a signal before its end: it is
	// not over, and the same command run again resumes it, so the pages
	// ask their participants to wait rather than thank them for taking
	// part.
	PhaseStopped = "stopped"
)

// LiveState is a live study now.
type LiveState struct {
	Study  string `json:"study"`
	Phase  string `json:"phase"`
	Round  int    `json:"round"` // index of the round being (or next) played
	Rounds int    `json:"rounds"`
	// RoundName and Technique describe round Round.
	RoundName string `json:"round_name"`
	Technique string `json:"technique"`
	Map       string `json:"map"`
	Mode      string `json:"mode"`
	// Remaining is the time left in the phase (0 when it has no end).
	Remaining Duration `json:"remaining"`
	// Match is the realtime match playing the round ("" between
	// rounds): a spectator joins it.
	Match string      `json:"match"`
	Seats []SeatState `json:"seats"`
}

// SeatState is one seat of a live study now.
type SeatState struct {
	Seat int    `json:"seat"`
	Code string `json:"code,omitempty"`
	Bot  bool   `json:"bot"`
	// Connected reports, while a round's match runs, a seat in it;
	// otherwise (before the first round, between rounds) a person's page
	// that polled the study within the last 2 s: the admin's "online".
	Connected bool    `json:"connected"`
	Team      int     `json:"team"`
	Kills     int     `json:"kills"`
	Deaths    int     `json:"deaths"`
	RTTms     float64 `json:"rtt_ms"`
	// Answered reports whether the seat has answered the questionnaire
	// of the last round played.
	Answered bool `json:"answered"`
	// Left says why a bot took this person's seat mid-session ("left
	// mid-match (round 2 of 4)"; "": none did), and LeftCode whether the
	// study gives the person a completion code for the part they played
	// (at its lobby's page).
	Left     string `json:"left,omitempty"`
	LeftCode bool   `json:"left_code,omitempty"`
}

// Admission is what a participant's page needs to join its seat.
type Admission struct {
	Seat  int    `json:"seat"`
	Name  string `json:"name"`
	Match string `json:"match"`
	// Token is the connect token for the seat's match (nil for a server
	// that wants none).
	Token []byte `json:"token"`
	// Phase is the study's phase: a page that joins during
	// PhaseQuestions shows the questionnaire first.
	Phase string `json:"phase"`
}

// Questionnaire is the questions put after one round, or the intake
// (Round IntakeRound, Stage record.StageIntake) put once before the
// first.
type Questionnaire struct {
	Round     int        `json:"round"`
	RoundName string     `json:"round_name"`
	Stage     string     `json:"stage"`
	Questions []Question `json:"questions"`
}

// IntakeRound is the round of the intake questionnaire and of its
// answers: before the first round.
const IntakeRound = -1

// Response is a participant's answer to one question: Value for yes/no
// (1 or 0), a scale (Likert 1 to 5 or 7, fairness -5 to 5, a scale's
// min to max), a number and a choice (its place from 0), Text for free
// text.
type Response struct {
	Question string `json:"question"`
	Value    int    `json:"value"`
	Text     string `json:"text,omitempty"`
}

// SameCode reports whether a participant typed code for seat's code:
// codes are compared ignoring case and surrounding spaces (a person
// reading "ab3k" aloud or typing it on a phone should not get "unknown
// code"). An empty code matches nothing. Every lookup of a code (the
// schedule's check for duplicates, the live driver, the pages) uses it.
func SameCode(seat, code string) bool {
	k := CodeKey(seat)
	return k != "" && k == CodeKey(code)
}

// CodeKey is the form of code that SameCode compares: two codes are the
// same exactly when their keys are equal.
func CodeKey(code string) string { return strings.ToUpper(strings.TrimSpace(code)) }

// Errors Control's methods return.
var (
	ErrUnknownCode = errors.New("study: no seat has this participant code")
	ErrAnswered    = errors.New("study: this questionnaire is already answered")
	ErrNoQuestions = errors.New("study: no questionnaire is waiting for this participant")
	ErrEnded       = errors.New("study: the study has ended")
	ErrNoConsent   = errors.New("study: the participant has not agreed to the study's consent text")
	ErrStoodIn     = errors.New("study: a bot has taken this seat for the rest of the study: its participant left mid-match and did not come back in time")
	// ErrInvalid is wrapped by the errors for answers that do not fit
	// their questions (a value out of range, an unknown question) and
	// commands that make no sense: the request, not the study's state,
	// is at fault.
	ErrInvalid = errors.New("study: invalid request")
)

// Readier is a Control whose rounds can wait for every seat to press
// ready (PhaseReady): a participant's page calls Ready for its seat.
type Readier interface {
	Ready(code string) error
}

// MaxExtend bounds one ActionExtend.
const MaxExtend = 30 * time.Minute

// ClientInfo is what a participant's page reports of its browser: the
// display's refresh rate it measured from its animation frames, its
// mouse sensitivity (radians per pixel ×1000), the user agent and the
// screen.
type ClientInfo struct {
	RefreshHz   float64 `json:"refresh_hz"`
	Sensitivity float64 `json:"mouse_sensitivity"`
	UserAgent   string  `json:"user_agent"`
	ScreenW     int     `json:"screen_w"`
	ScreenH     int     `json:"screen_h"`
	PixelRatio  float64 `json:"pixel_ratio"`
}

// Check refuses a report out of any browser's range (ErrInvalid).
func (c ClientInfo) Check() error {
	switch {
	case !(c.RefreshHz >= 0 && c.RefreshHz <= 1000):
		return fmt.Errorf("%w: refresh rate %v Hz, want 0 to 1000", ErrInvalid, c.RefreshHz)
	case !(c.Sensitivity >= 0 && c.Sensitivity <= 100):
		return fmt.Errorf("%w: mouse sensitivity %v, want 0 to 100", ErrInvalid, c.Sensitivity)
	case len(c.UserAgent) > 512 || !utf8.ValidString(c.UserAgent) || strings.IndexByte(c.UserAgent, 0) >= 0:
		return fmt.Errorf("%w: user agent: want valid text of at most 512 bytes", ErrInvalid)
	case c.ScreenW < 0 || c.ScreenW > 100000 || c.ScreenH < 0 || c.ScreenH > 100000:
		return fmt.Errorf("%w: screen %dx%d, want 0 to 100000 each way", ErrInvalid, c.ScreenW, c.ScreenH)
	case !(c.PixelRatio >= 0 && c.PixelRatio <= 16):
		return fmt.Errorf("%w: pixel ratio %v, want 0 to 16", ErrInvalid, c.PixelRatio)
	}
	return nil
}

// Consenter is a Control whose participants agree to a consent text
// before they play (Join refuses them until then with ErrNoConsent) and
// whose pages report their browsers. The live driver implements it.
type Consenter interface {
	// ConsentText returns the consent text and its button's label; ""
	// when the study has no consent screen.
	ConsentText() (text, agree string)
	// NeedsConsent reports whether the participant holding code has
	// yet to agree.
	NeedsConsent(code string) bool
	// Agree records the participant's agreement, with what its browser
	// reports.
	Agree(code string, c ClientInfo) error
	// ReportClient records what the participant's browser reports on
	// joining a round.
	ReportClient(code string, c ClientInfo) error
}

// FrameStats is how a participant's page drew one round's measured
// part: the frames drawn and the time between successive frames, in
// milliseconds.
type FrameStats struct {
	Round  int     `json:"round"`
	Frames int     `json:"frames"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
	// RTTMeanMS and RTTJitterMS sum up RTTSamples samples of the page's
	// own round-trip estimate through the round.
	RTTMeanMS   float64 `json:"rtt_mean_ms"`
	RTTJitterMS float64 `json:"rtt_jitter_ms"`
	RTTSamples  int     `json:"rtt_samples"`
}

// Check refuses figures no page draws (ErrInvalid): a negative count,
// times out of 0 to 60 s or out of order, a round trip out of 0 to 60 s
// or one given with no samples.
func (f FrameStats) Check() error {
	ok := func(v float64) bool { return v >= 0 && v <= 60000 }
	switch {
	case f.Frames < 0 || f.Frames > 100_000_000:
		return fmt.Errorf("%w: %d frames, want 0 to 100000000", ErrInvalid, f.Frames)
	case !ok(f.MeanMS) || !ok(f.P50MS) || !ok(f.P95MS) || !ok(f.P99MS) || !ok(f.MaxMS):
		return fmt.Errorf("%w: frame times want 0 to 60000 ms", ErrInvalid)
	case f.P50MS > f.P95MS || f.P95MS > f.P99MS || f.P99MS > f.MaxMS || f.MeanMS > f.MaxMS:
		return fmt.Errorf("%w: frame times want p50 <= p95 <= p99 <= max and mean <= max", ErrInvalid)
	case f.RTTSamples < 0 || f.RTTSamples > 100_000_000:
		return fmt.Errorf("%w: %d round-trip samples, want 0 to 100000000", ErrInvalid, f.RTTSamples)
	case !ok(f.RTTMeanMS) || !ok(f.RTTJitterMS):
		return fmt.Errorf("%w: round trip and jitter want 0 to 60000 ms", ErrInvalid)
	case f.RTTSamples == 0 && (f.RTTMeanMS != 0 || f.RTTJitterMS != 0):
		return fmt.Errorf("%w: a round trip of no samples", ErrInvalid)
	}
	return nil
}

// FrameReporter is a Control that keeps how each participant's page
// drew each round. The live driver implements it.
type FrameReporter interface {
	// ReportFrames records the page's frame times in round f.Round.
	ReportFrames(code string, f FrameStats) error
}

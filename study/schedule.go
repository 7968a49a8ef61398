// Package study runs user studies of latency compensation: a schedule
// file names the seats, the rounds with their map, mode, duration and
// technique, the latency injected on each seat and the questionnaire
// after each round; the runner plays the rounds in order on a driver and
// hands every observation to a record.Sink; the report sums the records
// up per round and per technique.
//
// The simulation driver (Simulate) plays every seat with bots on a
// virtual clock, so a study can be piloted before anyone is recruited.
package study

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/scaling"
)

// Duration is a length of time in a schedule: minutes and seconds as the
// ALC study's tool wrote them ([alc]) ("10:00", "0:50", at most "99:59"), or as
// Go writes durations ("10m", "50s", "1m30s").
type Duration time.Duration

// UnmarshalText reads "mm:ss" or a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	s := string(b)
	if m, sec, ok := strings.Cut(s, ":"); ok {
		mm, err1 := strconv.Atoi(m)
		ss, err2 := strconv.Atoi(sec)
		if err1 != nil || err2 != nil || mm < 0 || mm > 99 || ss < 0 || ss > 59 || len(sec) != 2 {
			return fmt.Errorf("duration %q: want minutes and seconds from 0:00 to 99:59, or a number with a unit such as 50s", s)
		}
		*d = Duration(time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: want minutes and seconds such as 10:00, or a number with a unit such as 50s", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as Go does ("10m0s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Schedule is a study's schedule file, checked: its seats, techniques,
// rounds and questionnaire.
type Schedule struct {
	// Name names the study in its records and report.
	Name string `toml:"name"`
	// BotSkill is the skill of every bot, 0 to 1 (default 0.5).
	BotSkill float64 `toml:"bot_skill"`
	// WeaponsFile is a weapons file (package weaponfile), relative to the
	// schedule, whose weapons the rounds' loadouts name instead of the
	// built-in ones.
	WeaponsFile string      `toml:"weapons_file"`
	SeatSpecs   []SeatSpec  `toml:"seat"`
	Techniques  []Technique `toml:"technique"`
	// Latency is injected in every round; a round's own rules apply
	// after these, to the seats they name.
	Latency []LinkRule `toml:"latency"`
	Rounds  []Round    `toml:"round"`
	// Questions are the questionnaire after each round; Intake is put
	// once to each participant before the first round (demographics,
	// gaming experience), Final once after the last round's
	// questionnaire; Consent, when given, is agreed to before any of it.
	Questions []Question `toml:"question"`
	Intake    []Question `toml:"intake"`
	Final     []Question `toml:"final"`
	Consent   *Consent   `toml:"consent"`
	// Counterbalance orders the techniques per group of participants
	// (see Counterbalance); absent, every run plays the rounds as
	// written.
	Counterbalance *Counterbalance `toml:"counterbalance"`
	// MinFPS is the frame rate under which a participant's page ran a
	// round too slowly for its figures to be taken as the technique's:
	// the report flags every round a page drew at a mean frame time
	// above 1000/MinFPS ms (default DefaultMinFPS).
	MinFPS float64 `toml:"min_fps"`
	// Online makes the study an online one: participants arrive through
	// a lobby that groups them into matches (see Online); absent, the
	// study is run in a lab, its join links handed out.
	Online *Online `toml:"online"`
	// Exclusion is the rules by which the report leaves participants
	// out of its analyses (see Exclusion); absent, it excludes no one.
	Exclusion *Exclusion `toml:"exclusion"`

	path string
	// group is the counterbalancing group the rounds are set for.
	group int
	text  []byte
	// more holds the problems check found after the one it returns.
	more []*problem
	// shortened is the cap Shorten put on every round (0: none).
	shortened time.Duration
	seats     []Seat
	plans     []*Plan
}

// DefaultMinFPS is the frame-rate floor of a schedule that sets none:
// 30 frames a second, under which aiming at a moving player is no
// longer the task the techniques are compared on.
const DefaultMinFPS = 30

// SeatSpec is one [[seat]] table: Count seats alike (default 1).
type SeatSpec struct {
	// Code is the participant code a person joins with (only with Count
	// 1); empty for a seat whose code is handed out at the session.
	Code string `toml:"code"`
	// Bot keeps a bot in the seat in live rounds too.
	Bot   bool `toml:"bot"`
	Count int  `toml:"count"`
}

// Seat is one seat of the study after SeatSpecs are expanded. A seat has
// no fixed team: the server puts each player who joins a team mode on
// the smaller team, so teams form in the order players connect, and the
// records say which team each seat played on in each round.
type Seat struct {
	Index int    `json:"seat"`
	Code  string `json:"code,omitempty"`
	Bot   bool   `json:"bot"`
}

// Technique is a named latency compensation set-up that rounds play
// under: the lag compensation policy, time delay, time warp, prediction
// (of opponents, and of one's own player), replication and display.
type Technique struct {
	Name string `toml:"name"`
	// Policy is the lag compensation policy and its parameters (default
	// tlc), as lagcomp.Config reads them.
	Policy lagcomp.Config `toml:"policy"`
	Delay  DelayConfig    `toml:"delay"`
	// TimeWarp is the time warp window ("500ms"; absent or 0: off). It
	// needs policy none and mode ffa or tdm.
	TimeWarp Duration `toml:"time_warp"`
	// Prediction has clients draw opponents extrapolated to the received
	// server time instead of interpolating behind it: the time warp
	// study's prediction ([timewarp]; display mode extrapolate).
	Prediction bool `toml:"prediction"`
	// ClientPrediction is whether each client predicts its own
	// player's movement (absent: true). false has every client show its
	// player where the server last put it, so that a player's input
	// shows a round trip late: the condition of a study of prediction
	// itself. It is mandated to every client, pages and bots alike.
	ClientPrediction *bool `toml:"client_prediction"`
	// Replication is full, dead or led (default full).
	Replication string `toml:"replication"`
	// Display is how clients draw the other players (default
	// interpolate; threshold replication draws by its own reckoning).
	Display string `toml:"display"`
	// Scaling is attribute scaling, a world adjustment: the hitboxes a
	// shot is tested against scaled by a factor its mode sets from the
	// shooter's round trip (default none; scaling.Config reads it).
	Scaling scaling.Config `toml:"scaling"`
	// Feedback is what every client shows its player of the network,
	// mandated as the display mode is: none, ping, netgraph or placebo
	// (client.Feedbacks; absent: each page's own choice). A placebo
	// shows PlaceboMS when set, else the real round trip times
	// PlaceboScale (default half): latency exposure as a condition,
	// apart from latency itself.
	// AimAssist is aim assistance, a world adjustment: bullet magnetism
	// or an area cursor (default none; aimassist.Config reads it).
	AimAssist    aimassist.Config `toml:"aim_assist"`
	Feedback     string           `toml:"feedback"`
	PlaceboMS    float64          `toml:"placebo_ms"`
	PlaceboScale float64          `toml:"placebo_scale"`
}

// DelayConfig is a technique's time delay.
type DelayConfig struct {
	Mode       string   `toml:"mode"`       // none, delay or adaptive
	Trigger    string   `toml:"trigger"`    // adaptive: proximity or fov
	Adaptation Duration `toml:"adaptation"` // adaptive: moving-average length, 0 to 10 s
}

// LinkRule injects latency, jitter and loss on seats' links, each
// direction.
type LinkRule struct {
	// Seats are the seats the rule is for (absent: every seat).
	Seats []int `toml:"seats"`
	// LatencyMS is one way: 125 makes a 250 ms round trip.
	LatencyMS float64 `toml:"latency_ms"`
	JitterMS  float64 `toml:"jitter_ms"`
	Loss      float64 `toml:"loss"`
	// TargetRTTMS, in place of LatencyMS, is the round trip the seats
	// play at whatever their own network adds: a live run injects the
	// difference from each seat's measured round trip and follows it as
	// it drifts (realtime's target_rtt_ms); a simulated run, whose links
	// add nothing of their own, injects it whole.
	TargetRTTMS float64 `toml:"target_rtt_ms"`
}

// Round is one [[round]] table: a match of the study.
type Round struct {
	// Name names the round in the logs (default "round N").
	Name string `toml:"name"`
	// Map is a shipped map or a map file (.json) relative to the
	// schedule; Mode is ffa, tdm, ctf or dom.
	Map  string `toml:"map"`
	Mode string `toml:"mode"`
	// Duration is the measured part, 1 s to 99:59 (the ALC study's
	// tool's range, [alc]).
	Duration Duration `toml:"duration"`
	// Warmup is played before it and not recorded (0 to 10 min); the
	// measured part then starts the round anew where everyone stands:
	// scores, statistics and objectives back to their start, the living
	// healed.
	Warmup Duration `toml:"warmup"`
	// Ready has the round start when every seat has pressed ready,
	// after a 3-2-1 countdown.
	Ready bool `toml:"ready"`
	// Interval is the pause before the next round (0 to 1 h): the
	// questionnaire's time.
	Interval Duration `toml:"interval"`
	// Technique names one of the schedule's techniques (may be left out
	// when it has one).
	Technique string `toml:"technique"`
	// Weapons is the loadout, the first drawn at spawn (default: the
	// rifle alone).
	Weapons []string   `toml:"weapons"`
	Latency []LinkRule `toml:"latency"`
}

// Question is one question: of the questionnaire after each round
// ([[question]]), of the intake ([[intake]]) or of the final
// questionnaire ([[final]]).
type Question struct {
	ID   string `toml:"id"`
	Text string `toml:"text"`
	// Kind is yesno, likert (1 to 5), likert7 (1 to 7), fairness (-5 to
	// 5), scale (Min to Max, at most 21 points, labelled by Anchors),
	// number (a whole number from Min to Max), choice (one of Choices;
	// intake and final only) or text.
	Kind string `toml:"kind"`
	// Choices are a choice question's choices, in the order shown.
	Choices []string `toml:"choices"`
	// Min and Max bound a scale or number question's answers.
	Min *int `toml:"min"`
	Max *int `toml:"max"`
	// Anchors label the low and the high end of a scale (required), a
	// Likert or a fairness question.
	Anchors []string `toml:"anchors"`
	// Stage is when the question is put (record.StageRound,
	// StageIntake, StageFinal): set by the list it is in.
	Stage string `toml:"-"`
	// Synthetic is the model a simulated study draws the question's
	// answers from per technique when asked to (study run --simulate
	// --synthetic-answers; see SyntheticModel), and
	// SyntheticParticipantSD how much participants differ from each
	// other (the standard deviation of each one's offset, on the
	// question's scale; default 0). A technique without a model gets the
	// scale's middle.
	Synthetic              []SyntheticModel `toml:"synthetic"`
	SyntheticParticipantSD float64          `toml:"synthetic_participant_sd"`
	// Check makes the question a check rather than an outcome:
	// CheckAttention (an instructed item, "choose 2 for this one",
	// whose Correct answer says whether the participant attended) or
	// CheckManipulation (did the participant notice the manipulation,
	// "did you notice lag?"). A check is reported as a check, per
	// participant and per condition, and never tested as an outcome.
	Check string `toml:"check"`
	// Correct is an attention check's instructed answer (required for
	// one, on the question's scale; a yes/no question's 1 is yes), or a
	// manipulation check's expected answer under the manipulation
	// (optional).
	Correct *int `toml:"correct"`
}

// Question.Check kinds.
const (
	CheckAttention    = "attention"
	CheckManipulation = "manipulation"
)

// Countdown is the 3-2-1 countdown after every seat is ready, as Color
// Clash started its rounds ([atd]).
const Countdown = 3 * time.Second

// Limits of a schedule.
const (
	MaxFileSize  = 256 << 10
	MaxSeats     = 128 // the server's and the match's limit
	MaxRounds    = 256
	MaxQuestions = 64
	maxName      = 64
	maxCode      = 32
	maxText      = 500
	maxRule      = 256
	maxDuration  = 99*time.Minute + 59*time.Second
)

var scheduleFile = cfgfile.Kind{Name: "study schedule", MaxSize: MaxFileSize}

// QuestionKinds are the kinds a question may have.
var QuestionKinds = []string{record.YesNo, record.Likert, record.Likert7, record.Fairness, record.Scale, record.Number, record.Choice, record.Text}

// Load reads and checks the schedule at path.
func Load(path string) (*Schedule, error) {
	data, err := scheduleFile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks a schedule read from path (which names it in errors and
// anchors the files it names). Every error it returns is a
// *cfgfile.Error, "path:line:col: round[2].technique: problem"; it
// refuses unknown fields, keys given twice and files over MaxFileSize.
func Parse(path string, data []byte) (*Schedule, error) {
	var s Schedule
	doc, err := scheduleFile.DecodeTOML(path, data, &s)
	if err != nil {
		return nil, err
	}
	s.path, s.text = path, data
	if p := s.check(); p != nil {
		if len(s.more) == 0 {
			return nil, doc.Locate(p)
		}
		// Several problems: all of them, in the file's order.
		var errs []error
		for _, q := range append([]*problem{p}, s.more...) {
			errs = append(errs, doc.Locate(q))
		}
		slices.SortStableFunc(errs, func(a, b error) int {
			la, ca := posOf(a)
			lb, cb := posOf(b)
			return cmp.Or(la-lb, ca-cb)
		})
		return nil, errors.Join(errs...)
	}
	return &s, nil
}

// posOf is the line and column a located problem is at (0 when it has
// none).
func posOf(err error) (line, col int) {
	var e *cfgfile.Error
	if errors.As(err, &e) {
		return e.Line, e.Col
	}
	return 0, 0
}

// Text returns the schedule file as read.
func (s *Schedule) Text() string { return string(s.text) }

// Seats returns the study's seats.
func (s *Schedule) Seats() []Seat { return s.seats }

// Plans returns the rounds, resolved, in order.
func (s *Schedule) Plans() []*Plan { return s.plans }

// problem is a value of a schedule that does not do, at its path.
type problem = cfgfile.Problem

var fail = cfgfile.Problemf

var (
	idPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	codePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
)

// check checks s and resolves its rounds.
func (s *Schedule) check() *problem {
	switch {
	case s.Name == "":
		return fail("name", "missing: name the study")
	case len(s.Name) > maxName:
		return fail("name", "%d bytes, want at most %d", len(s.Name), maxName)
	case !(s.BotSkill >= 0 && s.BotSkill <= 1):
		return fail("bot_skill", "%v, want 0 to 1", s.BotSkill)
	case !(s.MinFPS >= 0 && s.MinFPS <= 1000):
		return fail("min_fps", "%v, want 1 to 1000 frames a second (absent: %v)", s.MinFPS, DefaultMinFPS)
	}
	if s.BotSkill == 0 {
		s.BotSkill = 0.5
	}
	if p := s.checkSeats(); p != nil {
		return p
	}
	if p := s.checkInstruments(); p != nil {
		return p
	}
	techs, p := s.checkTechniques()
	if p != nil {
		return p
	}
	if p := s.checkSynthetic(); p != nil {
		return p
	}
	if p := checkRules(s.Latency, "latency", len(s.seats)); p != nil {
		return p
	}
	if p := s.checkCounterbalance(techs); p != nil {
		return p
	}
	if p := s.checkOnline(); p != nil {
		return p
	}
	switch {
	case len(s.Rounds) == 0:
		return fail("round", "no [[round]] table: a study plays at least one round")
	case len(s.Rounds) > MaxRounds:
		return fail("round", "%d rounds, want at most %d", len(s.Rounds), MaxRounds)
	}
	// Every round is checked, and every round's problem reported (its
	// first; Parse lists them in the file's order), each naming the
	// round from 1 as the summary counts.
	var probs []*problem
	names := map[string]int{}
	for i, rd := range s.Rounds {
		// Rounds are told apart by name in every table and plot.
		if j, dup := names[rd.Name]; dup && rd.Name != "" {
			probs = append(probs, fail(fmt.Sprintf("round[%d].name", i), "%q is round %d's name too: give each round its own (round %d)", rd.Name, j+1, i+1))
			continue
		}
		names[rd.Name] = i
	}
	r := newResolver(s)
	for i := range s.Rounds {
		plan, ps := r.round(i, techs)
		if len(ps) > 0 {
			for _, p := range ps {
				p = p.Within(fmt.Sprintf("round[%d].", i))
				p.Msg += fmt.Sprintf(" (round %d)", i+1)
				probs = append(probs, p)
			}
			continue
		}
		s.plans = append(s.plans, plan)
	}
	if len(probs) > 0 {
		s.more = probs[1:]
		return probs[0]
	}
	if p := s.checkExclusion(); p != nil {
		return p
	}
	if p := s.checkLowPing(); p != nil {
		return p
	}
	if s.Counterbalance != nil {
		s.group = s.Counterbalance.Group
		s.applyGroup()
	}
	return nil
}

func (s *Schedule) checkSeats() *problem {
	codes := map[string]bool{}
	for i, sp := range s.SeatSpecs {
		at := fmt.Sprintf("seat[%d].", i)
		n := sp.Count
		switch {
		case n == 0:
			n = 1
		case n < 0 || n > MaxSeats:
			return fail(at+"count", "%d, want 1 to %d", n, MaxSeats)
		}
		switch {
		case sp.Code != "" && n > 1:
			return fail(at+"code", "a code names one seat, but count is %d", n)
		case sp.Code != "" && !codePattern.MatchString(sp.Code):
			return fail(at+"code", "%q: want 1 to %d letters, digits, - or _", sp.Code, maxCode)
		case sp.Code != "" && sp.Bot:
			return fail(at+"code", "a bot's seat has no participant code")
		case codes[CodeKey(sp.Code)]:
			return fail(at+"code", "%q is given to an earlier seat (codes are compared ignoring case)", sp.Code)
		case len(s.seats)+n > MaxSeats:
			return fail(at+"count", "%d seats in all, want at most %d", len(s.seats)+n, MaxSeats)
		}
		if sp.Code != "" {
			codes[CodeKey(sp.Code)] = true
		}
		for range n {
			s.seats = append(s.seats, Seat{Index: len(s.seats), Code: sp.Code, Bot: sp.Bot})
		}
	}
	if len(s.seats) == 0 {
		return fail("seat", "no [[seat]] table: a study has at least one seat")
	}
	return nil
}

// checkRules checks link rules found at path against a study of n
// seats.
func checkRules(rules []LinkRule, path string, n int) *problem {
	if len(rules) > maxRule {
		return fail(path, "%d rules, want at most %d", len(rules), maxRule)
	}
	for i, r := range rules {
		at := fmt.Sprintf("%s[%d].", path, i)
		for _, seat := range r.Seats {
			if seat < 0 || seat >= n {
				return fail(at+"seats", "no seat %d: the study's seats are 0 to %d", seat, n-1)
			}
		}
		switch {
		case !(r.LatencyMS >= 0 && r.LatencyMS <= 2500):
			// netem's bound on one direction's latency, half the match's
			// 5000 ms round trip.
			return fail(at+"latency_ms", "%v, want 0 to 2500 (one way)", r.LatencyMS)
		case !(r.JitterMS >= 0 && r.JitterMS <= 1000):
			return fail(at+"jitter_ms", "%v, want 0 to 1000", r.JitterMS)
		case !(r.Loss >= 0 && r.Loss <= 1):
			return fail(at+"loss", "%v, want 0 to 1", r.Loss)
		case !(r.TargetRTTMS >= 0 && r.TargetRTTMS <= 5000):
			return fail(at+"target_rtt_ms", "%v, want 0 to 5000 (a round trip)", r.TargetRTTMS)
		case r.TargetRTTMS > 0 && r.LatencyMS > 0:
			return fail(at+"target_rtt_ms", "with latency_ms %v: give one (a target sets the latency)", r.LatencyMS)
		}
	}
	return nil
}

// resolvePath returns name relative to the schedule's folder unless it
// is absolute.
func (s *Schedule) resolvePath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(s.path), name)
}

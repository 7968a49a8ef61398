// Package live plays a study with people on the wall clock: each round
// is a realtime match on a realtime.Host, people join their seats with
// their participant codes, server-side bots hold the bot seats, and the
// administrator starts, pauses, skips and ends rounds. Its Driver is
// both the study.Driver that study.Run plays the schedule on and the
// study.Control that the admin and questionnaire pages use.
package live

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/study"
)

// Defaults of Config.
const (
	DefaultTickRate   = 64
	DefaultPathRate   = study.PathRate
	DefaultAnswerWait = 5 * time.Minute
	// DefaultTokenTTL is how long a connect token from Join stays valid:
	// the page connects at once, and a page that reconnects asks again.
	DefaultTokenTTL = 2 * time.Minute
)

// Config sets up a live study.
type Config struct {
	Schedule *study.Schedule
	// Host runs the rounds' matches. It must require connect tokens
	// (realtime.Host.RequireTokens): a seat is known by its token.
	Host *realtime.Host
	// Codes are the participant codes by seat: a person's seat with no
	// code in the schedule or here gets a generated one (see Codes).
	Codes map[int]string
	// Absent are people's seats no one takes (an online match formed
	// short of people): bots play them throughout, they have no code,
	// and they are recorded as bots' seats. The schedule is unchanged.
	Absent []int
	// Consented are people's seats whose participants agreed to the
	// schedule's consent text before the session, in an online study's
	// lobby (which asks it before its prescreen): their pages do not ask
	// again, and each is recorded as a consent (a record.Client of the
	// intake round, Consented, at the session's start, with no browser
	// report). A session resumed keeps the consents it recorded.
	Consented []int
	// Used are the codes the study's earlier sessions gave, by
	// study.CodeKey: a generated code is none of them, so that a code
	// names one participant across the study.
	Used map[string]bool
	// TickRate is the server's tick rate (default 64).
	TickRate int
	// PathRate is how many times a second the players' positions are
	// recorded (default 20; at least 10).
	PathRate int
	// AnswerWait bounds the wait for the questionnaire's answers after
	// a round (default 5 min).
	AnswerWait time.Duration
	// TokenTTL is the lifetime of Join's connect tokens (default 2 min).
	TokenTTL time.Duration
	// AutoStart starts the first round at once instead of waiting for
	// the administrator's start.
	AutoStart bool
	// Resume, when set, resumes a study stopped in a round (see
	// ResumeFrom).
	Resume *Resume
	// Rejoin is how long a person's seat may be away from the study
	// (neither in the round's match nor its page asking the study's
	// status) once it has played, before a bot takes the seat for the
	// rest of the session (0: never; an online study's schedule sets
	// it, study.Online.Rejoin). The person's page is then told so.
	Rejoin time.Duration
	// Dropout, when set, is told of each seat a bot took, with why
	// ("left mid-match (round 2 of 4)").
	Dropout func(seat int, reason string)
	// Log gets the study's progress (nil: slog's default).
	Log *slog.Logger
}

// Resume is where a stopped study picks up again.
type Resume struct {
	// Round is the index of the round it stopped in, or the number of
	// rounds when it stopped during the last round's questionnaire
	// (Questions then set; nothing is left to play); Elapsed how much of
	// that round's measured part was played, Started when the round
	// started.
	Round   int
	Elapsed time.Duration
	Started time.Time
	// Tallies are each seat's statistics in that round so far.
	Tallies map[int]server.Tally
	// Questions, when set, is the questionnaire after the round before
	// Round, which the study stopped before everyone who played that
	// round had answered: it is put again before Round is played.
	Questions *Unanswered
	// Consented holds the people's seats that had agreed to the consent
	// text, and Intake, by seat, the intake questions each had
	// answered: neither is asked again.
	Consented map[int]bool
	Intake    map[int]map[string]bool
	// Crashed reports that the run before ended without a stop (its
	// event log ends without one): killed, crashed or lost its power.
	Crashed bool
	// Left holds the people's seats a bot took mid-session, the person
	// having left, with why: a bot plays them on.
	Left map[int]string
}

// Unanswered is a questionnaire left unanswered by a stopped study.
type Unanswered struct {
	Round int
	// Seats are the people's seats that played the round and had not
	// answered each question, with the questions each had answered.
	Seats map[int]map[string]bool
}

// Driver is a live study: a study.Driver on the wall clock and the
// study.Control of its pages.
type Driver struct {
	cfg   Config
	log   *slog.Logger
	seats []study.Seat
	codes []string // by seat; "" for a seat a bot plays
	// absent are the people's seats no one takes (Config.Absent).
	absent []bool
	// stoodIn are the people's seats a bot took mid-session, the
	// person having left (Config.Rejoin); read without mu by botPlays.
	stoodIn []atomic.Bool

	startOnce sync.Once
	started   chan struct{} // closed by the admin's start
	skip      chan struct{} // an admin skip, taken by the phase waiting

	mu       sync.Mutex
	phase    string
	before   string // the phase a pause interrupted
	plan     *study.Plan
	match    *realtime.Match
	deadline time.Time // end of a timed phase on the wall clock
	playEnd  time.Duration
	ending   bool
	resume   *Resume
	out      record.Sink
	played   map[int]bool         // human seats seen in the round
	ready    map[int]bool         // human seats that pressed ready in the round
	last     map[int]server.Tally // each seat's statistics at the end of the last round
	quest    *questionnaire
	// sink is the study's sink, for its event log (nil before Run:
	// events wait in pending).
	sink    record.Sink
	pending []record.Event
	// consented holds the people's seats that agreed to the consent
	// text; intake, by seat, the intake questions each has answered.
	consented map[int]bool
	intake    map[int]map[string]bool
	// seen is when each seat's page last asked the study for its
	// status (it polls twice a second), so the admin sees a participant
	// online before the first round's match exists and between rounds.
	seen map[int]time.Time
	// early holds the records of consents, intake answers and browser
	// reports given before the study's record was put (nil sink).
	early []record.Record
	// played and paused are the last round's measured figures
	// (study.RoundTimer).
	ran, paused time.Duration
	// here is when each person's seat was last seen in a round's match,
	// and left why a bot took a seat (Config.Rejoin).
	here map[int]time.Time
	left map[int]string
	// measuring holds, once the round's measured part started, its
	// start on the play clock and the offset of its records; team is
	// each seat's team in the round.
	measuring     bool
	measureFrom   time.Duration
	measureOffset time.Duration
	team          []int
}

var _ study.RoundTimer = (*Driver)(nil)

// Played returns how long the last round's measured part ran and how
// long it was paused.
func (d *Driver) Played() (played, paused time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ran, d.paused
}

// event puts an entry of the study's event log.
func (d *Driver) event(kind, detail string) {
	d.mu.Lock()
	e := record.Event{Round: d.roundIndex(), Kind: kind, Detail: detail, At: time.Now()}
	if d.plan == nil && d.resume != nil {
		e.Round = d.resume.Round
	}
	sink := d.sink
	if sink == nil {
		d.pending = append(d.pending, e)
	}
	d.mu.Unlock()
	if sink != nil {
		sink.Put(e)
	}
}

// questionnaire is the questions put after one round and who has
// answered them.
type questionnaire struct {
	round    int
	name     string
	qs       []study.Question
	asked    map[int]bool // human seats asked
	answered map[int]bool
	// done holds, by seat, the questions whose answers a stopped study
	// had already stored: they are not asked again.
	done    map[int]map[string]bool
	changed chan struct{}
}

// newQuestionnaire returns the questionnaire after round, asking nobody
// yet.
func newQuestionnaire(round int, name string, qs []study.Question) *questionnaire {
	return &questionnaire{round: round, name: name, qs: qs, asked: map[int]bool{}, answered: map[int]bool{},
		done: map[int]map[string]bool{}, changed: make(chan struct{}, 1)}
}

// pending returns the questions seat is asked: those it has no stored
// answer to.
func (q *questionnaire) pending(seat int) []study.Question {
	return unasked(q.qs, q.done[seat])
}

// unasked returns the questions of qs not in done.
func unasked(qs []study.Question, done map[string]bool) []study.Question {
	if len(done) == 0 {
		return qs
	}
	var out []study.Question
	for _, x := range qs {
		if !done[x.ID] {
			out = append(out, x)
		}
	}
	return out
}

// New returns a live study driver for cfg.
func New(cfg Config) (*Driver, error) {
	if cfg.Schedule == nil || cfg.Host == nil {
		return nil, errors.New("live: a study needs its schedule and a host")
	}
	if cfg.TickRate == 0 {
		cfg.TickRate = DefaultTickRate
	}
	if cfg.PathRate == 0 {
		cfg.PathRate = DefaultPathRate
	}
	if cfg.PathRate < 10 || cfg.PathRate > cfg.TickRate {
		return nil, fmt.Errorf("live: path rate %d Hz, want 10 to the tick rate (%d)", cfg.PathRate, cfg.TickRate)
	}
	if cfg.AnswerWait <= 0 {
		cfg.AnswerWait = DefaultAnswerWait
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	d := &Driver{cfg: cfg, log: cfg.Log.With("study", cfg.Schedule.Name), seats: cfg.Schedule.Seats(),
		started: make(chan struct{}), skip: make(chan struct{}, 1), phase: study.PhaseWaiting, resume: cfg.Resume,
		consented: map[int]bool{}, intake: map[int]map[string]bool{}, seen: map[int]time.Time{},
		here: map[int]time.Time{}, left: map[int]string{}}
	if cfg.Rejoin < 0 {
		return nil, fmt.Errorf("live: rejoin %v is negative", cfg.Rejoin)
	}
	if r := cfg.Resume; r != nil {
		for seat := range r.Consented {
			d.consented[seat] = true
		}
		for seat, done := range r.Intake {
			d.intake[seat] = maps.Clone(done)
		}
	}
	for seat := range cfg.Codes {
		if seat < 0 || seat >= len(d.seats) || d.seats[seat].Bot {
			return nil, fmt.Errorf("live: a participant code for seat %d, which is no person's seat", seat)
		}
	}
	d.absent = make([]bool, len(d.seats))
	d.stoodIn = make([]atomic.Bool, len(d.seats))
	for _, seat := range cfg.Absent {
		switch {
		case seat < 0 || seat >= len(d.seats):
			return nil, fmt.Errorf("live: absent seat %d: the schedule has seats 0 to %d", seat, len(d.seats)-1)
		case d.seats[seat].Bot:
			return nil, fmt.Errorf("live: absent seat %d is a bot's seat already", seat)
		case cfg.Codes[seat] != "":
			return nil, fmt.Errorf("live: absent seat %d has a participant code", seat)
		}
		d.absent[seat] = true
	}
	for _, seat := range cfg.Consented {
		switch {
		case cfg.Schedule.Consent == nil:
			return nil, fmt.Errorf("live: seat %d consented, but the schedule has no consent text", seat)
		case seat < 0 || seat >= len(d.seats) || d.seats[seat].Bot || d.absent[seat]:
			return nil, fmt.Errorf("live: consented seat %d is no person's seat", seat)
		case d.consented[seat]:
			continue // recorded by the session resumed
		}
		d.consented[seat] = true
		d.early = append(d.early, record.Client{Seat: seat, Round: study.IntakeRound, Consented: true, At: time.Now()})
	}
	d.codes = make([]string, len(d.seats))
	taken := map[string]int{}
	for i := range d.seats {
		if d.botPlays(i) {
			continue
		}
		code := d.seats[i].Code
		if c := cfg.Codes[i]; c != "" {
			code = c
		}
		for code == "" || (d.seats[i].Code == "" && cfg.Codes[i] == "" && cfg.Used[study.CodeKey(code)]) {
			code = newCode()
		}
		if j, dup := taken[study.CodeKey(code)]; dup {
			return nil, fmt.Errorf("live: seats %d and %d have the same participant code (codes are compared ignoring case)", j, i)
		}
		taken[study.CodeKey(code)], d.codes[i] = i, code
	}
	if r := cfg.Resume; r != nil {
		// After the codes: a seat a bot took keeps its person's code,
		// whose page is told so.
		for seat, why := range r.Left {
			if seat >= 0 && seat < len(d.seats) && d.codes[seat] != "" {
				d.stoodIn[seat].Store(true)
				d.left[seat] = why
			}
		}
	}
	if cfg.AutoStart {
		d.startOnce.Do(func() { close(d.started) })
		if cfg.Resume == nil {
			d.pending = append(d.pending, record.Event{Kind: record.EventStart, Detail: "at once, without the admin's start", At: time.Now()})
		}
	}
	return d, nil
}

// codeAlphabet leaves out letters and digits read alike (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// newCode draws a generated participant code: NewCode, or in a test a
// sequence that repeats one.
var newCode = NewCode

// NewCode returns a random participant code of six characters.
func NewCode() string {
	b := make([]byte, 6)
	crand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}

// Codes returns the participant code of each person's seat, by seat.
func (d *Driver) Codes() map[int]string {
	out := map[int]string{}
	for i, c := range d.codes {
		if c != "" {
			out[i] = c
		}
	}
	return out
}

// TickRate returns the rounds' servers' tick rate.
func (d *Driver) TickRate() int { return d.cfg.TickRate }

// Simulated reports false: people play.
func (*Driver) Simulated() bool { return false }

// Now reads the wall clock.
func (*Driver) Now() time.Time { return time.Now() }

// Wait waits out the interval between rounds, unless the administrator
// skips it; after an end command it returns study.ErrEnded.
func (d *Driver) Wait(ctx context.Context, t time.Duration) error {
	if d.isEnding() {
		return study.ErrEnded
	}
	d.setPhase(study.PhaseInterval, t)
	err := d.sleep(ctx, t)
	if d.isEnding() {
		return study.ErrEnded
	}
	return err
}

// sleep waits t, or less when the administrator skips, or ctx ends.
func (d *Driver) sleep(ctx context.Context, t time.Duration) error {
	d.drainSkip()
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-d.skip:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

func (d *Driver) drainSkip() {
	select {
	case <-d.skip:
	default:
	}
}

func (d *Driver) isEnding() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ending
}

// setPhase enters phase, which lasts t on the wall clock (0: no end).
func (d *Driver) setPhase(phase string, t time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.phase, d.before = phase, ""
	d.deadline = time.Time{}
	if t > 0 {
		d.deadline = time.Now().Add(t)
	}
	d.log.Info("phase", "phase", phase, "round", d.roundIndex())
}

func (d *Driver) roundIndex() int {
	if d.plan == nil {
		return 0
	}
	return d.plan.Index
}

// botPlays reports whether a bot plays seat: a bot's seat, or a
// person's no one takes (Config.Absent).
func (d *Driver) botPlays(seat int) bool {
	return d.seats[seat].Bot || d.absent[seat] || d.stoodIn[seat].Load()
}

// leftCode reports whether the study's lobby gives a person whose seat
// a bot took a completion code for the part played.
func (d *Driver) leftCode() bool {
	o := d.cfg.Schedule.Online
	return o != nil && o.OnDropout == study.DropoutCode
}

// StoodIn reports whether a bot took seat from its person mid-session:
// study.Run records the seat's later rounds as stood in.
func (d *Driver) StoodIn(seat int) bool {
	return seat >= 0 && seat < len(d.seats) && d.stoodIn[seat].Load()
}

// BotPlays reports whether a bot plays seat throughout: study.Run
// records such a seat as a bot's.
func (d *Driver) BotPlays(seat int) bool {
	return seat >= 0 && seat < len(d.seats) && d.botPlays(seat)
}

// playerName is the identity, in its connect tokens, of the player in
// seat: a person's or a bot's.
func (d *Driver) playerName(seat int) string {
	if d.botPlays(seat) {
		return "bot" + strconv.Itoa(seat)
	}
	return "seat" + strconv.Itoa(seat)
}

// teams returns each seat's team in round p: in a team mode seats
// alternate between the teams in seat order, as the server fills the
// smaller team first; in free-for-all every seat is team 0.
func teams(p *study.Plan, n int) []int {
	out := make([]int, n)
	if p.Mode != mode.FFA {
		for i := range out {
			out[i] = i % 2
		}
	}
	return out
}

// matchConfig returns the realtime match that plays round p: the plan's
// match (study.Plan.MatchConfig) with each seat's injected link as a
// link rule on its slot, and every player placed in its seat by its
// connect token.
func (d *Driver) matchConfig(p *study.Plan, seed uint64, team []int) (realtime.MatchConfig, error) {
	mc, err := p.MatchConfig(len(d.seats), seed)
	if err != nil {
		return realtime.MatchConfig{}, err
	}
	name := p.Name
	if len(name) > 64 {
		name = name[:64]
	}
	weapons, err := mc.Weapons()
	if err != nil {
		return realtime.MatchConfig{}, err
	}
	rc := realtime.MatchConfig{
		Name: name, Map: mc.Map, Mode: string(mc.Mode), TickRate: d.cfg.TickRate, Seats: len(d.seats),
		BotSkill: mc.Skill, Seed: seed, Policy: mc.Policy,
		Delay:    realtime.DelayConfig{Mode: mc.Delay.Mode, Trigger: mc.Delay.Trigger, Adaptation: realtime.Duration(mc.Delay.Adaptation)},
		TimeWarp: realtime.Duration(mc.TimeWarp), Replication: p.Technique.Replication, Weapons: weapons, Scaling: mc.Scaling, AimAssist: mc.AimAssist,
		// Every client, bot or page, draws as the technique says.
		Display: p.Technique.DisplayName(), PredictionOff: p.Technique.PredictionOff(),
		Feedback: p.Technique.Shown(), PlaceboMS: p.Technique.PlaceboMS, PlaceboScale: p.Technique.PlaceboScale,
	}
	for i, l := range p.Links {
		if l == (study.Link{}) {
			continue
		}
		dir := realtime.LinkConfig{LatencyMS: l.LatencyMS, JitterMS: l.JitterMS, Loss: l.Loss}
		rc.Latency = append(rc.Latency, realtime.LinkRule{Player: strconv.Itoa(i), Up: dir, Down: dir, TargetRTTMS: l.TargetRTTMS})
	}
	bySeat := map[string]int{}
	for i := range d.seats {
		bySeat[d.playerName(i)] = i
		if !d.seats[i].Bot {
			// A bot may take a person's seat mid-round.
			bySeat["bot"+strconv.Itoa(i)] = i
		}
	}
	rc.Seat = func(who server.Identity) server.Placement {
		seat, ok := bySeat[who.Player]
		if !who.Token || !ok {
			return server.Placement{Refuse: "not a seat of this study"}
		}
		return server.Placement{Slot: seat, Team: team[seat]}
	}
	return rc, nil
}

// Package record defines what a study keeps: one plain type per kind of
// observation (a round, a participant, a session, a shot, a kill, an
// objective, a "shot behind cover" report, a questionnaire answer and a
// movement path point), and the Sink they are handed to.
//
// The types carry no storage concerns: the study runner produces them on
// either driver (wall clock or simulation) and a Sink keeps them, in memory
// for a report or in a database (package store). Players are named by seat,
// the study's stable index for a participant or bot, so that a participant
// who rejoins keeps one identity; rounds by their index in the schedule.
package record

import (
	"sync"
	"time"
)

// Record is one observation. Only the types of this package implement it.
type Record interface{ isRecord() }

// Sink receives records. Put must return quickly (a database sink queues
// and writes in batches off the caller's goroutine) and must be safe for
// use by one goroutine at a time; Close flushes what is queued and reports
// the first error met.
type Sink interface {
	Put(Record)
	Close() error
}

// Study opens a study: everything after it until the next Study belongs to
// it.
type Study struct {
	Name string
	// Schedule is the text of the schedule file the study ran;
	// ScheduleKey identifies what it sets (study.Schedule.Key), "" in
	// studies stored before it was kept.
	Schedule    string
	ScheduleKey string
	Seed        uint64
	// Simulated reports a study played by bots on the simulation driver.
	Simulated bool
	Started   time.Time
	// Design is the schedule's counterbalancing design ("latin",
	// "random"; "" without one) and Group the group the study played:
	// its row of the design.
	Design string
	Group  int
	// Version and Revision are the lagkit module version and VCS
	// revision that ran the study, Modified whether its tree had
	// uncommitted changes, GoVersion the Go that built it; BuildNote says
	// why Revision is empty when it is.
	Version   string
	Revision  string
	Modified  bool
	GoVersion string
	BuildNote string
	// TickRate is the server's tick rate in Hz.
	TickRate int
	// Consent is the consent text participants agree to before they
	// play ("" without a consent screen).
	Consent string
	// Shortened is the cap study run --quick put on every round's
	// measured part (warm-ups and intervals dropped), 0 when the study
	// ran the schedule's own lengths: why a round's Planned can be
	// shorter than its schedule says.
	Shortened time.Duration
}

// Technique is one of a study's techniques: its name as the schedule
// gives it and its settings in the compact form of Round.Setting.
type Technique struct {
	Name    string
	Setting string
}

// SeatOrder is the order of techniques a seat plays, one per round of
// the schedule: every seat of a study plays its counterbalancing
// group's.
type SeatOrder struct {
	Seat   int
	Group  int
	Design string
	// Order names the techniques by round, separated by commas
	// ("alc,tlc,alc,tlc").
	Order string
}

// Round starts (Ended zero) or ends (Ended set) one round of the schedule.
type Round struct {
	Index int
	Name  string
	Map   string
	Mode  string
	// Technique names the technique the round tests, as the schedule
	// names it ("tlc"); Setting is its settings (policy, delay mode, time
	// warp, replication and display) in a compact "key=value ..." form.
	// Two techniques of the same settings (a placebo) keep their names.
	// A round stored before names were kept has its settings in both
	// (Setting copied by the store's migration), as have the matches
	// lagkit serve records, with Setting empty.
	Technique string
	Setting   string
	// Duration is how long the measured part ran on the play clock
	// (pauses left out, extensions in) once the round ended; Planned is
	// what the schedule gave it and Paused how long the administrator
	// paused it. A round still running, or stored before these were
	// kept, has the planned duration in both and Paused 0.
	Duration time.Duration
	Planned  time.Duration
	Paused   time.Duration
	Started  time.Time
	Ended    time.Time
	// Seed is the seed the round's bots played under; Weapons the
	// loadout by name, separated by commas, the first drawn at spawn.
	Seed    uint64
	Weapons string
	// Cut reports that the round's game server was lost before the
	// round's end (killed or crashed): its records stop there, and the
	// study's report leaves it out of the analysis. The store sets it;
	// a study's run never does.
	Cut bool
}

// Participant is a seat of the study and who holds it.
type Participant struct {
	Seat int
	// Code is the seat's participant code, which a person joins with:
	// the schedule's, or one handed out live; empty for a bot's seat. A
	// simulated study keeps the schedule's codes of the seats its bots
	// play (Bot is then set).
	Code string
	Team int
	Bot  bool
	// LatencyMS is the one-way latency injected on the seat's link in the
	// round it was recorded for, Round.
	Round     int
	LatencyMS float64
	// JitterMS and Loss are the jitter and loss injected on the seat's
	// link in that round, each direction.
	JitterMS float64
	Loss     float64
	// TargetRTTMS is the round trip the seat was held at instead of a
	// fixed latency (0: none).
	TargetRTTMS float64
	// StandIn reports that a bot played the seat in its person's place
	// from StandInAt on (match time, as a shot's At): the person left
	// mid-match and did not come back in time. In the rounds after the
	// one they left, StandInAt is 0 and Bot is set; Code stays theirs.
	StandIn   bool
	StandInAt time.Duration
	// Person reports that the schedule gives the seat to a person: a
	// participant's seat, whoever played it (Bot says who did: a bot
	// standing in, or, in a simulated study, the bot playing the live
	// study's participant). The report analyses these seats as the
	// participants.
	Person bool
}

// Session kinds.
const (
	Connect    = "connect"
	Disconnect = "disconnect"
)

// Session is a connect or a disconnect of a seat.
type Session struct {
	Round int
	Seat  int
	Kind  string // Connect or Disconnect
	// Reason says why a session ended ("closed", "timeout", "limit: ...");
	// Transport how it was carried (udp, webtransport, websocket, pipe).
	Reason    string
	Transport string
	At        time.Time
}

// Shot is one judged shot (a pellet of a shotgun is one shot each).
type Shot struct {
	Round int
	// At is the match time the shot was resolved.
	At       time.Duration
	Shooter  int
	ShotTick uint32
	// Victim is the seat hit, -1 for a miss.
	Victim     int
	Weapon     uint8
	Part       string // hit part, "" for a miss
	Policy     string
	Hit        bool // the policy's test hit a player
	Registered bool // damage was applied
	Damage     int
	RewindMS   float64
	RollbackM  float64
	// ObjectiveSBC reports a hit that the victim's own view showed behind
	// cover: its client's SBC detection, on the pose it predicted when
	// the hit reached it, as that client told the server (SBCKnown;
	// false when it did not). ServerSBC is the server's approximation:
	// a registered hit whose victim, at the server's present when the
	// hit was settled, stood behind cover from the shooter's eye.
	ObjectiveSBC, SBCKnown, ServerSBC bool
	// Appeal is the appeal outcome ("registered", "confirmed",
	// "denied_upheld", ...), "" when the victim was not asked.
	Appeal string
	Kill   bool
	// The shot as the shooter's client sent it (hitscan shots; zero for
	// a projectile's): EyeX, EyeY and EyeZ where it left from, the
	// shooter's eye as its commands put it (at the fire press when
	// there was one); AimYawDeg and AimPitchDeg the aim in degrees (yaw
	// from +X towards +Y, pitch up); ViewAt the time the client claimed
	// to be showing, on At's clock (At less ViewAt: how far behind the
	// server the shooter's view was).
	EyeX, EyeY, EyeZ       float64
	AimYawDeg, AimPitchDeg float64
	ViewAt                 time.Duration
	// ClientVerdict is the shooter's client's own verdict on the shot,
	// as it drew the other players at its view time: "hit" when any
	// pellet of the shot met an enemy there, "miss" when none did, ""
	// when unknown (a projectile weapon's shot, a client that sent none,
	// a shot stored before clients sent it). Hit is the server's.
	ClientVerdict string
}

// The client verdicts a Shot keeps.
const (
	VerdictHit  = "hit"
	VerdictMiss = "miss"
)

// Duel is one encounter of two seats, from the instant either's client
// first drew the other (see package peek): when each client first drew
// the other and first fired at it, who hit first and who killed. Times
// of the duel are in ms after At, -1 when it did not happen.
type Duel struct {
	Round int
	// At is the match time of the duel's first sighting.
	At                 time.Duration
	A, B               int // seats, A's id below B's on the server
	SightAMS, SightBMS float64
	ShotAMS, ShotBMS   float64
	FirstHit, Killer   int // seats, -1: none
	// Both reports that both clients drew the other; AdvantageMS is then
	// the advantage of the one that drew first (First, else -1) and
	// ExpectedMS the advantage Riot's account predicts with it as the
	// peeker.
	Both        bool
	First       int
	AdvantageMS float64
	ExpectedMS  float64
}

// Kill is one kill.
type Kill struct {
	Round  int
	At     time.Duration
	Killer int
	Victim int
	Weapon uint8
}

// Objective is a mode event: a flag taken, captured or returned, a point
// captured, a pickup or a token collected.
type Objective struct {
	Round int
	At    time.Duration
	Seat  int
	Team  int
	Kind  string
}

// SBCReport is a player's "I was shot behind cover" report, with the most
// recent hit on that player when there was one (Shooter -1 when not).
type SBCReport struct {
	Round        int
	At           time.Duration
	Reporter     int
	Shooter      int
	ShotTick     uint32
	RewindMS     float64
	RollbackM    float64
	ObjectiveSBC bool
	Appeal       string
}

// Network is a seat's link in one round as injected and as measured:
// the manipulation check of a latency study. RTT figures are the
// server's: its smoothed round-trip estimate of the seat (RFC 6298, the
// one lag compensation uses) sampled at the path rate through the
// measured part; jitter is the mean absolute difference of successive
// samples, which the smoothing damps (a lower bound of the link's).
// ClientRTT figures are the seat's client's own estimate, where the
// client reports it (ClientSamples 0: it did not). The link figures are
// what the emulated link applied: the share of datagrams it dropped and
// the mean one-way delay of those it delivered (0 when the seat's link
// injects nothing, whose datagrams skip emulation).
type Network struct {
	Round int
	Seat  int
	// LatencyMS, JitterMS and Loss are what the schedule injects, one way,
	// each direction.
	LatencyMS float64
	JitterMS  float64
	Loss      float64
	// TargetRTTMS is the round trip the seat was held at instead of a
	// fixed latency (0: none); DelayUpMS and DelayDownMS then say what
	// was injected.
	TargetRTTMS float64
	// RTTMeanMS, RTTP50MS and RTTP95MS sum up RTTSamples server samples.
	RTTMeanMS   float64
	RTTP50MS    float64
	RTTP95MS    float64
	RTTJitterMS float64
	RTTSamples  int
	// ClientRTTMeanMS and ClientRTTJitterMS sum up ClientSamples samples
	// of the client's estimate.
	ClientRTTMeanMS   float64
	ClientRTTJitterMS float64
	ClientSamples     int
	LossUp            float64
	LossDown          float64
	DelayUpMS         float64
	DelayDownMS       float64
}

// Event kinds of a live study's event log.
const (
	EventStart   = "start"    // the administrator started the study
	EventPause   = "pause"    // the administrator paused the round
	EventResume  = "resume"   // the administrator resumed the paused round
	EventSkip    = "skip"     // the administrator skipped what was under way
	EventExtend  = "extend"   // the administrator extended the round (Detail: by how much)
	EventEnd     = "end"      // the administrator ended the study after the round
	EventStop    = "stop"     // the process was stopped (a signal): the study can be resumed
	EventCrash   = "crash"    // found at a resume: the run before ended without a stop
	EventResumed = "resumed"  // the study was resumed by a new run (Detail: where)
	EventOver    = "over"     // the study played every round
	EventStandIn = "stand_in" // a bot took a person's seat for the rest of the session (Detail: which, and why)
)

// Event is one entry of a live study's event log: an administrator's
// action, a stop, a crash found at a resume, a resume.
type Event struct {
	// Round is the index of the round being played, or the next one.
	Round  int
	Kind   string
	Detail string
	At     time.Time
}

// Question kinds of a questionnaire.
const (
	YesNo    = "yesno"
	Likert   = "likert"   // 1 to 5
	Likert7  = "likert7"  // 1 to 7
	Fairness = "fairness" // -5 to 5
	Scale    = "scale"    // whole numbers from the question's min to its max, with anchors
	Number   = "number"   // a whole number from the question's min to its max
	Choice   = "choice"   // one of the question's choices: its index from 0
	Text     = "text"
)

// Stages of a study at which questions are put.
const (
	StageRound  = "round"  // after each round
	StageIntake = "intake" // once, before the first round (demographics, gaming experience)
	StageFinal  = "final"  // once, after the last round's questionnaire
)

// Answer is one participant's answer to one question.
type Answer struct {
	// Round is the round the questionnaire followed; an intake answer's
	// is -1 (before the first round), a final one's the last round's.
	Round    int
	Seat     int
	Question string // the question's id in the schedule
	Kind     string // one of the question kinds
	// Stage is when the question was put (StageRound, StageIntake,
	// StageFinal); empty reads as StageRound.
	Stage string
	// Value holds a yes/no (1 or 0), scale, number or choice (the
	// choice's index) answer; Text a free text one, or a choice's label.
	Value int
	Text  string
	At    time.Time
}

// Frames is how a participant's page drew one round: the time between
// its frames through the round's measured part, as the page measured
// it.
type Frames struct {
	Seat  int
	Round int
	// Frames counts the frames drawn; the others sum up the time
	// between successive frames in milliseconds.
	Frames int
	MeanMS float64
	P50MS  float64
	P95MS  float64
	P99MS  float64
	MaxMS  float64
	// RTTMeanMS and RTTJitterMS sum up RTTSamples samples of the client's
	// own round-trip estimate taken through the round (one each 50 ms of
	// frames): the client-side half of the manipulation check.
	RTTMeanMS   float64
	RTTJitterMS float64
	RTTSamples  int
	At          time.Time
}

// Question is one question of a study's instruments as the schedule
// puts it: kept with the study so that its answers read alone.
type Question struct {
	ID    string
	Stage string
	// Seq is the question's place among its stage's questions.
	Seq  int
	Kind string
	Text string
	// Min and Max bound a scale or number answer (yes/no 0 and 1; a
	// choice 0 and the number of choices less one; 0 and 0 for text).
	Min, Max int
	// Choices are a choice question's choices in order, separated by
	// newlines; LowAnchor and HighAnchor label a scale's ends.
	Choices    string
	LowAnchor  string
	HighAnchor string
}

// Client is what a participant's browser reported about itself, at
// consent (Round -1) or on joining a round: whether the participant
// agreed to the study's consent text, the display's refresh rate as the
// page measured it, the page's mouse sensitivity, and the browser.
type Client struct {
	Seat  int
	Round int
	// Consented is set on the report given with the participant's
	// consent.
	Consented bool
	At        time.Time
	// RefreshHz is the display's refresh rate the page measured from
	// its animation frames (0: not measured).
	RefreshHz float64
	// Sensitivity is the page's mouse sensitivity (radians per pixel
	// ×1000).
	Sensitivity float64
	UserAgent   string
	// ScreenW and ScreenH are the screen's size in CSS pixels;
	// PixelRatio the device pixels per CSS pixel.
	ScreenW, ScreenH int
	PixelRatio       float64
}

// Path is a living player's position at one instant: the movement paths
// that lagkit trend build and replay read.
type Path struct {
	Round   int
	At      time.Duration
	Seat    int
	Team    int
	X, Y, Z float64
	// YawDeg and PitchDeg are where the player looked, in degrees (yaw
	// from +X towards +Y, pitch up), as its last command set them.
	YawDeg, PitchDeg float64
}

func (Study) isRecord()       {}
func (SeatOrder) isRecord()   {}
func (Technique) isRecord()   {}
func (Event) isRecord()       {}
func (Network) isRecord()     {}
func (Round) isRecord()       {}
func (Participant) isRecord() {}
func (Session) isRecord()     {}
func (Shot) isRecord()        {}
func (Kill) isRecord()        {}
func (Duel) isRecord()        {}
func (Objective) isRecord()   {}
func (SBCReport) isRecord()   {}
func (Answer) isRecord()      {}
func (Question) isRecord()    {}
func (Client) isRecord()      {}
func (Frames) isRecord()      {}
func (Path) isRecord()        {}

// Memory is a Sink that keeps every record in order, for reports and
// tests.
type Memory struct {
	Records []Record
}

// Put appends r.
func (m *Memory) Put(r Record) { m.Records = append(m.Records, r) }

// Close does nothing: a Memory has nothing to flush.
func (m *Memory) Close() error { return nil }

// Tee returns a Sink that hands every record to each of sinks in turn and
// closes them all, returning the first error.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Put(r Record) {
	for _, s := range t {
		s.Put(r)
	}
}

func (t tee) Close() error {
	var first error
	for _, s := range t {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Locked returns a Sink that serialises the Puts and the Close of
// several goroutines into s, which then sees one at a time.
func Locked(s Sink) Sink { return &locked{s: s} }

type locked struct {
	mu sync.Mutex
	s  Sink
}

func (l *locked) Put(r Record) {
	l.mu.Lock()
	l.s.Put(r)
	l.mu.Unlock()
}

func (l *locked) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.Close()
}

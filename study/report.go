package study

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/stats"
)

// Report sums a study's records up: per round and per technique, hits,
// accuracy, shots behind cover per hit, appeals and kills, overall and by
// latency group, and the questionnaire's answers. It is built from the
// records alone (Summarise), so it reads the same from a record.Memory
// as from a database.
type Report struct {
	Study string `json:"study"`
	// StudyID is the study's id in the database, shared by the sessions
	// the report pools (0: not stored, or not yet known).
	StudyID   int64         `json:"study_id,omitempty"`
	Seed      string        `json:"seed"` // a decimal string: seeds use all 64 bits
	Simulated bool          `json:"simulated"`
	Started   time.Time     `json:"started"`
	Rounds    []RoundReport `json:"rounds"`
	// Techniques pools the rounds played under each technique, in the
	// order first played.
	Techniques []TechniqueReport `json:"techniques"`
	Questions  []QuestionSummary `json:"questions"`
	// AnswersNote says why there are no answers when there are none.
	AnswersNote string `json:"answers_note,omitempty"`
	// Answers sums the questionnaire up per technique, Comparisons
	// compares the techniques' answers participant by participant, and
	// Texts lists the free-text answers (see report_answers.go).
	Answers     []TechniqueAnswers `json:"answers,omitempty"`
	Comparisons []Comparison       `json:"comparisons,omitempty"`
	Texts       []TextAnswer       `json:"texts,omitempty"`
	// Consent is the consent text participants agreed to; Instruments
	// sums up the intake and final questions; Clients lists what each
	// participant's browser reported (report_instruments.go).
	Consent     string              `json:"consent,omitempty"`
	Instruments []InstrumentSummary `json:"instruments,omitempty"`
	Clients     []ClientSummary     `json:"clients,omitempty"`
	// SeatOrders and Network are each seat's order of techniques and
	// its network per round, injected beside measured: the people's
	// when people played (report_design.go).
	SeatOrders []SeatOrderRow `json:"seat_orders,omitempty"`
	Network    []NetworkRow   `json:"network,omitempty"`
	// Rollback sets the SBC reports against the rollback distance of
	// the hits they were about (see RollbackBin).
	Rollback []RollbackBin `json:"rollback_bins,omitempty"`
	// Tests compares the techniques' objective figures participant by
	// participant: the high-ping seats' hit accuracy, and the main
	// outcome (Main).
	Tests []experiment.Test `json:"tests,omitempty"`
	// Main is the main outcome, shots behind cover per hit on low-ping
	// victims, compared between techniques participant by participant.
	Main *MainOutcome `json:"main_outcome,omitempty"`
	// Participants is the long-format table: a row per seat per round
	// (see ParticipantRound).
	Participants []ParticipantRound `json:"participant_rounds,omitempty"`
	// AnswerColumns are the questions the long-format table has a column
	// of answers for, by id.
	AnswerColumns []string `json:"answer_columns,omitempty"`
	// IntakeColumns are the intake questions it has a column for, the
	// participants' covariates (intake_<question id>).
	IntakeColumns []string `json:"intake_columns,omitempty"`
	// SyntheticAnswers reports answers drawn by a simulated study from a
	// model (study run --simulate --synthetic-answers), not given by
	// people.
	SyntheticAnswers bool `json:"synthetic_answers,omitempty"`
	// Subjects says whose figures the low- and high-ping figures and the
	// paired tests are: SubjectsPeople, the seats people held, in a study
	// with people (bots fill seats, they are not participants); or
	// SubjectsBots in a study of bots alone, a simulated one.
	Subjects string `json:"subjects"`
	// LowPingMS is the round trip at or under which a seat counts as
	// low-ping (the Low figures, the primary outcome's victims) and
	// above which as high-ping: the schedule's (Schedule.LowPingMS, alc's
	// low_ping_ms), DefaultLowPingMS by default.
	LowPingMS float64 `json:"low_ping_ms"`
	// Frames is each participant's page's frame times per round, and
	// MinFPS the schedule's floor they are flagged under
	// (report_frames.go).
	Frames []FrameRow `json:"frames,omitempty"`
	MinFPS float64    `json:"min_fps"`
	// Design is the sequences played, by group, and Effects the
	// period and order effects on the primary outcome
	// (report_crossover.go).
	Design  []DesignRow  `json:"design,omitempty"`
	Effects OrderEffects `json:"order_effects"`
	// Sessions lists the sessions the report pools (pool.go): one for
	// the report of one study run.
	Sessions []SessionInfo `json:"sessions"`
	// Checks sums up the attention and manipulation checks, which are
	// never outcomes (report_checks.go).
	Checks []CheckResult `json:"checks,omitempty"`
	// Untested lists the comparisons the statistics policy did not run
	// (too few participant pairs), with why (report_policy.go).
	Untested []Untested `json:"untested,omitempty"`
	// Run is how the study was run: its build, --quick, its wall time
	// and its timeline of rounds, stops and resumptions (report_run.go).
	Run RunInfo `json:"run"`
	// Exclusions is the schedule's exclusion rules applied, nil when it
	// has none (exclusion.go): the excluded participants' seats are
	// analysed as bots' are, opponents and not subjects.
	Exclusions *Exclusions `json:"exclusions,omitempty"`
	// Flow is an online study's participant flow from its lobby's
	// events, nil for a lab study, whose FlowNote says why
	// (report_flow.go).
	Flow     *ParticipantFlow `json:"participant_flow,omitempty"`
	FlowNote string           `json:"participant_flow_note,omitempty"`

	// planned is how many rounds the schedule plans, rules its
	// exclusion rules, online whether it has an [online] table.
	planned int
	rules   *Exclusion
	online  bool

	// CutRounds are the rounds a lost game server cut short, left out
	// of every figure; StandIns the seats bots played in their
	// person's place after the person left mid-match, counted as
	// bots' (report_dropouts.go).
	CutRounds []CutRound `json:"cut_rounds,omitempty"`
	StandIns  []StandIn  `json:"stand_ins,omitempty"`
}

// Report.Subjects.
const (
	SubjectsPeople = "people"
	SubjectsBots   = "bot seats"
)

// RoundReport is one round's figures.
type RoundReport struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Map   string `json:"map"`
	Mode  string `json:"mode"`
	// Technique names the round's technique as the schedule does;
	// Setting is its settings in the compact form.
	Technique string    `json:"technique"`
	Setting   string    `json:"setting"`
	DurationS float64   `json:"duration_s"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
	Seats     int       `json:"seats"`
	Bots      int       `json:"bots"`
	// Teams lists the seats of team 0 and team 1 (in team modes; in ffa
	// everyone is on team 0).
	Teams [2][]int `json:"teams"`
	Figures
	// Low pools the groups of the report's Subjects at or under
	// Report.LowPingMS, High those above it.
	Low  Figures `json:"low_ping"`
	High Figures `json:"high_ping"`
	// Groups splits the figures by the players' round trip, people's
	// seats apart from bots': shots, hits, kills and rollback by the
	// shooter's, hits received, SBC, appeals and SBC reports by the
	// victim's.
	Groups []GroupFigures `json:"groups"`
	// Duels sums up the round's duels (the peeker's advantage).
	Duels DuelFigures `json:"duels"`
}

// TechniqueReport is the figures of every round under one technique.
type TechniqueReport struct {
	// Name is the technique's name in the schedule ("tlc"), or its
	// Setting when the study's records and schedule do not name it.
	Name    string   `json:"name"`
	Setting string   `json:"setting"`
	Rounds  []string `json:"rounds"`
	// Seats counts the seats that played its rounds.
	Seats int `json:"seats"`
	Figures
	Low    Figures        `json:"low_ping"`
	High   Figures        `json:"high_ping"`
	Groups []GroupFigures `json:"groups"`
	// Intervals gives the figures of study_conditions.csv with their 95%
	// confidence intervals.
	Intervals []Interval `json:"intervals"`
	// Duels sums up the duels of its rounds.
	Duels DuelFigures `json:"duels"`
}

// GroupFigures is the figures of the players at one round trip: people
// or, with Bots, bots.
type GroupFigures struct {
	RTTms float64 `json:"rtt_ms"`
	Bots  bool    `json:"bots"`
	Seats int     `json:"seats"`
	Figures
}

// Figures are the measures of a set of shots and kills.
type Figures struct {
	Shots       int     `json:"shots"`
	Hits        int     `json:"hits"`
	HitAccuracy float64 `json:"hit_accuracy"`
	// HitsReceived counts registered hits on the players; SBC those that
	// were behind cover on the victim's screen when the hit reached it
	// (objective SBC), and SBCPerHit their ratio.
	HitsReceived int     `json:"hits_received"`
	SBC          int     `json:"sbc"`
	SBCPerHit    float64 `json:"sbc_per_hit"`
	// Appeals counts hits the victim was asked about (alc), and Outcomes
	// what became of them (confirmed, denied_upheld, ...).
	Appeals  int            `json:"appeals"`
	Outcomes map[string]int `json:"appeal_outcomes,omitempty"`
	Kills    int            `json:"kills"`
	Deaths   int            `json:"deaths"`
	// SBCReports counts players' "I was shot behind cover" reports, and
	// SBCReportsPerHit their ratio to hits received.
	SBCReports       int     `json:"sbc_reports"`
	SBCReportsPerHit float64 `json:"sbc_reports_per_hit"`
	// RewoundHits counts the hits judged on a rewound world (a rewind
	// above zero), and RollbackMeanM and RollbackMaxM how far their
	// victims were moved back: the distance between the victim's rewound
	// and current positions.
	RewoundHits   int     `json:"rewound_hits"`
	RollbackMeanM float64 `json:"rollback_mean_m"`
	RollbackMaxM  float64 `json:"rollback_max_m"`
	// Verdicts sets the shooters' clients' verdicts on the row's
	// players' shots beside the server's (by the shooter's group).
	Verdicts Verdicts `json:"verdicts"`
}

// QuestionSummary sums up the answers to one question in one round.
type QuestionSummary struct {
	Round    int    `json:"round"`
	Question string `json:"question"`
	Kind     string `json:"kind"`
	N        int    `json:"n"`
	// Mean is the share of yes for a yes/no question, else the mean
	// answer; Median the median answer (Likert, fairness). Both are
	// absent for free text, whose answers Texts lists.
	Mean   *float64 `json:"mean,omitempty"`
	Median *float64 `json:"median,omitempty"`
	// CILo and CIHi bound a 95% confidence interval that stays within the
	// question's scale, as CIOf says: the yes share's Wilson score
	// interval (yes/no), or the median's distribution-free interval
	// between two of the answers (Likert, fairness; stats.MedianCI95),
	// absent under stats.MinMedianCI answers, where CINote says so.
	CILo   *float64 `json:"ci95_lo,omitempty"`
	CIHi   *float64 `json:"ci95_hi,omitempty"`
	CIOf   string   `json:"ci95_of,omitempty"`
	CINote string   `json:"ci95_note,omitempty"`
	Texts  []string `json:"texts,omitempty"`
}

// What a QuestionSummary's interval bounds.
const (
	CIOfYesShare = "yes share (Wilson score)"
	CIOfMedian   = "median (order statistics)"
)

// NTooSmall is a QuestionSummary's CINote when its answers are too few
// for a 95% interval of their median.
var NTooSmall = fmt.Sprintf("n too small: a 95%% interval of the median needs %d answers", stats.MinMedianCI)

// NoAnswersFromBots is the report's note when every seat was a bot.
const NoAnswersFromBots = "no answers: every seat was played by a bot, and bots answer no questionnaires"

// tally accumulates figures.
type tally struct {
	Figures
	seats       map[int]bool
	rollbackSum float64
}

func newTally() *tally { return &tally{seats: map[int]bool{}} }

func (t *tally) shot(s record.Shot, asShooter, asVictim bool) {
	if asShooter {
		t.Shots++
		if s.Registered && s.Victim >= 0 {
			t.Hits++
		}
		if s.Hit && s.Victim >= 0 && s.RewindMS > 0 {
			t.RewoundHits++
			t.rollbackSum += s.RollbackM
			t.RollbackMaxM = max(t.RollbackMaxM, s.RollbackM)
		}
	}
	if asVictim && s.Victim >= 0 {
		if s.Registered {
			t.HitsReceived++
			if s.ObjectiveSBC {
				t.SBC++
			}
		}
		if s.Appeal != "" {
			t.Appeals++
			if t.Outcomes == nil {
				t.Outcomes = map[string]int{}
			}
			t.Outcomes[s.Appeal]++
		}
	}
}

func (t *tally) done() Figures {
	f := t.Figures
	f.HitAccuracy = ratio(f.Hits, f.Shots)
	f.SBCPerHit = ratio(f.SBC, f.HitsReceived)
	f.SBCReportsPerHit = ratio(f.SBCReports, f.HitsReceived)
	f.RollbackMeanM = 0
	if f.RewoundHits > 0 {
		f.RollbackMeanM = t.rollbackSum / float64(f.RewoundHits)
	}
	return f
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// roundTally is one round as the Summariser tallies it: the round, each
// seat's round trip and team, and its figures, overall and by round-trip
// group.
type roundTally struct {
	rec    record.Round
	rtt    map[int]float64 // by seat
	teams  [2][]int
	bots   int
	people map[int]bool // the seats people hold
	// excluded are the people's seats the exclusion rules left out
	// (people false).
	excluded map[int]bool
	all      tally
	groups   map[groupKey]*tally
	// seats holds each seat's own figures, for comparisons by
	// participant, bootstrap intervals and the per-participant table;
	// codes and team the seat's participant code and team.
	seats map[int]*seatCounts
	codes map[int]string
	team  map[int]int
	// bins tallies the hits on people and their SBC reports by rollback.
	bins *binTally
	// duels tallies the round's duels.
	duels DuelFigures
	// verdicts gathers its shots' client verdicts (countVerdicts).
	verdicts verdictTally
}

// groupKey names a round-trip group: its round trip, and whether bots
// or people hold its seats.
type groupKey struct {
	rtt float64
	bot bool
}

// Summariser builds a Report from records as they come: it is a
// record.Sink, so the runner can hand it a study's records as they are
// made without anything keeping them (a 10-minute round of 12 bots makes
// some 150,000 path points). A round's participants must come before its
// observations, as Run puts them.
type Summariser struct {
	rep     Report
	studies int
	err     error
	rounds  []*roundTally
	byIndex map[int]*roundTally
	answers []record.Answer
	// instruments holds the questions, the intake and final answers and
	// the clients' reports.
	instruments instrumentTally
	// design holds the seat orders and the network records.
	design designTally
	// sched is what the study's schedule names: its techniques and
	// questions.
	sched scheduleInfo
	// study is the study's record and events its events, for the run's
	// information (RunInfo).
	study  record.Study
	events []record.Event
	// exclude holds the seats the exclusion rules left out: tallied as
	// bots' seats are, not as participants.
	exclude map[int]bool
	// cut and standIns are what report_dropouts.go lists.
	cut      []CutRound
	standIns []StandIn
}

// Summarise builds the report of the first study in recs.
func Summarise(recs []record.Record) (*Report, error) {
	var s Summariser
	for _, r := range recs {
		s.Put(r)
	}
	return s.Report()
}

// Put tallies r. Records after a second Study are ignored: a report is
// of one study.
func (s *Summariser) Put(r record.Record) {
	if st, ok := r.(record.Study); ok {
		if s.studies++; s.studies == 1 {
			s.rep.Study, s.rep.Seed, s.rep.Simulated, s.rep.Started = st.Name, fmt.Sprint(st.Seed), st.Simulated, st.Started.UTC()
			s.rep.Consent = st.Consent
			s.study = st
			s.byIndex = map[int]*roundTally{}
			s.sched = readScheduleInfo(st.Schedule)
		}
		return
	}
	switch {
	case s.studies > 1 || s.err != nil:
		return
	case s.studies == 0:
		s.err = fmt.Errorf("study: report: a %T record before the study's", r)
		return
	}
	switch v := r.(type) {
	case record.Round:
		v.Started, v.Ended = v.Started.UTC(), v.Ended.UTC()
		if v.Cut {
			// Its records stop where the game server was lost: none of
			// them counts (no tally takes the round's observations).
			s.cutRound(v)
			return
		}
		if rt := s.byIndex[v.Index]; rt != nil {
			rt.rec.Ended = v.Ended
			return
		}
		rt := &roundTally{rec: v, rtt: map[int]float64{}, people: map[int]bool{}, excluded: map[int]bool{}, all: *newTally(),
			groups: map[groupKey]*tally{}, seats: map[int]*seatCounts{}, codes: map[int]string{}, team: map[int]int{}, bins: newBinTally()}
		s.byIndex[v.Index] = rt
		s.rounds = append(s.rounds, rt)
	case record.Participant:
		if rt := s.byIndex[v.Round]; rt != nil {
			if _, again := rt.rtt[v.Seat]; again {
				// A seat recorded again (a rejoin) keeps its team and
				// group; its figures stay where they were tallied.
				return
			}
			rt.rtt[v.Seat] = conditionRTT(v)
			rt.people[v.Seat] = !v.Bot && !v.StandIn
			if v.StandIn {
				// A bot played the seat, from the round's start or from
				// when its person left: no one's, as a bot's seat is.
				s.standIn(v)
			}
			if s.rep.Simulated && s.sched.participant != nil {
				// A pilot is analysed as its live study will be: the
				// seats meant for people are the participants, though
				// bots played them; the bot seats stay bots.
				rt.people[v.Seat] = s.sched.participant[v.Seat]
			}
			if s.exclude[v.Seat] && rt.people[v.Seat] {
				rt.people[v.Seat], rt.excluded[v.Seat] = false, true
			}
			rt.codes[v.Seat], rt.team[v.Seat] = v.Code, v.Team
			if v.Team == 0 || v.Team == 1 {
				rt.teams[v.Team] = append(rt.teams[v.Team], v.Seat)
			}
			if v.Bot || v.StandIn {
				rt.bots++
			}
			rt.group(v.Seat)
			rt.all.seats[v.Seat] = true
		}
	case record.Question, record.Client:
		s.instruments.put(r)
	case record.SeatOrder, record.Network:
		s.design.put(r)
	case record.Frames:
		s.design.put(r)
		if rt := s.byIndex[roundOf(r)]; rt != nil {
			rt.observe(r)
		}
	case record.Event:
		s.events = append(s.events, v)
	case record.Answer:
		if !s.instruments.put(r) {
			s.answers = append(s.answers, v)
		}
	default:
		if rt := s.byIndex[roundOf(r)]; rt != nil {
			rt.observe(r)
		}
	}
}

// Close does nothing: a Summariser holds what it tallied for Report.
func (s *Summariser) Close() error { return nil }

// Report returns the report of what was put.
func (s *Summariser) Report() (*Report, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.studies == 0 {
		return nil, fmt.Errorf("study: report: no study record")
	}
	rep := s.rep
	recs := make([]record.Round, len(s.rounds))
	for i, rt := range s.rounds {
		recs[i] = rt.rec
	}
	rep.Run = runInfo(s.study, recs, s.events)
	seats := 0
	for _, rt := range s.rounds {
		for seat := range rt.rtt {
			seats = max(seats, seat+1)
		}
	}
	rep.Sessions = []SessionInfo{{Session: 1, Design: s.study.Design, Group: s.study.Group, Rounds: len(s.rounds), Seats: seats, Simulated: s.study.Simulated}}
	rep.Subjects = SubjectsBots
	for _, rt := range s.rounds {
		for seat, person := range rt.people {
			if person || rt.excluded[seat] {
				rep.Subjects = SubjectsPeople
			}
		}
	}
	rep.planned, rep.rules, rep.online = len(s.sched.rounds), s.sched.exclusion, s.sched.online
	rep.LowPingMS = cmp.Or(s.sched.lowPing, DefaultLowPingMS)
	bots := rep.Subjects == SubjectsBots
	techs := map[string]*techTally{}
	var order []string
	for _, rt := range s.rounds {
		rr := rt.report(bots, rep.LowPingMS)
		rr.Technique, rr.Setting = s.sched.technique(rt.rec)
		rep.Rounds = append(rep.Rounds, rr)
		// Techniques are told apart by name: two of the same settings
		// (a placebo, a repeated control) are two.
		t := techs[rr.Technique]
		if t == nil {
			t = &techTally{lowPing: rep.LowPingMS, all: *newTally(), groups: map[groupKey]*tally{}, seats: map[int]*seatTally{}, bins: newBinTally(), setting: rr.Setting}
			techs[rr.Technique] = t
			order = append(order, rr.Technique)
		}
		t.add(rr.Name, rt)
	}
	seed, _ := strconv.ParseUint(rep.Seed, 10, 64)
	for _, tech := range order {
		tr := techs[tech].report(tech, bots)
		tr.Intervals = techs[tech].intervals(&tr, seed, bots)
		rep.Techniques = append(rep.Techniques, tr)
	}
	rep.Questions = summariseAnswers(s.answers)
	rep.Instruments, rep.Clients = s.instruments.summaries()
	rep.SeatOrders, rep.Network = s.design.rows(s, bots)
	s.compare(&rep, techs, order)
	mainOutcome(&rep, techs, order)
	rep.adjust()
	rep.Participants = s.participantRounds(&rep)
	rep.AnswerColumns = s.answerColumns()
	rep.IntakeColumns = s.intakeColumns()
	for _, p := range rep.Participants {
		rep.SyntheticAnswers = rep.SyntheticAnswers || p.AnswerSource == AnswerSynthetic
	}
	if len(s.answers) == 0 && len(s.rounds) == 0 {
		rep.AnswersNote = "no answers: the study played no rounds"
	} else if len(s.answers) == 0 {
		allBots := true
		for _, rt := range s.rounds {
			allBots = allBots && rt.bots == len(rt.rtt)
		}
		if allBots {
			rep.AnswersNote = NoAnswersFromBots
		} else {
			rep.AnswersNote = "no answers were recorded"
		}
	}
	rep.Design, rep.Effects = rep.crossover(seed)
	rep.MinFPS = cmp.Or(s.sched.minFPS, DefaultMinFPS)
	s.rep.Clients = rep.Clients
	rep.Frames = s.frameRows(rep.MinFPS)
	rep.CutRounds, rep.StandIns = s.cut, s.standIns
	return &rep, nil
}

// roundOf returns the round an observation belongs to.
func roundOf(r record.Record) int {
	switch v := r.(type) {
	case record.Session:
		return v.Round
	case record.Shot:
		return v.Round
	case record.Kill:
		return v.Round
	case record.Objective:
		return v.Round
	case record.SBCReport:
		return v.Round
	case record.Duel:
		return v.Round
	case record.Path:
		return v.Round
	}
	return -1
}

// group returns the tally of seat's round-trip group, nil for a seat
// with no participant record.
func (rt *roundTally) group(seat int) *tally {
	rtt, ok := rt.rtt[seat]
	if !ok {
		return nil
	}
	k := groupKey{rtt, !rt.people[seat]}
	g := rt.groups[k]
	if g == nil {
		g = newTally()
		rt.groups[k] = g
	}
	g.seats[seat] = true
	return g
}

// observe tallies one of the round's observations.
func (rt *roundTally) observe(r record.Record) {
	switch v := r.(type) {
	case record.Shot:
		rt.verdicts.shot(v)
		rt.all.shot(v, true, true)
		rt.seat(v.Shooter).shot(v, true)
		if v.Victim >= 0 {
			rt.seat(v.Victim).shot(v, false)
		}
		if v.Registered && v.Victim >= 0 {
			if rt.people[v.Victim] {
				rt.bins.hit(v.RollbackM, v.ObjectiveSBC)
			}
		}
		if g := rt.group(v.Shooter); g != nil {
			g.shot(v, true, false)
		}
		if g := rt.group(v.Victim); g != nil {
			g.shot(v, false, true)
		}
	case record.Kill:
		rt.all.Kills++
		rt.all.Deaths++
		rt.seat(v.Killer).kills++
		rt.seat(v.Victim).deaths++
		if g := rt.group(v.Killer); g != nil {
			g.Kills++
		}
		if g := rt.group(v.Victim); g != nil {
			g.Deaths++
		}
	case record.Duel:
		rt.duels.add(v)
	case record.SBCReport:
		if rt.people[v.Reporter] {
			rt.bins.report(v)
		}
		rt.all.SBCReports++
		rt.seat(v.Reporter).reports++
		if g := rt.group(v.Reporter); g != nil {
			g.SBCReports++
		}
	}
}

// report returns the round's figures, its low- and high-ping figures
// those of the bots' groups when bots, else of the people's.
func (rt *roundTally) report(bots bool, lowPing float64) RoundReport {
	rt.countVerdicts()
	low, high := pingSplit(rt.groups, bots, lowPing)
	figs, seats := subjects(&rt.all, rt.groups, bots)
	return RoundReport{
		Index: rt.rec.Index, Name: rt.rec.Name, Map: rt.rec.Map, Mode: rt.rec.Mode,
		DurationS: rt.rec.Duration.Seconds(), Started: rt.rec.Started, Ended: rt.rec.Ended,
		Seats: seats, Bots: rt.bots, Teams: rt.teams, Figures: figs, Low: low, High: high,
		Groups: groupFigures(rt.groups), Duels: rt.duels,
	}
}

// subjects returns the figures of the study's subjects and their
// seats: in a study of bots alone every seat's (all), in one with people
// the people's groups pooled, the bots left out (they have rows of
// their own).
func subjects(all *tally, groups map[groupKey]*tally, bots bool) (Figures, int) {
	if bots {
		return all.done(), len(all.seats)
	}
	p := newTally()
	for k, g := range groups {
		if !k.bot {
			p.merge(g)
		}
	}
	return p.done(), len(p.seats)
}

// pingSplit pools the round-trip groups of bots (bots) or of people at
// or under lowPing and those above it.
func pingSplit(groups map[groupKey]*tally, bots bool, lowPing float64) (low, high Figures) {
	l, h := newTally(), newTally()
	for k, g := range groups {
		switch {
		case k.bot != bots:
		case k.rtt <= lowPing:
			l.merge(g)
		default:
			h.merge(g)
		}
	}
	return l.done(), h.done()
}

// groupFigures returns the groups by round trip, people's before bots'
// at each.
func groupFigures(groups map[groupKey]*tally) []GroupFigures {
	out := make([]GroupFigures, 0, len(groups))
	for k, g := range groups {
		out = append(out, GroupFigures{RTTms: k.rtt, Bots: k.bot, Seats: len(g.seats), Figures: g.done()})
	}
	slices.SortFunc(out, func(a, b GroupFigures) int {
		if c := cmp.Compare(a.RTTms, b.RTTms); c != 0 {
			return c
		}
		if a.Bots == b.Bots {
			return 0
		}
		if a.Bots {
			return 1
		}
		return -1
	})
	return out
}

// techTally pools rounds of one technique.
type techTally struct {
	lowPing float64 // Report.LowPingMS
	setting string
	rounds  []string
	all     tally
	groups  map[groupKey]*tally
	seats   map[int]*seatTally
	bins    *binTally
	duels   DuelFigures
}

// seatTally is one seat's figures under a technique: in all its rounds,
// in those it played at or under the report's LowPingMS (low) and in
// those above it (high), whether it played any of each, and whether a
// bot played it in any. A seat whose latency changes between rounds (a
// study that crosses latency with technique) is low-ping in some rounds
// of a technique and high-ping in others.
type seatTally struct {
	seatCounts
	low, high     seatCounts
	inLow, inHigh bool
	bot           bool
}

func (t *techTally) add(name string, rt *roundTally) {
	t.rounds = append(t.rounds, name)
	t.all.merge(&rt.all)
	for k, g := range rt.groups {
		if t.groups[k] == nil {
			t.groups[k] = newTally()
		}
		t.groups[k].merge(g)
	}
	for seat, rtt := range rt.rtt {
		st := t.seats[seat]
		if st == nil {
			st = &seatTally{}
			t.seats[seat] = st
		}
		part := &st.high
		if rtt <= t.lowPing {
			part, st.inLow = &st.low, true
		} else {
			st.inHigh = true
		}
		st.bot = st.bot || !rt.people[seat]
		if c := rt.seats[seat]; c != nil {
			st.add(c)
			part.add(c)
		}
	}
	t.bins.merge(rt.bins)
	t.duels.merge(&rt.duels)
}

func (t *techTally) report(name string, bots bool) TechniqueReport {
	low, high := pingSplit(t.groups, bots, t.lowPing)
	figs, seats := subjects(&t.all, t.groups, bots)
	return TechniqueReport{Name: name, Setting: t.setting, Rounds: t.rounds, Seats: seats, Figures: figs,
		Low: low, High: high, Groups: groupFigures(t.groups), Duels: t.duels}
}

// merge adds o's counts to t's.
func (t *tally) merge(o *tally) {
	t.Shots += o.Shots
	t.Hits += o.Hits
	t.HitsReceived += o.HitsReceived
	t.SBC += o.SBC
	t.Appeals += o.Appeals
	t.Kills += o.Kills
	t.Deaths += o.Deaths
	t.SBCReports += o.SBCReports
	t.RewoundHits += o.RewoundHits
	t.rollbackSum += o.rollbackSum
	t.RollbackMaxM = max(t.RollbackMaxM, o.RollbackMaxM)
	t.Verdicts.merge(&o.Verdicts)
	for k, v := range o.Outcomes {
		if t.Outcomes == nil {
			t.Outcomes = map[string]int{}
		}
		t.Outcomes[k] += v
	}
	for s := range o.seats {
		t.seats[s] = true
	}
}

// summariseAnswers sums up the answers per round and question, in the
// order the questions were first answered.
func summariseAnswers(answers []record.Answer) []QuestionSummary {
	type key struct {
		round    int
		question string
	}
	var keys []key
	byKey := map[key][]record.Answer{}
	for _, a := range answers {
		k := key{a.Round, a.Question}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], a)
	}
	out := make([]QuestionSummary, 0, len(keys))
	for _, k := range keys {
		as := byKey[k]
		q := QuestionSummary{Round: k.round, Question: k.question, Kind: as[0].Kind, N: len(as)}
		if q.Kind == record.Text {
			for _, a := range as {
				q.Texts = append(q.Texts, a.Text)
			}
		} else {
			vals := make([]float64, len(as))
			yes := 0
			for i, a := range as {
				vals[i] = float64(a.Value)
				if a.Value == 1 {
					yes++
				}
			}
			m := stats.Mean(vals)
			q.Mean = &m
			var lo, hi float64
			if q.Kind == record.YesNo {
				lo, hi = stats.WilsonCI95(yes, len(vals))
				q.CIOf = CIOfYesShare
			} else {
				var med float64
				med, lo, hi = stats.MedianCI95(vals)
				q.Median, q.CIOf = &med, CIOfMedian
			}
			if !math.IsNaN(lo) {
				q.CILo, q.CIHi = &lo, &hi
			} else {
				q.CINote = NTooSmall
			}
		}
		out = append(out, q)
	}
	return out
}

// seatCounts is one seat's figures: as shooter its shots, hits, kills
// and rewound hits with their rollback, as victim the hits it received,
// the SBC among them and its appeals, deaths and SBC reports.
type seatCounts struct {
	shots, hits, rewound       int
	hitsReceived, sbc, appeals int
	kills, deaths, reports     int
	rollbackSum                float64
}

// seat returns seat's counts, made on first use; for no seat (-1: a
// kill by the world) counts that are thrown away.
func (rt *roundTally) seat(seat int) *seatCounts {
	if seat < 0 {
		return &seatCounts{}
	}
	c := rt.seats[seat]
	if c == nil {
		c = &seatCounts{}
		rt.seats[seat] = c
	}
	return c
}

// shot counts s for the seat as its shooter or as its victim, as tally
// does.
func (c *seatCounts) shot(s record.Shot, asShooter bool) {
	if asShooter {
		c.shots++
		if s.Registered && s.Victim >= 0 {
			c.hits++
		}
		if s.Hit && s.Victim >= 0 && s.RewindMS > 0 {
			c.rewound++
			c.rollbackSum += s.RollbackM
		}
		return
	}
	if s.Registered {
		c.hitsReceived++
		if s.ObjectiveSBC {
			c.sbc++
		}
	}
	if s.Appeal != "" {
		c.appeals++
	}
}

func (c *seatCounts) add(o *seatCounts) {
	c.shots += o.shots
	c.hits += o.hits
	c.rewound += o.rewound
	c.hitsReceived += o.hitsReceived
	c.sbc += o.sbc
	c.appeals += o.appeals
	c.kills += o.kills
	c.deaths += o.deaths
	c.reports += o.reports
	c.rollbackSum += o.rollbackSum
}

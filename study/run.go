package study

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
)

// Driver plays the rounds of a study on some clock: the simulation
// driver (Simulate) with bots on a virtual clock, or a wall-clock driver
// with people joining by their seat's code.
type Driver interface {
	// Simulated reports bots in every seat on a virtual clock.
	Simulated() bool
	// Now reads the driver's clock.
	Now() time.Time
	// Wait lets d pass between rounds, returning early with ctx's error.
	Wait(ctx context.Context, d time.Duration) error
	// Play plays one round: the seats join, the warm-up runs, and when
	// the round asks for it every seat presses ready and the countdown
	// runs; then the measured part. Play calls start once, when the
	// measured part begins, with the team of each seat by seat, and puts the round's sessions, shots, kills,
	// objectives and paths into out, their At counted from that start.
	// It returns when the round ended.
	// Its bots play under seed.
	Play(ctx context.Context, p *Plan, seats []Seat, seed uint64, start func(at time.Time, teams []int), out record.Sink) (time.Time, error)
	// Ask puts the questionnaire to the seats people hold after round p
	// and returns their answers (none from bots).
	Ask(ctx context.Context, p *Plan, seats []Seat, qs []Question) ([]record.Answer, error)
}

// StandIns is a Driver whose bots may play some of the people's seats
// throughout (an online match formed short of people): Run records the
// seats BotPlays as bots', so that they count as no one's.
type StandIns interface {
	BotPlays(seat int) bool
}

// Dropouts is a Driver whose bots may take over a person's seat in the
// middle of the study, the person having left: Run records the seat's
// rounds from then on as stood in (record.Participant.StandIn), bots'
// by StandIns.
type Dropouts interface {
	StoodIn(seat int) bool
}

// RoundTimer is a Driver that knows how long the round it last played
// really ran: a live round can be paused, extended or skipped, so its
// measured part may run longer or shorter than planned. Run stores
// Played's figures as the round's Duration and Paused; a driver that is
// no RoundTimer plays every round for its planned duration.
type RoundTimer interface {
	// Played returns how long the measured part of the last round played
	// ran on the play clock (pauses left out, extensions in) and how long
	// it was paused.
	Played() (played, paused time.Duration)
}

// CodeGiver is a Driver that hands the people's seats codes of its own:
// a live study generates a code for each seat its schedule gives none.
// Run records Codes' code as the seat's participant code, so that a
// resumed session hands out the same codes and a later session of the
// study draws none of them.
type CodeGiver interface {
	// Codes returns the participant code of each person's seat, by seat.
	Codes() map[int]string
}

// TickRater is a Driver whose server runs at a tick rate of its own;
// the others run at DefaultTickRate.
type TickRater interface {
	TickRate() int
}

// DefaultTickRate is the server's tick rate on the simulation driver
// (package match's default).
const DefaultTickRate = 64

// BuildNote says where b's VCS revision came from when Go did not stamp
// it (source as Provenance returns it), or why b has none, "" when Go
// stamped it: Go stamps the revision into binaries built by go build
// or go install in a git checkout, not into those of go run or go test,
// nor with -buildvcs=false or outside a checkout.
func BuildNote(b experiment.Provenance, source string) string {
	switch {
	case b.Revision == "":
		return "no VCS revision in the build: Go stamps it into binaries built by go build or go install in a git checkout, " +
			"not into those of go run or go test, nor with -buildvcs=false or outside a checkout; " +
			"link it with -ldflags \"-X github.com/lagkit/lagkit/study.Revision=$(git rev-parse HEAD)\""
	case source == revisionLinked:
		return "the VCS revision was set at link time (study.Revision), not stamped by Go; vcs_modified is unknown and given as false"
	case source == revisionGit:
		return "the build carries no VCS revision: the revision and vcs_modified were read at run time, by git, from the lagkit checkout holding the working folder"
	}
	return ""
}

// Options set how a study runs.
type Options struct {
	// Seed seeds the bots: round k of a technique plays under
	// experiment.ReplicateSeed(Seed, k).
	Seed uint64
	// Progress, when set, is called as each round ends.
	Progress func(p *Plan, ended time.Time)
	// From is the index of the first round played: a study resumed after
	// a restart starts at the round it stopped in.
	From int
	// Resume continues a study the sink already holds: Run puts no
	// record.Study.
	Resume bool
}

// Run plays the schedule's rounds in order on d and puts every
// observation into sink: the Study and each seat's order of techniques
// (SeatOrder), then for each round its start, a
// Participant per seat with the seat's latency, what Play observed, the
// round's end and the answers to its questionnaire. It does not close
// sink. It first checks that d can play every round (Validate) and puts
// nothing when it cannot. When ctx is cancelled Run stops after what it
// was doing and returns an error wrapping ctx's; the records put so far
// stand.
func Run(ctx context.Context, s *Schedule, d Driver, sink record.Sink, opt Options) error {
	if opt.From < 0 || opt.From >= len(s.Plans()) {
		return fmt.Errorf("study %s: no round %d to start from (%d rounds)", s.Name, opt.From, len(s.Plans()))
	}
	if err := s.Validate(d.Simulated()); err != nil {
		return fmt.Errorf("study %s: %w", s.Name, err)
	}
	standIn := func(int) bool { return false }
	if si, ok := d.(StandIns); ok {
		standIn = si.BotPlays
	}
	stoodIn := func(int) bool { return false }
	if do, ok := d.(Dropouts); ok {
		stoodIn = do.StoodIn
	}
	if !opt.Resume {
		b, source := Provenance()
		st := record.Study{Name: s.Name, Schedule: s.Text(), ScheduleKey: s.Key(), Seed: opt.Seed, Simulated: d.Simulated(), Started: d.Now(),
			Design: s.Design(), Group: s.Group(), Version: b.Version, Revision: b.Revision, Modified: b.Modified, GoVersion: b.GoVersion,
			BuildNote: BuildNote(b, source), TickRate: DefaultTickRate, Consent: s.ConsentText(), Shortened: s.shortened}
		if tr, ok := d.(TickRater); ok {
			st.TickRate = tr.TickRate()
		}
		sink.Put(st)
		for _, t := range s.Techniques {
			sink.Put(record.Technique{Name: t.Name, Setting: t.String()})
		}
		for _, qs := range [][]Question{s.Intake, s.Questions, s.Final} {
			for i := range qs {
				sink.Put(qs[i].Record(i))
			}
		}
		for seat, order := range s.SeatOrders() {
			sink.Put(record.SeatOrder{Seat: seat, Group: s.Group(), Design: s.Design(), Order: strings.Join(order, ",")})
		}
	}
	var codes map[int]string
	if g, ok := d.(CodeGiver); ok {
		codes = g.Codes()
	}
	for i, p := range s.Plans() {
		if i < opt.From {
			continue
		}
		if i > opt.From {
			if err := d.Wait(ctx, s.Plans()[i-1].Interval); err != nil {
				return fmt.Errorf("study %s: before round %d (%s): %w", s.Name, i+1, p.Name, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("study %s: before round %d (%s): %w", s.Name, i+1, p.Name, err)
		}
		seed := experiment.ReplicateSeed(opt.Seed, p.Replicate)
		rec := record.Round{Index: p.Index, Name: p.Name, Map: p.Map, Mode: string(p.Mode),
			Technique: p.Technique.Name, Setting: p.Technique.String(), Duration: p.Duration, Planned: p.Duration,
			Seed: seed, Weapons: strings.Join(p.Loadout, ",")}
		started := false
		start := func(at time.Time, teams []int) {
			if started {
				return
			}
			started = true
			rec.Started = at
			sink.Put(rec)
			for _, st := range s.Seats() {
				// A seat meant for a person keeps its code when the
				// simulation has a bot play it, so that a simulated
				// study's records read as the live one's will.
				l := p.Links[st.Index]
				code := st.Code
				if c := codes[st.Index]; c != "" {
					code = c
				}
				sink.Put(record.Participant{Seat: st.Index, Code: code, Team: teams[st.Index],
					Bot: st.Bot || d.Simulated() || standIn(st.Index), Round: p.Index, LatencyMS: l.LatencyMS, JitterMS: l.JitterMS, Loss: l.Loss, TargetRTTMS: l.TargetRTTMS,
					StandIn: stoodIn(st.Index), Person: !st.Bot})
			}
		}
		ended, err := d.Play(ctx, p, s.Seats(), seed, start, sink)
		if err != nil {
			return fmt.Errorf("study %s: round %d (%s): %w", s.Name, i+1, p.Name, err)
		}
		if !started {
			return fmt.Errorf("study %s: round %d (%s): %w", s.Name, i+1, p.Name, errNoStart)
		}
		rec.Ended = ended
		if rt, ok := d.(RoundTimer); ok {
			rec.Duration, rec.Paused = rt.Played()
		}
		sink.Put(rec)
		answers, err := d.Ask(ctx, p, s.Seats(), s.Questions)
		if err != nil {
			return fmt.Errorf("study %s: questionnaire after round %d (%s): %w", s.Name, i+1, p.Name, err)
		}
		for _, a := range answers {
			sink.Put(a)
		}
		if opt.Progress != nil {
			opt.Progress(p, ended)
		}
	}
	return nil
}

var errNoStart = errors.New("the driver ended the round without starting it")

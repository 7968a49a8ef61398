package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/study"
)

// Run plays the schedule (study.Run) on d into sink: from the start, or
// with Config.Resume from the round it names, adding to the study sink
// already holds. The sink's puts are serialised, as the rounds' matches
// put from their own goroutines. An admin's end is a normal end.
func (d *Driver) Run(ctx context.Context, sink record.Sink, opt study.Options) error {
	sink = record.Locked(sink)
	err := d.run(ctx, sink, opt)
	if ctx.Err() != nil {
		// Stopped (a signal): the round is not over, and the study can
		// be resumed.
		d.event(record.EventStop, "stopped: "+context.Cause(ctx).Error())
		d.mu.Lock()
		d.phase, d.before, d.deadline = study.PhaseStopped, "", time.Time{}
		d.mu.Unlock()
		d.log.Warn("study stopped; run the same command again to resume it", "round", d.roundIndex())
		return err
	}
	if err == nil || errors.Is(err, study.ErrEnded) {
		d.event(record.EventOver, "")
	}
	d.setPhase(study.PhaseEnded, 0)
	if errors.Is(err, study.ErrEnded) {
		return nil
	}
	return err
}

// run is Run without its ending.
func (d *Driver) run(ctx context.Context, sink record.Sink, opt study.Options) error {
	r := d.resume
	if r == nil {
		// The event log waits for the study's record, which study.Run
		// puts first.
		return study.Run(ctx, d.cfg.Schedule, d, &afterStudy{Sink: sink, first: func() { d.attach(sink) }}, opt)
	}
	opt.From, opt.Resume = r.Round, true
	d.attach(sink)
	if r.Crashed {
		d.event(record.EventCrash, "the run before ended without a stop: killed, crashed or lost its power")
	}
	where := fmt.Sprintf("round %d after %.1f s of it", r.Round+1, r.Elapsed.Seconds())
	switch {
	case r.Round >= len(d.cfg.Schedule.Plans()):
		where = "the questionnaire after the last round"
	case r.Questions != nil:
		where = fmt.Sprintf("the questionnaire after round %d, then round %d", r.Questions.Round+1, r.Round+1)
	}
	d.event(record.EventResumed, where)
	if u := r.Questions; u != nil {
		if err := d.askAgain(ctx, sink, u); err != nil {
			return err
		}
	}
	if r.Round >= len(d.cfg.Schedule.Plans()) {
		// Stopped during the last questionnaire: it was put again, and
		// the study is over.
		return nil
	}
	return study.Run(ctx, d.cfg.Schedule, d, sink, opt)
}

// attach makes sink the event log's and puts the events that waited
// for it.
func (d *Driver) attach(sink record.Sink) {
	d.mu.Lock()
	if d.sink != nil {
		d.mu.Unlock()
		return
	}
	d.sink = sink
	pending, early := d.pending, d.early
	d.pending, d.early = nil, nil
	d.mu.Unlock()
	for _, e := range pending {
		sink.Put(e)
	}
	for _, r := range early {
		sink.Put(r)
	}
}

// afterStudy is a sink that calls first once it has passed on the
// study's record.
type afterStudy struct {
	record.Sink
	first func()
}

func (a *afterStudy) Put(r record.Record) {
	a.Sink.Put(r)
	if _, ok := r.(record.Study); ok {
		a.first()
	}
}

// poll is how often a waiting phase looks at the match.
const poll = 100 * time.Millisecond

// Play plays round p: a match with the round's technique and links, a
// bot in every bot seat, people joining theirs with their codes; the
// warm-up; when the round asks for it, the wait for every person's seat
// to press ready (Ready; bots are ready at once) and the 3-2-1
// countdown, the players frozen; then the measured part, recorded into
// out, until the round's time on the play clock is up (a pause stops
// it, an extension lengthens it) or the administrator skips it.
func (d *Driver) Play(ctx context.Context, p *study.Plan, seats []study.Seat, seed uint64, start func(time.Time, []int), out record.Sink) (time.Time, error) {
	select {
	case <-d.started:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	if d.isEnding() {
		return time.Time{}, study.ErrEnded
	}
	team := teams(p, len(seats))
	rc, err := d.matchConfig(p, seed, team)
	if err != nil {
		return time.Time{}, err
	}
	m, err := d.cfg.Host.Start(rc)
	if err != nil {
		return time.Time{}, err
	}
	// why is what the players are told when the match ends: a round
	// cut short by a stop is not over.
	why := "round over"
	defer func() { d.finish(m, why) }()
	var offset time.Duration
	var resumed *Resume
	d.mu.Lock()
	if d.resume != nil && d.resume.Round == p.Index {
		resumed, offset = d.resume, d.resume.Elapsed
	}
	d.resume = nil
	d.plan, d.out, d.played, d.ready, d.quest = p, out, map[int]bool{}, map[int]bool{}, nil
	d.measuring, d.team = false, team
	d.mu.Unlock()
	if err := m.Record(out, realtime.Recording{Round: p.Index, Offset: offset, PathRate: d.cfg.PathRate}); err != nil {
		return time.Time{}, err
	}
	if resumed != nil {
		for seat, t := range resumed.Tallies {
			if seat >= 0 && seat < len(seats) {
				if err := m.SetTally(d.playerName(seat), t); err != nil {
					return time.Time{}, err
				}
			}
		}
	}
	for i := range seats {
		if d.botPlays(i) {
			if err := m.AddBot(d.playerName(i), i); err != nil {
				return time.Time{}, err
			}
		}
	}
	// Only now may people join: their connects are recorded, their
	// statistics seeded.
	d.mu.Lock()
	d.match = m
	d.mu.Unlock()
	d.log.Info("round", "round", p.Index, "name", p.Name, "match", m.ID(), "technique", p.Technique.String())

	// Warm-up: played, not recorded, on the play clock (a pause holds it).
	// A resumed round was past its warm-up and its ready: it goes on with
	// its measured part at once, so that nothing unrecorded adds to the
	// statistics it was seeded with.
	if p.Warmup > 0 && resumed == nil {
		d.setPhase(study.PhaseWarmup, p.Warmup)
		if err := d.until(ctx, m, func(play time.Duration) bool { return play >= p.Warmup }); err != nil {
			return time.Time{}, err
		}
	}
	if p.Ready && resumed == nil {
		if err := m.Pause(); err != nil {
			return time.Time{}, err
		}
		d.setPhase(study.PhaseReady, 0)
		if err := d.until(ctx, m, func(time.Duration) bool { return d.everyoneReady() }); err != nil {
			return time.Time{}, err
		}
		d.setPhase(study.PhaseCountdown, study.Countdown)
		if err := d.sleep(ctx, study.Countdown); err != nil {
			return time.Time{}, err
		}
		if err := m.Resume(); err != nil {
			return time.Time{}, err
		}
	}

	// The measured part starts the round anew: nothing of the warm-up
	// counts, in the scores people see as in the records.
	if p.Warmup > 0 && resumed == nil {
		if err := m.Restart(); err != nil {
			return time.Time{}, err
		}
	}
	from, err := m.Measure()
	if err != nil {
		return time.Time{}, err
	}
	end := from + max(p.Duration-offset, 0)
	if err := m.EndAt(end); err != nil {
		return time.Time{}, err
	}
	d.mu.Lock()
	d.playEnd = end
	d.mu.Unlock()
	begun := time.Now()
	if resumed != nil && !resumed.Started.IsZero() {
		begun = resumed.Started
	}
	start(begun, team)
	d.mu.Lock()
	d.measuring, d.measureFrom, d.measureOffset = true, from, offset
	d.mu.Unlock()
	d.setPhase(study.PhasePlaying, 0)
	d.drainSkip()
	for {
		select {
		case <-m.Done():
			d.keepPlayed(m)
			return time.Now(), nil
		case <-d.skip:
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := m.End(ctx, "round skipped")
			cancel()
			if err != nil {
				return time.Time{}, err
			}
			d.keepPlayed(m)
			return time.Now(), nil
		case <-ctx.Done():
			why = "study stopped"
			return time.Time{}, ctx.Err()
		case <-time.After(poll):
			d.notePlayed(m)
		}
	}
}

// keepPlayed keeps the measured figures of m, which has ended, for
// Played.
func (d *Driver) keepPlayed(m *realtime.Match) {
	ran, paused := m.Measured()
	d.mu.Lock()
	d.ran, d.paused = ran, paused
	d.mu.Unlock()
}

// finish ends the round's match, if it has not ended, telling the
// players why, and keeps the statistics each seat ended it with.
func (d *Driver) finish(m *realtime.Match, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = m.End(ctx, why)
	cancel()
	d.putNetwork(m)
	last := map[int]server.Tally{}
	t := m.Tallies()
	for i := range d.seats {
		if v, ok := t[d.playerName(i)]; ok {
			last[i] = v
		}
	}
	d.mu.Lock()
	d.match, d.last = nil, last
	d.mu.Unlock()
}

// putNetwork puts each seat's link in the round m played as injected
// and as measured (record.Network), for the seats that played in its
// measured part.
func (d *Driver) putNetwork(m *realtime.Match) {
	d.mu.Lock()
	p, out := d.plan, d.out
	d.mu.Unlock()
	checks := m.NetChecks()
	if p == nil || out == nil || checks == nil {
		return
	}
	for seat := range d.seats {
		c, ok := checks[seat]
		if !ok {
			continue
		}
		l := p.Links[seat]
		out.Put(record.Network{Round: p.Index, Seat: seat, LatencyMS: l.LatencyMS, JitterMS: l.JitterMS, Loss: l.Loss, TargetRTTMS: l.TargetRTTMS,
			RTTMeanMS: c.RTT.Mean, RTTP50MS: c.RTT.P50, RTTP95MS: c.RTT.P95, RTTJitterMS: c.RTT.Jitter, RTTSamples: c.RTT.N,
			LossUp: c.Up.Loss(), LossDown: c.Down.Loss(), DelayUpMS: c.Up.MeanDelayMS(), DelayDownMS: c.Down.MeanDelayMS()})
	}
}

// until polls the match until done reports true of its play clock, the
// administrator skips, or ctx ends.
func (d *Driver) until(ctx context.Context, m *realtime.Match, done func(play time.Duration) bool) error {
	d.drainSkip()
	for {
		play, err := m.PlayTime()
		if err != nil {
			return fmt.Errorf("the round's match ended early: %s", m.Reason())
		}
		d.notePlayed(m)
		if done(play) {
			return nil
		}
		select {
		case <-d.skip:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// connected returns the seats connected to m.
func connected(m *realtime.Match) map[int]bool {
	info, err := m.Info()
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for _, pl := range info.Players {
		out[pl.Seat] = true
	}
	return out
}

// notePlayed notes the people connected to m as having played its
// round, and has a bot take the seat of each person who has been away
// longer than Config.Rejoin.
func (d *Driver) notePlayed(m *realtime.Match) {
	in := connected(m)
	now := time.Now()
	var gone []int
	d.mu.Lock()
	for seat := range in {
		if seat < len(d.seats) && !d.botPlays(seat) {
			d.played[seat] = true
			d.here[seat] = now
		}
	}
	if d.cfg.Rejoin > 0 {
		for seat, at := range d.here {
			if in[seat] || d.botPlays(seat) {
				continue
			}
			// The page asking the study's status counts as here: a
			// participant reloading, or between the match's links.
			if seen := d.seen[seat]; seen.After(at) {
				at = seen
			}
			if now.Sub(at) > d.cfg.Rejoin {
				gone = append(gone, seat)
			}
		}
	}
	d.mu.Unlock()
	for _, seat := range gone {
		if err := d.standIn(m, seat); err != nil {
			d.log.Error("stand-in", "seat", seat, "err", err)
		}
	}
}

// standIn has a bot take person's seat seat in m for the rest of the
// session: the seat is recorded as stood in from now on (in the round's
// measured part, from this match time), its page is told so, and
// Config.Dropout hears of it.
func (d *Driver) standIn(m *realtime.Match, seat int) error {
	d.mu.Lock()
	p, out := d.plan, d.out
	if p == nil || d.stoodIn[seat].Load() {
		d.mu.Unlock()
		return nil
	}
	reason := fmt.Sprintf("left mid-match (round %d of %d)", p.Index+1, len(d.cfg.Schedule.Plans()))
	d.left[seat] = reason
	d.stoodIn[seat].Store(true)
	// Gone: the questionnaire after the round does not wait for them.
	delete(d.played, seat)
	measuring, from, offset, team := d.measuring, d.measureFrom, d.measureOffset, d.team
	d.mu.Unlock()
	d.log.Warn("stand-in", "seat", seat, "reason", reason, "away_more_than", d.cfg.Rejoin)
	d.event(record.EventStandIn, fmt.Sprintf("seat %d: %s; a bot plays it from now on", seat, reason))
	if d.cfg.Dropout != nil {
		d.cfg.Dropout(seat, reason)
	}
	if measuring && out != nil {
		// The round's records began with the seat as its person's: the
		// participant record says from when a bot played it.
		at := offset
		if play, err := m.PlayTime(); err == nil {
			at += max(play-from, 0)
		}
		l := p.Links[seat]
		out.Put(record.Participant{Seat: seat, Code: d.codes[seat], Team: team[seat], Round: p.Index, LatencyMS: l.LatencyMS,
			JitterMS: l.JitterMS, Loss: l.Loss, TargetRTTMS: l.TargetRTTMS, StandIn: true, StandInAt: at, Person: true})
	}
	return m.AddBot(d.playerName(seat), seat)
}

// everyoneReady reports whether every person's seat has pressed ready.
func (d *Driver) everyoneReady() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.seats {
		if !d.botPlays(i) && !d.ready[i] {
			return false
		}
	}
	return true
}

// Ready presses ready for the seat of code, in a round that waits for
// every seat to be ready.
func (d *Driver) Ready(code string) error {
	seat, err := d.seatOf(code)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case closed(d.phase):
		return study.ErrEnded
	case d.phase != study.PhaseReady && d.phase != study.PhaseWarmup:
		return fmt.Errorf("live: no round is waiting for ready (%s)", d.phase)
	}
	d.ready[seat] = true
	return nil
}

// Ask puts the questionnaire to the people who played round p and
// waits for their answers: until each has answered, AnswerWait has
// passed, or the administrator skips. Each participant's answers go
// into the round's sink as they are given, so that a crash loses none;
// answers given after the wait still do. Ask returns none of its own.
//
// After the last round the final questions are put with the round's
// (study.Schedule.QuestionsAfter), whatever qs holds.
func (d *Driver) Ask(ctx context.Context, p *study.Plan, seats []study.Seat, qs []study.Question) ([]record.Answer, error) {
	qs = d.cfg.Schedule.QuestionsAfter(p.Index)
	d.mu.Lock()
	q := newQuestionnaire(p.Index, p.Name, qs)
	for seat := range d.played {
		q.asked[seat] = true
	}
	ask := len(qs) > 0 && len(q.asked) > 0
	if ask {
		d.quest = q
	}
	d.mu.Unlock()
	if !ask {
		return nil, nil
	}
	return nil, d.collect(ctx, q)
}

// collect waits for the answers to q: until each seat asked has
// answered, AnswerWait has passed, or the administrator skips.
func (d *Driver) collect(ctx context.Context, q *questionnaire) error {
	d.setPhase(study.PhaseQuestions, d.cfg.AnswerWait)
	d.drainSkip()
	timer := time.NewTimer(d.cfg.AnswerWait)
	defer timer.Stop()
	for {
		d.mu.Lock()
		all := len(q.answered) == len(q.asked)
		d.mu.Unlock()
		if all {
			return nil
		}
		select {
		case <-q.changed:
			continue
		case <-timer.C:
		case <-d.skip:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	}
}

// askAgain puts again the questionnaire a stopped study left
// unanswered (Resume.Questions) to the seats that had not answered it,
// each asked only the questions whose answers were not stored, and
// waits for them as Ask does.
func (d *Driver) askAgain(ctx context.Context, sink record.Sink, u *Unanswered) error {
	plans := d.cfg.Schedule.Plans()
	qs := d.cfg.Schedule.QuestionsAfter(u.Round)
	if u.Round < 0 || u.Round >= len(plans) || len(qs) == 0 {
		return nil
	}
	q := newQuestionnaire(u.Round, plans[u.Round].Name, qs)
	for seat, done := range u.Seats {
		q.asked[seat], q.done[seat] = true, done
	}
	d.mu.Lock()
	d.out, d.quest = sink, q
	d.mu.Unlock()
	d.log.Info("questionnaire put again", "round", u.Round, "seats", len(u.Seats))
	if err := d.collect(ctx, q); err != nil {
		return err
	}
	d.setPhase(study.PhaseWaiting, 0)
	return nil
}

// closed reports whether phase admits no one and takes no answers: the
// study is over, or stopped to be resumed by another run.
func closed(phase string) bool { return phase == study.PhaseEnded || phase == study.PhaseStopped }

package live

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/study"
)

// The participant instruments: the consent screen, the intake
// questionnaire, and what the participants' browsers report.

var _ study.Consenter = (*Driver)(nil)

// ConsentText returns the schedule's consent text and its button's
// label; "" without a consent screen.
func (d *Driver) ConsentText() (text, agree string) {
	if c := d.cfg.Schedule.Consent; c != nil {
		return c.Text, c.Agree
	}
	return "", ""
}

// NeedsConsent reports whether the participant holding code has yet to
// agree to the consent text (false for an unknown code, or a study
// without one).
func (d *Driver) NeedsConsent(code string) bool {
	seat, err := d.seatOf(code)
	if err != nil || d.cfg.Schedule.Consent == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.consented[seat]
}

// Agree records that the participant holding code agreed to the consent
// text, with what its browser reports (a record.Client of round -1,
// Consented set). Agreeing again records the report again; a study
// without consent refuses.
func (d *Driver) Agree(code string, c study.ClientInfo) error {
	if d.cfg.Schedule.Consent == nil {
		return fmt.Errorf("%w: this study has no consent screen", study.ErrInvalid)
	}
	return d.client(code, c, true)
}

// ReportClient records what the participant's browser reports on
// joining a round: a record.Client of the round being (or next) played.
func (d *Driver) ReportClient(code string, c study.ClientInfo) error {
	return d.client(code, c, false)
}

func (d *Driver) client(code string, c study.ClientInfo, consent bool) error {
	seat, err := d.seatOf(code)
	if err != nil {
		return err
	}
	if err := c.Check(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if closed(d.phase) {
		return study.ErrEnded
	}
	r := record.Client{Seat: seat, Round: study.IntakeRound, Consented: consent, At: time.Now(), RefreshHz: c.RefreshHz,
		Sensitivity: c.Sensitivity, UserAgent: c.UserAgent, ScreenW: c.ScreenW, ScreenH: c.ScreenH, PixelRatio: c.PixelRatio}
	if !consent {
		r.Round = d.roundIndexLocked()
	}
	if consent {
		if !d.consented[seat] {
			d.log.Info("participant agreed to the consent text", "seat", seat)
		}
		d.consented[seat] = true
	}
	d.putLocked(r)
	return nil
}

// answerIntake records seat's answers to the intake questions it has
// not answered; d.mu is held.
func (d *Driver) answerIntake(seat int, answers []study.Response) error {
	switch {
	case closed(d.phase):
		return study.ErrEnded
	case d.cfg.Schedule.Consent != nil && !d.consented[seat]:
		return study.ErrNoConsent
	case len(d.cfg.Schedule.Intake) == 0:
		return study.ErrNoQuestions
	}
	qs := unasked(d.cfg.Schedule.Intake, d.intake[seat])
	if len(qs) == 0 {
		return study.ErrAnswered
	}
	recs, err := check(seat, answers, qs)
	if err != nil {
		return err
	}
	if d.intake[seat] == nil {
		d.intake[seat] = map[string]bool{}
	}
	for _, r := range recs {
		r.Round = study.IntakeRound
		d.intake[seat][r.Question] = true
		d.putLocked(r)
	}
	return nil
}

// putLocked puts a record of the study's own (not of a round): into the
// study's sink, or, before the study's record, kept for it. d.mu is
// held; the sink's puts are serialised and quick.
func (d *Driver) putLocked(r record.Record) {
	if d.sink == nil {
		d.early = append(d.early, r)
		return
	}
	d.sink.Put(r)
}

// roundIndexLocked is roundIndex with d.mu held.
func (d *Driver) roundIndexLocked() int {
	if d.plan != nil {
		return d.plan.Index
	}
	if d.resume != nil {
		return min(d.resume.Round, len(d.cfg.Schedule.Plans())-1)
	}
	return 0
}

var _ study.FrameReporter = (*Driver)(nil)

// ReportFrames records how the participant's page drew round f.Round
// (a record.Frames; a second report of the round replaces the first):
// a round already started, played by the seat.
func (d *Driver) ReportFrames(code string, f study.FrameStats) error {
	seat, err := d.seatOf(code)
	if err != nil {
		return err
	}
	if err := f.Check(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.Round < 0 || f.Round > d.roundIndexLocked() {
		return fmt.Errorf("%w: round %d has not been played", study.ErrInvalid, f.Round)
	}
	d.putLocked(record.Frames{Seat: seat, Round: f.Round, Frames: f.Frames, MeanMS: f.MeanMS, P50MS: f.P50MS, P95MS: f.P95MS,
		P99MS: f.P99MS, MaxMS: f.MaxMS, RTTMeanMS: f.RTTMeanMS, RTTJitterMS: f.RTTJitterMS, RTTSamples: f.RTTSamples, At: time.Now()})
	return nil
}

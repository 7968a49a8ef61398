package study

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// RunSimulated plays every seat of s with bots on the simulation driver,
// seeded from seed (with synthetic, the seats also answer the
// questionnaires from the schedule's models), stores every record in db
// and returns the report, tallied as the rounds play. It tells progress
// of each round played and of the records stored. A study that stored
// no round is dropped from db again: it would pass for the newest.
// The run is a session of the study join names (Join.Target), or of a
// new one.
func RunSimulated(ctx context.Context, s *Schedule, db *store.DB, seed uint64, synthetic bool, join Join, progress io.Writer) (*Report, error) {
	target, err := join.Target(ctx, db, s, true)
	if err != nil {
		return nil, err
	}
	wall := time.Now()
	// The report is tallied as the rounds play: nothing keeps the
	// records themselves.
	var sum Summariser
	plans := len(s.Plans())
	played := func(p *Plan, _ time.Time) {
		fmt.Fprintf(progress, "study %s: round %d of %d (%s) played, %.0f s so far\n",
			s.Name, p.Index+1, plans, p.Name, time.Since(wall).Seconds())
	}
	w := db.NewWriter(store.WriterOptions{Set: target.ID, SetKey: s.StudyKey()})
	sim := NewSimulation(wall)
	if synthetic {
		sim.SyntheticAnswers(seed)
	}
	err = Run(ctx, s, sim, record.Tee(&sum, w), Options{Seed: seed, Progress: played})
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		if id := w.StudyID(); id != 0 {
			if derr := db.DropEmptyStudy(context.WithoutCancel(ctx), id); derr != nil {
				err = fmt.Errorf("%w (and %v)", err, derr)
			}
		}
		return nil, err
	}
	st := w.Stats()
	fmt.Fprintf(progress, "study %s: %d records stored in %s as %s\n", s.Name, st.Committed, db, SessionNote(target, w))
	rep, err := sum.Report()
	if err != nil {
		return nil, err
	}
	rep.StudyID = w.SetID()
	// The exclusion rules, if the schedule has them, and the flow (its
	// note) as study report gives them: the session read back without
	// the excluded.
	rep, err = rep.applyExclusions(func(exclude map[int]bool) (*Report, error) {
		row, err := db.FindStudy(ctx, strconv.FormatInt(w.StudyID(), 10))
		if err != nil {
			return nil, err
		}
		return readReport(ctx, db, row, exclude)
	})
	if err != nil {
		return nil, err
	}
	evs, err := db.LobbyEvents(ctx, rep.StudyID)
	if err != nil {
		return nil, err
	}
	rep.AddFlow(evs)
	return rep, nil
}

package study

import (
	"context"
	"fmt"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// ReadReport builds the report of a stored study from its records in
// db: the same Report its run tallied as it played, read back. It reads
// the study, its rounds and participants, then its shots, kills, SBC
// reports, duels, answers, questions, clients' reports, seat orders, network, frames and events, one table at a time (the movement paths, the
// bulk of a study, are not read).
func ReadReport(ctx context.Context, db *store.DB, s store.StudyRow) (*Report, error) {
	return readReport(ctx, db, s, nil)
}

// readReport is ReadReport with the seats of exclude left out of the
// participants.
func readReport(ctx context.Context, db *store.DB, s store.StudyRow, exclude map[int]bool) (*Report, error) {
	sum := Summariser{exclude: exclude}
	sum.Put(s.Study)
	if err := readInto(ctx, db, s, func(r record.Record) error { sum.Put(r); return nil }); err != nil {
		return nil, err
	}
	rep, err := sum.Report()
	if err != nil {
		return nil, err
	}
	rep.StudyID = s.Set
	return rep, nil
}

// readInto puts study s's records but the study's own into put, one
// table at a time.
func readInto(ctx context.Context, db *store.DB, s store.StudyRow, put func(record.Record) error) error {
	steps := []func() error{
		func() error { return store.Each(ctx, db, s.ID, func(r record.Round) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Participant) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Shot) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Kill) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.SBCReport) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Duel) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Answer) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Question) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Client) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.SeatOrder) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Network) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Frames) error { return put(r) }) },
		func() error { return store.Each(ctx, db, s.ID, func(r record.Event) error { return put(r) }) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("study: report of study %d (%s): %w", s.ID, s.Name, err)
		}
	}
	return nil
}

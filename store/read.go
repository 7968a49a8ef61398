package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/record"
)

// StudyRow is a stored study session (one study run, a row of the
// studies table) and the id the database gave it.
type StudyRow struct {
	ID int64
	// Set is the id of the study the session belongs to (its StudySet):
	// every session of a study has the same.
	Set int64
	record.Study
}

// Studies returns every study session in the database, oldest first.
func (db *DB) Studies(ctx context.Context) ([]StudyRow, error) {
	return db.sessions(ctx, "", nil)
}

// Sessions returns the sessions of study set, oldest first.
func (db *DB) Sessions(ctx context.Context, set int64) ([]StudyRow, error) {
	return db.sessions(ctx, " WHERE study_set = ?", set)
}

func (db *DB) sessions(ctx context.Context, where string, arg any) ([]StudyRow, error) {
	var args []any
	if arg != nil {
		args = append(args, arg)
	}
	q := db.dialect.rebind("SELECT id, COALESCE(study_set, 0), " + columnList(studiesTable) + " FROM studies" + where + " ORDER BY id")
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: studies: %w", db.name, err)
	}
	defer rows.Close()
	var out []StudyRow
	for rows.Next() {
		var s StudyRow
		dest := []any{&s.ID, &s.Set}
		for _, f := range studiesTable.bind(&s.Study) {
			dest = append(dest, f)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: %s: studies: %w", db.name, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: studies: %w", db.name, err)
	}
	return out, nil
}

// FindStudy returns the study session named by ref: its id, or its
// name when exactly one session has that name.
func (db *DB) FindStudy(ctx context.Context, ref string) (StudyRow, error) {
	all, err := db.Studies(ctx)
	if err != nil {
		return StudyRow{}, err
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for _, s := range all {
			if s.ID == id {
				return s, nil
			}
		}
	}
	var match []StudyRow
	for _, s := range all {
		if s.Name == ref {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		names := make([]string, len(all))
		for i, s := range all {
			names[i] = fmt.Sprintf("%d %q", s.ID, s.Name)
		}
		known := "the database holds no study"
		if len(names) > 0 {
			known = "known: " + strings.Join(names, ", ")
		}
		return StudyRow{}, fmt.Errorf("store: %s: no study %q (%s)", db.name, ref, known)
	}
	ids := make([]string, len(match))
	for i, s := range match {
		ids[i] = strconv.FormatInt(s.ID, 10)
	}
	return StudyRow{}, fmt.Errorf("store: %s: %d studies are named %q (ids %s): give the id", db.name, len(match), ref, strings.Join(ids, ", "))
}

// ErrStop, returned by an Each callback, ends the iteration early
// without an error.
var ErrStop = errors.New("store: stop")

// Each calls fn with every record of type T in study, in the order the
// study produced them (Study itself is read with Studies). Rounds and
// participants come once each, as last updated.
func Each[T record.Record](ctx context.Context, db *DB, study int64, fn func(T) error) error {
	var zero T
	t, _ := tableOf(zero)
	if t == nil || t == studiesTable {
		return fmt.Errorf("store: no table keeps %T records", zero)
	}
	return db.each(ctx, t, study, func() (any, []field) {
		v := new(T)
		return v, t.bind(v)
	}, func(p any) error { return fn(*p.(*T)) })
}

// All returns every record of type T in study, in order (see Each).
func All[T record.Record](ctx context.Context, db *DB, study int64) ([]T, error) {
	var out []T
	err := Each(ctx, db, study, func(r T) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// each scans t's rows of study: alloc returns a new record and its
// fields, fn gets each record.
func (db *DB) each(ctx context.Context, t *table, study int64, alloc func() (any, []field), fn func(any) error) error {
	rows, err := db.db.QueryContext(ctx, db.dialect.rebind(t.selectSQL()), study)
	if err != nil {
		return fmt.Errorf("store: %s: %s: %w", db.name, t.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		p, fs := alloc()
		dest := make([]any, len(fs))
		for i, f := range fs {
			dest[i] = f
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %s: %s of study %d: %w", db.name, t.name, study, err)
		}
		if err := fn(p); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %s: %s: %w", db.name, t.name, err)
	}
	return nil
}

func columnList(t *table) string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

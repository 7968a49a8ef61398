package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/record"
)

// ResumeWriter starts a Writer that adds to study, already in the
// database, after its last record: a study restarted after its process
// died carries on in the same study rather than a new one.
func (db *DB) ResumeWriter(ctx context.Context, study int64, opts WriterOptions) (*Writer, error) {
	var n int
	if err := db.db.QueryRowContext(ctx, db.dialect.rebind("SELECT COUNT(*) FROM studies WHERE id = ?"), study).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: %s: study %d: %w", db.name, study, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("store: %s: no study %d to resume", db.name, study)
	}
	var next int64
	for _, name := range Tables[1:] {
		var max sql.NullInt64
		q := db.dialect.rebind("SELECT MAX(seq) FROM " + name + " WHERE study_id = ?")
		if err := db.db.QueryRowContext(ctx, q, study).Scan(&max); err != nil {
			return nil, fmt.Errorf("store: %s: %s of study %d: %w", db.name, name, study, err)
		}
		if max.Valid && max.Int64+1 > next {
			next = max.Int64 + 1
		}
	}
	var set sql.NullInt64
	if err := db.db.QueryRowContext(ctx, db.dialect.rebind("SELECT study_set FROM studies WHERE id = ?"), study).Scan(&set); err != nil {
		return nil, fmt.Errorf("store: %s: study %d: %w", db.name, study, err)
	}
	w := db.NewWriter(opts)
	// The writer's goroutine reads these only once a record arrives.
	w.study.Store(study)
	w.set.Store(set.Int64)
	w.seq = next
	return w, nil
}

// RoundState is how far a stored study got in one round.
type RoundState struct {
	record.Round
	// Elapsed is the newest time of the round's measured events (shots,
	// kills, objectives, reports, paths): how much of the round was
	// played, as far as the database knows.
	Elapsed time.Duration
}

// Rounds returns the rounds of study stored so far, by index, with how
// much of each was played.
func (db *DB) Rounds(ctx context.Context, study int64) ([]RoundState, error) {
	rounds, err := All[record.Round](ctx, db, study)
	if err != nil {
		return nil, err
	}
	out := make([]RoundState, len(rounds))
	for i, r := range rounds {
		out[i].Round = r
		for _, name := range []string{"shots", "kills", "objectives", "sbc_reports", "paths"} {
			var max sql.NullInt64
			q := db.dialect.rebind("SELECT MAX(t_ns) FROM " + name + " WHERE study_id = ? AND round = ?")
			if err := db.db.QueryRowContext(ctx, q, study, r.Index).Scan(&max); err != nil {
				return nil, fmt.Errorf("store: %s: %s of study %d: %w", db.name, name, study, err)
			}
			if max.Valid && time.Duration(max.Int64) > out[i].Elapsed {
				out[i].Elapsed = time.Duration(max.Int64)
			}
		}
	}
	return out, nil
}

// DropEmptyStudy deletes study (a session), with its records, when it
// holds no round: what a run that failed before its first round started
// leaves, which would otherwise pass for the newest study. A study with
// a round is kept. A study set left without a session goes with it.
func (db *DB) DropEmptyStudy(ctx context.Context, study int64) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: dropping empty study %d: %w", db.name, study, err)
	}
	defer tx.Rollback()
	var set sql.NullInt64
	if err := tx.QueryRowContext(ctx, db.dialect.rebind("SELECT study_set FROM studies WHERE id = ?"), study).Scan(&set); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return fmt.Errorf("store: %s: dropping empty study %d: %w", db.name, study, err)
	}
	q := db.dialect.rebind("DELETE FROM studies WHERE id = ? AND NOT EXISTS (SELECT 1 FROM rounds WHERE study_id = ?)")
	if _, err := tx.ExecContext(ctx, q, study, study); err != nil {
		return fmt.Errorf("store: %s: dropping empty study %d: %w", db.name, study, err)
	}
	if set.Valid {
		q := db.dialect.rebind("DELETE FROM study_sets WHERE id = ? AND NOT EXISTS (SELECT 1 FROM studies WHERE study_set = ?)")
		if _, err := tx.ExecContext(ctx, q, set.Int64, set.Int64); err != nil {
			return fmt.Errorf("store: %s: dropping empty study %d: its set: %w", db.name, study, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %s: dropping empty study %d: %w", db.name, study, err)
	}
	return nil
}

// AdminToken returns the admin token stored with study (WriterOptions.
// AdminToken), "" when it has none.
func (db *DB) AdminToken(ctx context.Context, study int64) (string, error) {
	var tok string
	if err := db.db.QueryRowContext(ctx, db.dialect.rebind("SELECT admin_token FROM studies WHERE id = ?"), study).Scan(&tok); err != nil {
		return "", fmt.Errorf("store: %s: study %d: admin token: %w", db.name, study, err)
	}
	return tok, nil
}

// SetAdminToken stores tok as study's admin token: for a study stored
// before tokens were kept, whose resumed run draws one.
func (db *DB) SetAdminToken(ctx context.Context, study int64, tok string) error {
	if _, err := db.db.ExecContext(ctx, db.dialect.rebind("UPDATE studies SET admin_token = ? WHERE id = ?"), tok, study); err != nil {
		return fmt.Errorf("store: %s: study %d: admin token: %w", db.name, study, err)
	}
	return nil
}

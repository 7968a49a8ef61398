package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StudySet is a study as a researcher counts it: one or more sessions
// (study runs, a row of the studies table each, one counterbalancing
// group each) run under one schedule, which share its id, the study id
// reports and exports carry.
type StudySet struct {
	ID   int64
	Name string
	// Key identifies what its schedule sets, the counterbalancing group
	// left out (study.Schedule.StudyKey); "" for a study stored before
	// study ids were kept, whose first session's schedule tells.
	Key       string
	Simulated bool
	// Created is when its first session started (zero when unknown).
	Created time.Time
	// Sessions are its sessions, oldest first.
	Sessions []StudyRow
}

// Describe names s for a message that lists studies to choose from:
// its id, name, kind, sessions and start.
func (s StudySet) Describe() string {
	kind := "live"
	if s.Simulated {
		kind = "simulated"
	}
	sessions := "1 session"
	if len(s.Sessions) != 1 {
		sessions = fmt.Sprintf("%d sessions", len(s.Sessions))
	}
	when := ""
	if !s.Created.IsZero() {
		when = ", started " + s.Created.UTC().Format("2006-01-02 15:04 UTC")
	}
	return fmt.Sprintf("%d %q (%s, %s%s)", s.ID, s.Name, kind, sessions, when)
}

// StudySets returns every study in the database with its sessions,
// oldest first.
func (db *DB) StudySets(ctx context.Context) ([]StudySet, error) {
	rows, err := db.db.QueryContext(ctx, "SELECT id, name, schedule_key, simulated, created_ns FROM study_sets ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("store: %s: study_sets: %w", db.name, err)
	}
	defer rows.Close()
	var out []StudySet
	at := map[int64]int{}
	for rows.Next() {
		var s StudySet
		if err := rows.Scan(&s.ID, &s.Name, &s.Key, &s.Simulated, wall{&s.Created}); err != nil {
			return nil, fmt.Errorf("store: %s: study_sets: %w", db.name, err)
		}
		at[s.ID] = len(out)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: study_sets: %w", db.name, err)
	}
	sessions, err := db.Studies(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range sessions {
		if i, ok := at[r.Set]; ok {
			out[i].Sessions = append(out[i].Sessions, r)
		}
	}
	return out, nil
}

// FindStudySet returns the study ref names: its id, or its name when
// exactly one study has that name. Several studies of the name are an
// error that lists them.
func (db *DB) FindStudySet(ctx context.Context, ref string) (StudySet, error) {
	all, err := db.StudySets(ctx)
	if err != nil {
		return StudySet{}, err
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for _, s := range all {
			if s.ID == id {
				return s, nil
			}
		}
	}
	var match []StudySet
	for _, s := range all {
		if s.Name == ref {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		known := "the database holds no study"
		if len(all) > 0 {
			known = "known: " + DescribeSets(all)
		}
		return StudySet{}, fmt.Errorf("store: %s: no study %q (%s)", db.name, ref, known)
	}
	return StudySet{}, fmt.Errorf("store: %s: %d studies are named %q: %s; give --study the id of one", db.name, len(match), ref, DescribeSets(match))
}

// DescribeSets lists sets for a message, each as StudySet.Describe
// gives it.
func DescribeSets(sets []StudySet) string {
	out := make([]string, len(sets))
	for i, s := range sets {
		out[i] = s.Describe()
	}
	return strings.Join(out, ", ")
}

// NewStudySet stores a new study of s's name, key, kind and creation
// time, with no session yet, and returns its id: a live run creates its
// study before it serves anyone, to tell the researcher its id. A
// Writer's session joins it with WriterOptions.Set; DropEmptySet drops
// it again when no session came.
func (db *DB) NewStudySet(ctx context.Context, s StudySet) (int64, error) {
	created, _ := wall{&s.Created}.Value()
	var id int64
	q := db.dialect.rebind("INSERT INTO study_sets (name, schedule_key, simulated, created_ns) VALUES (?, ?, ?, ?) RETURNING id")
	if err := db.db.QueryRowContext(ctx, q, s.Name, s.Key, s.Simulated, created).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: %s: new study %q: %w", db.name, s.Name, err)
	}
	return id, nil
}

// DropEmptySet deletes study set when no session belongs to it and its
// lobby recorded nobody: a participant the lobby saw (refused at the
// prescreen, say) is part of the study's participant flow.
func (db *DB) DropEmptySet(ctx context.Context, set int64) error {
	q := db.dialect.rebind("DELETE FROM study_sets WHERE id = ? AND NOT EXISTS (SELECT 1 FROM studies WHERE study_set = ?)" +
		" AND NOT EXISTS (SELECT 1 FROM lobby_events WHERE study_set = ?)")
	if _, err := db.db.ExecContext(ctx, q, set, set, set); err != nil {
		return fmt.Errorf("store: %s: dropping empty study %d: %w", db.name, set, err)
	}
	return nil
}

// CutRounds marks cut (record.Round.Cut) the round each session of
// study set that gave one of codes to a person had started and not
// ended: the round a lost game server cut short. It returns how many
// rounds it marked.
func (db *DB) CutRounds(ctx context.Context, set int64, codes []string) (int, error) {
	if len(codes) == 0 {
		return 0, nil
	}
	args := []any{set}
	for _, c := range codes {
		args = append(args, c)
	}
	q := db.dialect.rebind(`UPDATE rounds SET cut = TRUE WHERE started_ns IS NOT NULL AND ended_ns IS NULL AND study_id IN (
		SELECT p.study_id FROM participants p JOIN studies s ON s.id = p.study_id
		WHERE s.study_set = ? AND NOT p.bot AND p.code IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(codes)), ", ") + `))`)
	res, err := db.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("store: %s: marking study %d's cut rounds: %w", db.name, set, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

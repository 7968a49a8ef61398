package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema change, migrations/NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their numbers must
// run 1, 2, 3, ... without a gap: the schema's version is the last one
// applied.
func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("store: migration %s: name must start with its number, as 0001_init.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migration %s: want number %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this lagkit writes: the number of
// its last migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies the migrations the database lacks, all in one
// transaction that holds the database's write lock (SQLite) or an
// advisory lock (PostgreSQL), so two processes opening a new database at
// once do not both migrate it.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].version
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: %w", db.name, err)
	}
	defer tx.Rollback()
	if db.dialect.lock != "" {
		if _, err := tx.ExecContext(ctx, db.dialect.lock); err != nil {
			return fmt.Errorf("store: %s: locking for migration: %w", db.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY,
		name TEXT NOT NULL,
		applied_ns BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: %s: %w", db.name, err)
	}
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("store: %s: reading the schema version: %w", db.name, err)
	}
	if have > latest {
		return fmt.Errorf("store: %s: database schema version %d is newer than this lagkit's (%d): use a newer lagkit", db.name, have, latest)
	}
	if have == latest {
		return nil
	}
	for _, m := range ms[have:] {
		if err := db.apply(ctx, tx, m); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %s: committing the schema: %w", db.name, err)
	}
	return nil
}

// apply runs one migration's statements (separated by a semicolon at the
// end of a line) and records it.
func (db *DB) apply(ctx context.Context, tx *sql.Tx, m migration) error {
	text := strings.ReplaceAll(m.sql, "{{identity}}", db.dialect.identity)
	for _, stmt := range strings.Split(text, ";\n") {
		if strings.TrimSpace(stripComments(stmt)) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("store: %s: migration %s: %w", db.name, m.name, err)
		}
	}
	_, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, ?, ?)`),
		m.version, m.name, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("store: %s: migration %s: %w", db.name, m.name, err)
	}
	return nil
}

// stripComments drops -- comments, so that a trailing comment is not
// taken for a statement.
func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
	}
	return b.String()
}

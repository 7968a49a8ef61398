package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lagkit/lagkit/internal/pgtest"
)

// TestMain runs the tests against a real PostgreSQL server too
// (pgtest), stopped after them; or, in a crash test's child process,
// writes until killed.
func TestMain(m *testing.M) {
	if os.Getenv(crashChild) != "" {
		crashChildMain()
		return
	}
	os.Exit(pgtest.Main(m))
}

// postgresURL returns the URL of a new, empty database on the test
// server, or skips t when there is no server (fails it when CI requires
// one).
func postgresURL(t testing.TB) string { return pgtest.URL(t) }

// eachDatabase runs f as a subtest on a new SQLite file and on a new
// PostgreSQL database: one code path, both databases.
func eachDatabase(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "study.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresURL(t)) })
}

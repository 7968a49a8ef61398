// Package pgtest gives tests a real PostgreSQL server: Debian's binaries
// (/usr/lib/postgresql/N/bin), a fresh cluster in a temporary folder on a
// free loopback port, started on a test's first URL call and stopped when
// the package's tests end (Main). As root the cluster runs as the
// postgres user, as PostgreSQL refuses to run as root. Each URL is a new,
// empty database on it.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Require names the environment variable that, set to 1 (as CI sets
// it), turns a missing PostgreSQL into a test failure instead of a skip.
const Require = "LAGKIT_REQUIRE_POSTGRES"

var srv struct {
	once sync.Once
	mu   sync.Mutex
	url  string // of the maintenance database, "" when no server runs
	why  string // why none runs
	stop func()
	next atomic.Int64
}

// Main runs the package's tests and then stops the server if one was
// started; a TestMain calls os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.stop != nil {
		srv.stop()
		srv.stop = nil
	}
	return code
}

// postgresBin returns the folder of the newest installed PostgreSQL's
// programs.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a < b
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL installed (/usr/lib/postgresql/*/bin/pg_ctl; Debian package postgresql)")
}

func start() (stop func(), err error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lagkit-pg-")
	if err != nil {
		return nil, err
	}
	as := func(name string, args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(bin, name), args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and no postgres user to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		as = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := as("initdb", "-D", data, "-U", "lagkit", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", port, dir)
	if out, err := as("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		logText, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, logText)
	}
	srv.url = fmt.Sprintf("postgres://lagkit@127.0.0.1:%d/postgres?sslmode=disable", port)
	return func() {
		as("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(dir)
	}, nil
}

// URL returns the URL of a new, empty database on the test server,
// starting the server on first use, or skips t when there is no server
// (fails it when Require is set to 1).
func URL(t testing.TB) string {
	t.Helper()
	srv.once.Do(func() {
		stop, err := start()
		srv.mu.Lock()
		defer srv.mu.Unlock()
		if err != nil {
			srv.why = err.Error()
			return
		}
		srv.stop = stop
	})
	if srv.url == "" {
		if os.Getenv(Require) == "1" {
			t.Fatalf("%s=1 but no PostgreSQL: %s", Require, srv.why)
		}
		t.Skipf("no PostgreSQL: %s", srv.why)
	}
	name := fmt.Sprintf("lagkit_test_%d", srv.next.Add(1))
	admin, err := sql.Open("pgx", srv.url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(srv.url, "/postgres?", "/"+name+"?", 1)
}

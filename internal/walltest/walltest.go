// Package walltest serialises the tests that measure the wall clock
// (live matches over sockets, a browser playing a match), and the tests
// that would starve them (a headless browser), across the packages
// `go test ./...` runs at once. Such a test asserts timing
// invariants (round trips within 15 ms of the injected latency, snapshots
// at the tick rate) that hold on a machine with a core to spare, not
// while another package's live match or headless browser takes it.
package walltest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Lock blocks until no other wall-clock test, in this process or another,
// holds the lock, and holds it until t and its subtests end. A wait of
// 100 ms or more is logged.
func Lock(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "lagkit-walltest.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatalf("walltest: %v", err)
	}
	start := time.Now()
	unlock, err := lock(f)
	if err != nil {
		f.Close()
		t.Fatalf("walltest: lock %s: %v", f.Name(), err)
	}
	if waited := time.Since(start); waited >= 100*time.Millisecond {
		// A test's time then includes others' wall-clock tests: say so,
		// so that its own length can be told apart.
		t.Logf("walltest: waited %v for the lock", waited.Round(time.Millisecond))
	}
	t.Cleanup(func() {
		unlock()
		f.Close()
	})
}

// Package browsertest checks report pages in headless Chromium for tests,
// with report/browser/check.mjs: the page must render offline, every plot
// drawn, nothing off the page, on a screen and printed.
package browsertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
)

// Check runs check.mjs on the report page at page, saving a full-page
// screenshot at shot, and returns the script's output; it fails t when
// the check does, and skips t where node, Debian's chromium or the
// script's node_modules are missing (report/browser/install.sh installs
// them).
func Check(t *testing.T, page, shot string) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "browser")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	for _, need := range []string{"/usr/bin/chromium", filepath.Join(dir, "node_modules", "playwright-core")} {
		if _, err := os.Stat(need); err != nil {
			t.Skipf("%s is missing; run report/browser/install.sh to enable this test", need)
		}
	}
	walltest.Lock(t) // a headless browser would starve a live match

	cmd := exec.CommandContext(t.Context(), node, filepath.Join(dir, "check.mjs"), page, shot)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser check failed: %v\n%s", err, out)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
	return string(out)
}

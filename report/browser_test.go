package report

import (
	"github.com/lagkit/lagkit/internal/walltest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReportInBrowser opens the sample report in headless Chromium with
// browser/check.mjs: it must render offline with every plot drawn. It is
// skipped where node, Debian's chromium or the script's node_modules are
// missing (browser/install.sh installs them).
func TestReportInBrowser(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	for _, need := range []string{"/usr/bin/chromium", "browser/node_modules/playwright-core"} {
		if _, err := os.Stat(need); err != nil {
			t.Skipf("%s is missing; run report/browser/install.sh to enable this test", need)
		}
	}
	walltest.Lock(t) // a headless browser would starve a live match

	dir := t.TempDir()
	if err := Write(dir, sample()); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	cmd := exec.CommandContext(t.Context(), node, "browser/check.mjs", filepath.Join(dir, HTMLFile), shot)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser check failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok: 2 plots rendered") {
		t.Errorf("browser check did not see both plots:\n%s", out)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
}

package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/report/browsertest"
)

// TestReportInBrowser opens the sample report in headless Chromium with
// browser/check.mjs: it must render offline with every plot drawn. It is
// skipped where node, Debian's chromium or the script's node_modules are
// missing (browser/install.sh installs them).
func TestReportInBrowser(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, sample()); err != nil {
		t.Fatal(err)
	}
	out := browsertest.Check(t, filepath.Join(dir, HTMLFile), filepath.Join(dir, "report.png"))
	if !strings.Contains(out, "ok: 2 plots rendered") {
		t.Errorf("browser check did not see both plots:\n%s", out)
	}
}

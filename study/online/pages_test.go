package online

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaywrightURL: PLAYWRIGHT_CORE may name playwright-core's folder,
// its index.mjs as a path or as a file: URL; each is the same file:
// URL, and a name of nothing is refused saying what is wanted.
func TestPlaywrightURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "playwright-core")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "index.mjs")
	if err := os.WriteFile(index, []byte("export {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "file://" + index
	for _, pw := range []string{dir, index, want} {
		if got, err := playwrightURL(pw); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", pw, got, err, want)
		}
	}
	if _, err := playwrightURL(filepath.Join(dir, "nothing")); err == nil || !strings.Contains(err.Error(), "want playwright-core's folder") {
		t.Errorf("a missing file: %v", err)
	}
}

package online

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

//go:embed page.mjs
var pageScript []byte

// Browser is what a rehearsal's pages run in: Node.js driving Chromium
// through playwright-core, as lagkit's browser tests do.
type Browser struct {
	// Node is the node executable, Chromium the browser's.
	Node, Chromium string
	// Playwright is the file: URL of playwright-core's index.mjs.
	Playwright string
}

// DefaultChromium is Debian's chromium, which report/browser/install.sh
// installs.
const DefaultChromium = "/usr/bin/chromium"

// FindBrowser finds node on PATH, Chromium at DefaultChromium and
// playwright-core where PLAYWRIGHT_CORE says (its folder, or its
// index.mjs as a path or a file: URL), else in lagkit's source tree as report/browser/install.sh
// installs it; it says what is missing.
func FindBrowser() (Browser, error) {
	var b Browser
	var missing []string
	if node, err := exec.LookPath("node"); err == nil {
		b.Node = node
	} else {
		missing = append(missing, "node is not on PATH")
	}
	if _, err := os.Stat(DefaultChromium); err == nil {
		b.Chromium = DefaultChromium
	} else {
		missing = append(missing, DefaultChromium+" is missing")
	}
	if pw := os.Getenv("PLAYWRIGHT_CORE"); pw != "" {
		u, err := playwrightURL(pw)
		if err != nil {
			return Browser{}, err
		}
		b.Playwright = u
	} else if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), "..", "..", "report", "browser", "node_modules", "playwright-core", "index.mjs")
		if _, err := os.Stat(p); err == nil {
			b.Playwright = (&url.URL{Scheme: "file", Path: filepath.Clean(p)}).String()
		}
	}
	if b.Playwright == "" {
		missing = append(missing, "playwright-core is not installed (set PLAYWRIGHT_CORE to its folder)")
	}
	if len(missing) > 0 {
		return Browser{}, fmt.Errorf("online: no browser for the pages: %s; run report/browser/install.sh from lagkit's source tree", strings.Join(missing, "; "))
	}
	return b, nil
}

// playwrightURL is the file: URL of playwright-core's index.mjs that
// PLAYWRIGHT_CORE names: that URL, the file's path, or the package's
// folder.
func playwrightURL(pw string) (string, error) {
	path := pw
	if u, err := url.Parse(pw); err == nil && u.Scheme == "file" {
		path = u.Path
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "index.mjs")
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("online: PLAYWRIGHT_CORE=%q: want playwright-core's folder, or its index.mjs as a path or a file: URL: %w", pw, err)
	}
	return (&url.URL{Scheme: "file", Path: abs}).String(), nil
}

// PageResult is how a participant's page went.
type PageResult struct {
	// State is the lobby page's last state, Reason its reason, Code the
	// completion code it showed.
	State, Reason, Code string
	// Rounds is how many rounds' matches the shooter page joined,
	// Answered how many questionnaires it answered, Requeued how often
	// the lobby gave it a new match after its game server was lost.
	Rounds, Answered, Requeued int
	Error                      string
}

// Play plays a participant in a Chromium page of its own from the
// study's join link (page.mjs) until the lobby's page shows the end;
// with shots it keeps the lobby's waiting, refused and completion pages
// there (lobby-waiting.png, lobby-prescreen-refused.png,
// lobby-complete.png).
func (b Browser) Play(ctx context.Context, joinURL, shots string) (PageResult, error) {
	dir, err := os.MkdirTemp("", "lagkit-page-")
	if err != nil {
		return PageResult{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "page.mjs")
	if err := os.WriteFile(script, pageScript, 0o644); err != nil {
		return PageResult{}, err
	}
	args := []string{script, joinURL, b.Chromium}
	if shots != "" {
		args = append(args, shots)
	}
	cmd := exec.CommandContext(ctx, b.Node, args...)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+b.Playwright)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return PageResult{}, fmt.Errorf("online: the page: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r PageResult
	if err := json.Unmarshal(out, &r); err != nil {
		return PageResult{}, fmt.Errorf("online: the page's result %q: %w", out, err)
	}
	if r.Error != "" {
		return r, errors.New("online: the page: " + r.Error)
	}
	return r, nil
}

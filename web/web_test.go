package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lagkit/lagkit/web/internal/wasmbuild"
	"github.com/lagkit/lagkit/world"
)

func get(t *testing.T, srv *httptest.Server, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport would otherwise ask for gzip itself and hide it.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// TestBundle checks that the page's script bundles with three.js from the
// embedded sources, keeping three.js's licence notice and the names the
// page's API and the browser's WebTransport rely on.
func TestBundle(t *testing.T) {
	js, err := Bundle()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Three.js Authors", "SPDX-License-Identifier: MIT", "serverCertificateHashes", "/lagkit/wt", "/lagkit/ws", "lagkitCore", "WebGLRenderer"} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("bundle lacks %q", want)
		}
	}
	if len(js) > 1<<20 {
		t.Errorf("bundle is %d bytes, want it minified under 1 MiB", len(js))
	}
}

// TestProbeBundle: the probe's script bundles on its own, opening the
// game's link (net.ts), and keeps the export a lobby's page imports.
func TestProbeBundle(t *testing.T) {
	js, err := bundle(files, probeEntry)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"serverCertificateHashes", "/lagkit/wt", "/lagkit/ws", "as measureAll"} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("probe bundle lacks %q", want)
		}
	}
	if bytes.Contains(js, []byte("WebGLRenderer")) {
		t.Error("the probe bundle carries three.js")
	}
}

// TestBundleErrors checks that a bundling error names the file and line,
// and that only relative imports and three are resolved.
func TestBundleErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"let x: number = ;", "shell/main.ts:1:"},
		{"import 'left-pad';", `import "left-pad"`},
		{"import './missing';", "missing.ts"},
	} {
		fsys := fstest.MapFS{"shell/main.ts": {Data: []byte(c.src)}}
		_, err := bundle(fsys, "shell/main.ts")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bundle(%q): error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

func TestHandlerServesPageAndMaps(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()

	res, body := get(t, srv, "/")
	if res.StatusCode != 200 || !strings.Contains(string(body), ScriptPath) || !strings.Contains(string(body), WasmExecPath) {
		t.Fatalf("GET /: %d, body names script %v", res.StatusCode, strings.Contains(string(body), ScriptPath))
	}
	res, body = get(t, srv, ScriptPath, "Accept-Encoding", "gzip")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET %s with gzip: %d %q %q", ScriptPath, res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Bundle()
	if !bytes.Equal(plain, want) {
		t.Errorf("gzipped script (%d bytes) differs from the bundle (%d)", len(plain), len(want))
	}
	res, _ = get(t, srv, ScriptPath, "If-None-Match", res.Header.Get("ETag"))
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("GET %s with its ETag: %d, want 304", ScriptPath, res.StatusCode)
	}

	for _, name := range world.Names() {
		res, body := get(t, srv, MapPath+name)
		if res.StatusCode != 200 {
			t.Fatalf("GET map %s: %d", name, res.StatusCode)
		}
		m, err := world.Parse(name+".json", body)
		if err != nil || m.Name != name {
			t.Errorf("map %s served does not parse as itself: %v", name, err)
		}
	}
	for _, path := range []string{MapPath + "nowhere", MapPath + "..%2fgo.mod", "/lagkit/other", "/favicon.ico"} {
		if res, _ := get(t, srv, path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

// prepare gets the client core ready, building it with the Go toolchain
// if need be, and skips the test where there is no toolchain.
func prepare(t testing.TB) {
	t.Helper()
	if _, err := wasmbuild.GoTool(); err != nil {
		t.Skipf("no Go toolchain to build the client core with: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	if err := Prepare(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHandlerServesTheClientCore builds the client core with the Go
// toolchain (or finds it in the cache) and checks what the page loads:
// a WebAssembly module and the wasm_exec.js of the same toolchain.
func TestHandlerServesTheClientCore(t *testing.T) {
	prepare(t)
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	res, body := get(t, srv, WasmPath)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" || !bytes.HasPrefix(body, []byte("\x00asm")) {
		t.Fatalf("GET %s: %d %q, %d bytes starting %q", WasmPath, res.StatusCode, res.Header.Get("Content-Type"), len(body), body[:min(4, len(body))])
	}
	res, body = get(t, srv, WasmExecPath)
	if res.StatusCode != 200 || !bytes.Contains(body, []byte("globalThis.Go")) {
		t.Fatalf("GET %s: %d, %d bytes", WasmExecPath, res.StatusCode, len(body))
	}
}

// TestSourceHashFollowsSources checks that the build's name changes when
// a source it is built from changes, and only then.
func TestSourceHashFollowsSources(t *testing.T) {
	goTool, err := wasmbuild.GoTool()
	if err != nil {
		t.Skipf("no Go toolchain: %v", err)
	}
	root, err := wasmbuild.SourceRoot()
	if err != nil {
		t.Fatal(err)
	}
	tc := wasmbuild.Toolchain{Go: goTool, Root: root}
	a, err := tc.Hash(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err := tc.Hash(t.Context())
	if err != nil || a != b {
		t.Fatalf("hash not stable: %s then %s (%v)", a, b, err)
	}
	// A copy of the tree with one changed bridge file hashes differently.
	tmp := t.TempDir()
	copyTree(t, root, tmp)
	other := wasmbuild.Toolchain{Go: goTool, Root: tmp}
	c, err := other.Hash(t.Context())
	if err != nil || c != a {
		t.Fatalf("an identical copy hashes %s, the original %s (%v)", c, a, err)
	}
	appendFile(t, tmp+"/web/bridge/bridge.go", "\n// changed\n")
	d, err := other.Hash(t.Context())
	if err != nil || d == a {
		t.Errorf("a changed source still hashes %s (%v)", d, err)
	}
}

// copyTree copies the module at src to dst, leaving out git's and npm's
// folders.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "results" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestCoreSources checks which client core is served: the embedded one
// when there are no sources or they hash as it was built, a build from
// the sources when they changed since, and a clear error when there is
// neither.
func TestCoreSources(t *testing.T) {
	if _, err := wasmbuild.GoTool(); err != nil {
		t.Skipf("no Go toolchain: %v", err)
	}
	ctx := t.Context()
	tc, err := sourceToolchain()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := tc.Hash(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dist := func(sum string) fstest.MapFS {
		return fstest.MapFS{
			"dist/client.wasm":     {Data: []byte("\x00asm embedded")},
			"dist/wasm_exec.js":    {Data: []byte("// embedded")},
			"dist/client.wasm.sum": {Data: []byte(sum + "\n")},
		}
	}
	none := func() (wasmbuild.Toolchain, error) { return wasmbuild.Toolchain{}, errors.New("no sources here") }
	sources := func() (wasmbuild.Toolchain, error) { return tc, nil }

	if w, _, err := loadCore(ctx, dist("old"), none); err != nil || string(w) != "\x00asm embedded" {
		t.Errorf("embedded, no sources: %q, %v; want the embedded core", w, err)
	}
	if w, _, err := loadCore(ctx, dist(hash), sources); err != nil || string(w) != "\x00asm embedded" {
		t.Errorf("embedded, sources unchanged: %q, %v; want the embedded core", w[:min(len(w), 16)], err)
	}
	if testing.Short() {
		return // the rest may build the core
	}
	w, exec, err := loadCore(ctx, dist("old"), sources)
	if err != nil || !bytes.HasPrefix(w, []byte("\x00asm")) || len(w) < 1<<20 || !bytes.Contains(exec, []byte("globalThis.Go")) {
		t.Errorf("embedded, sources changed: %d bytes, %v; want a fresh build", len(w), err)
	}
	if _, _, err := loadCore(ctx, fstest.MapFS{}, none); err == nil || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("neither embedded nor sources: %v; want an error that says to run go generate", err)
	}
}

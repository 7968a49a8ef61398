// Package wasmbuild builds lagkit's browser client core (web/wasm) to
// WebAssembly with the Go toolchain, and names a build by a hash of
// everything it is built from, so a build is reused until a source
// changes. The web package builds on demand with it; go generate in web
// uses it to prepare the core that release binaries embed.
package wasmbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Package is the import path of the client core's main package, relative
// to the module root.
const Package = "./web/wasm"

// SourceRoot returns the root of the lagkit module this package was
// compiled from, when its sources are still there: binaries built with
// -trimpath, or copied to another machine, have none.
func SourceRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", errors.New("wasmbuild: lagkit's sources are not known to this binary (built with -trimpath?)")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "web", "wasm", "main.go")); err != nil {
		return "", fmt.Errorf("wasmbuild: lagkit's sources are not at %s: %w", root, err)
	}
	return filepath.Clean(root), nil
}

// GoTool returns the go command to build with: $GOROOT/bin/go when GOROOT
// is set, else the first go on PATH, else the toolchain this binary was
// built with.
func GoTool() (string, error) {
	if r := os.Getenv("GOROOT"); r != "" {
		if p := filepath.Join(r, "bin", "go"); executable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	// runtime.GOROOT is deprecated, but the toolchain that built this
	// binary is the best guess left.
	if r := runtime.GOROOT(); r != "" {
		if p := filepath.Join(r, "bin", "go"); executable(p) {
			return p, nil
		}
	}
	return "", errors.New("wasmbuild: no Go toolchain found (set GOROOT or put go on PATH)")
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Toolchain is a Go toolchain and a module root to build from.
type Toolchain struct {
	Go   string // the go command
	Root string // the lagkit module root
}

func (t Toolchain) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, t.Go, args...)
	cmd.Dir = t.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("wasmbuild: go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Hash names a build: the Go version, go.mod and go.sum, and the content
// of every Go and embedded file of the module's packages the client core
// imports (as go list reports them for js/wasm). Packages from other
// modules are pinned by go.sum.
func (t Toolchain) Hash(ctx context.Context) (string, error) {
	const tmpl = `{{if not .Standard}}{{if .Module}}{{if eq .Module.Path "github.com/lagkit/lagkit"}}{{.Dir}}{{range .GoFiles}}|{{.}}{{end}}{{range .EmbedFiles}}|{{.}}{{end}}{{"\n"}}{{end}}{{end}}{{end}}`
	out, err := t.run(ctx, "list", "-deps", "-f", tmpl, Package)
	if err != nil {
		return "", err
	}
	ver, err := t.run(ctx, "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "go %s\n", bytes.TrimSpace(ver))
	add := func(path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("wasmbuild: %w", err)
		}
		rel, _ := filepath.Rel(t.Root, path)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := add(filepath.Join(t.Root, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Split(strings.TrimSpace(line), "|")
		for _, f := range fields[1:] {
			if err := add(filepath.Join(fields[0], f)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// Build compiles the client core to out (written whole or not at all) and
// returns the matching wasm_exec.js from the toolchain's GOROOT.
func (t Toolchain) Build(ctx context.Context, out string) (wasmExec []byte, err error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("wasmbuild: %w", err)
	}
	// A build cut short by the process ending leaves its temporary file;
	// clear those older than any build takes.
	if old, err := filepath.Glob(filepath.Join(filepath.Dir(out), ".client-*.wasm")); err == nil {
		for _, f := range old {
			if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) > time.Hour {
				os.Remove(f)
			}
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".client-*.wasm")
	if err != nil {
		return nil, fmt.Errorf("wasmbuild: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// -s -w drop the symbol table and debug information, which a browser
	// has no use for; -trimpath keeps the builder's paths out of the file.
	if _, err := t.run(ctx, "build", "-trimpath", "-ldflags=-s -w", "-o", tmp.Name(), Package); err != nil {
		return nil, err
	}
	if wasmExec, err = t.WasmExec(ctx); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("wasmbuild: %w", err)
	}
	return wasmExec, nil
}

// WasmExec returns the toolchain's wasm_exec.js, the JavaScript half of
// its js/wasm port: lib/wasm since Go 1.24, misc/wasm before.
func (t Toolchain) WasmExec(ctx context.Context) ([]byte, error) {
	out, err := t.run(ctx, "env", "GOROOT")
	if err != nil {
		return nil, err
	}
	goroot := string(bytes.TrimSpace(out))
	var errs []error
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		data, err := os.ReadFile(filepath.Join(goroot, p))
		if err == nil {
			return data, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("wasmbuild: wasm_exec.js not found in GOROOT %s: %w", goroot, errors.Join(errs...))
}

// Package page serves arena2d in a browser: a page that runs the
// arena2d client built to WebAssembly, which plays over WebSocket on the
// server that served it (arena2d-server -web). Build the client and
// fetch Go's loader beside it:
//
//	GOOS=js GOARCH=wasm go build -o dist/arena2d.wasm ./cmd/arena2d
//	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" dist/
//
// (Build does both.)
package page

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed index.html
var index []byte

// Files are what the page loads from a Handler's directory: the client
// built to WebAssembly and the loader of the Go that built it.
const (
	WASM   = "arena2d.wasm"
	Loader = "wasm_exec.js"
)

// Handler serves the page at / and the client and its loader from dir,
// which must hold both (Files); other paths are not found.
func Handler(dir string) (http.Handler, error) {
	for _, f := range []string{WASM, Loader} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("page: %w (build the client with page.Build or as the package says)", err)
		}
	}
	start := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "index.html", start, bytes.NewReader(index))
	})
	for _, f := range []string{WASM, Loader} {
		path := filepath.Join(dir, f)
		mux.HandleFunc("GET /"+f, func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, path)
		})
	}
	return mux, nil
}

// Build builds the client (the package cmd/arena2d of the module whose
// root is module) with GOOS=js GOARCH=wasm into dir, with the loader of
// the same Go, the go command on the PATH.
func Build(module, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := filepath.Abs(filepath.Join(dir, WASM))
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out, "./cmd/arena2d")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("page: build the client: %v\n%s", err, msg)
	}
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("page: go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(root))
	// Go 1.24 moved the loader from misc/wasm to lib/wasm.
	for _, sub := range []string{"lib/wasm", "misc/wasm"} {
		src, err := os.Open(filepath.Join(goroot, sub, Loader))
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		defer src.Close()
		dst, err := os.Create(filepath.Join(dir, Loader))
		if err != nil {
			return err
		}
		if _, err := io.Copy(dst, src); err != nil {
			dst.Close()
			return err
		}
		return dst.Close()
	}
	return fmt.Errorf("page: no %s under %s", Loader, goroot)
}

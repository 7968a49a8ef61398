package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/lagkit/lagkit/web/internal/wasmbuild"
)

//go:generate go run ./internal/gendist

// files holds the page's sources, three.js, and dist/, where go generate
// puts a prebuilt client core for release binaries (only its README is
// in git).
//
//go:embed shell third_party dist
var files embed.FS

// asset is one file as served: its bytes, a gzip copy when that is
// smaller by a tenth, and a strong ETag.
type asset struct {
	data, gz []byte
	etag     string
	ctype    string
}

func newAsset(data []byte, ctype string) *asset {
	sum := sha256.Sum256(data)
	a := &asset{data: data, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if b.Len() < len(data)*9/10 {
		a.gz = b.Bytes()
	}
	return a
}

// core is the client core and its wasm_exec.js, built once per process.
var core struct {
	once     sync.Once
	done     chan struct{}
	wasm     *asset
	wasmExec *asset
	err      error
}

// lazyBundle is a page's script, bundled from its entry once per
// process.
type lazyBundle struct {
	entry  string
	once   sync.Once
	bundle *asset
	err    error
}

// script and adminScript are the game page's and the admin page's,
// probeScript the probe's.
var (
	script      = &lazyBundle{entry: entry}
	adminScript = &lazyBundle{entry: adminEntry}
	probeScript = &lazyBundle{entry: probeEntry}
)

// startCore starts getting the client core ready, once.
func startCore() {
	core.once.Do(func() {
		core.done = make(chan struct{})
		go func() {
			defer close(core.done)
			wasm, exec, err := loadCore(context.Background(), files, sourceToolchain)
			if err != nil {
				core.err = err
				return
			}
			core.wasm = newAsset(wasm, "application/wasm")
			core.wasmExec = newAsset(exec, "text/javascript; charset=utf-8")
		}()
	})
}

// waitCore waits until the client core is ready or ctx is done.
func waitCore(ctx context.Context) error {
	startCore()
	select {
	case <-core.done:
		return core.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *lazyBundle) asset() (*asset, error) {
	b.once.Do(func() {
		js, err := bundle(files, b.entry)
		if err != nil {
			b.err = err
			return
		}
		b.bundle = newAsset(js, "text/javascript; charset=utf-8")
	})
	return b.bundle, b.err
}

// Prepare builds, or finds, the client core and bundles the page's
// script, and returns the first error: a server can call it at start to
// fail early, or leave the first requests to wait.
func Prepare(ctx context.Context) error {
	if _, err := script.asset(); err != nil {
		return err
	}
	return waitCore(ctx)
}

// sourceToolchain finds lagkit's source tree and a Go toolchain to build
// the client core from it.
func sourceToolchain() (wasmbuild.Toolchain, error) {
	root, err := wasmbuild.SourceRoot()
	if err != nil {
		return wasmbuild.Toolchain{}, err
	}
	goTool, err := wasmbuild.GoTool()
	if err != nil {
		return wasmbuild.Toolchain{}, err
	}
	return wasmbuild.Toolchain{Go: goTool, Root: root}, nil
}

// loadCore returns the client core and its wasm_exec.js: the ones
// embedded in dist when there are no sources to build from or they are
// unchanged since go generate, else a build from the sources, cached in
// the user cache directory by source hash.
func loadCore(ctx context.Context, fsys fs.FS, toolchain func() (wasmbuild.Toolchain, error)) (wasm, wasmExec []byte, err error) {
	embedded, embErr := fs.ReadFile(fsys, "dist/client.wasm")
	embExec, _ := fs.ReadFile(fsys, "dist/wasm_exec.js")
	embSum, _ := fs.ReadFile(fsys, "dist/client.wasm.sum")
	hasEmbedded := embErr == nil && embExec != nil
	t, err := toolchain()
	if err != nil {
		if hasEmbedded {
			return embedded, embExec, nil
		}
		return nil, nil, fmt.Errorf("web: the client core is not embedded (run go generate ./web before building a release) and cannot be built: %w", err)
	}
	hash, err := t.Hash(ctx)
	if err != nil {
		return nil, nil, err
	}
	if hasEmbedded && string(bytes.TrimSpace(embSum)) == hash {
		return embedded, embExec, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "lagkit", "web", hash)
	wasmPath, execPath := filepath.Join(dir, "client.wasm"), filepath.Join(dir, "wasm_exec.js")
	wasm, err1 := os.ReadFile(wasmPath)
	wasmExec, err2 := os.ReadFile(execPath)
	if err1 == nil && err2 == nil && len(wasm) > 0 {
		return wasm, wasmExec, nil
	}
	if wasmExec, err = t.Build(ctx, wasmPath); err != nil {
		return nil, nil, err
	}
	if wasm, err = os.ReadFile(wasmPath); err != nil {
		return nil, nil, fmt.Errorf("web: %w", err)
	}
	if len(wasm) == 0 {
		return nil, nil, errors.New("web: the client core build wrote an empty file")
	}
	// The cache is only a shortcut: failing to record wasm_exec.js costs
	// a rebuild next time, nothing more.
	_ = os.WriteFile(execPath, wasmExec, 0o644)
	return wasm, wasmExec, nil
}

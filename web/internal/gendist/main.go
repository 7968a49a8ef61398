// Command gendist prepares the client core that release binaries embed:
// run by `go generate ./web`, it builds web/wasm into web/dist/client.wasm
// with the Go toolchain, and writes beside it that toolchain's
// wasm_exec.js and the hash of the sources (client.wasm.sum), by which a
// binary tells whether the embedded core is still current.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lagkit/lagkit/web/internal/wasmbuild"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "gendist:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	root, err := wasmbuild.SourceRoot()
	if err != nil {
		return err
	}
	goTool, err := wasmbuild.GoTool()
	if err != nil {
		return err
	}
	t := wasmbuild.Toolchain{Go: goTool, Root: root}
	hash, err := t.Hash(ctx)
	if err != nil {
		return err
	}
	dist := filepath.Join(root, "web", "dist")
	exec, err := t.Build(ctx, filepath.Join(dist, "client.wasm"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dist, "wasm_exec.js"), exec, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dist, "client.wasm.sum"), []byte(hash+"\n"), 0o644)
}

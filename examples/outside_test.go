// Package examples_test checks that the example games under examples/
// are games any module could write: each is a Go module of its own
// (examples/arena2d) that imports only lagkit's exported packages.
package examples_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const lagkitPath = "github.com/lagkit/lagkit"

// lagkitRoot is lagkit's repository root, seen from examples/.
func lagkitRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("lagkit's root: %v", err)
	}
	return root
}

// internalImports returns, for every Go file under dir, the imports of
// a package internal to lagkit ("file: path").
func internalImports(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if isLagkitInternal(p) {
				found = append(found, path+": "+p)
			}
		}
		return nil
	})
	return found, err
}

// isLagkitInternal reports whether import path p is internal to lagkit
// (github.com/lagkit/lagkit/internal/..., or any .../internal/... below
// it): a module outside lagkit's path cannot import it.
func isLagkitInternal(p string) bool {
	if p != lagkitPath && !strings.HasPrefix(p, lagkitPath+"/") {
		return false
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == "internal" {
			return true
		}
	}
	return false
}

// TestNoInternalImports: no Go file under examples/ imports a package
// internal to lagkit. Inside lagkit's tree Go allows it (the example's
// module path begins with lagkit's), so only this check, or a build
// outside the tree (TestArena2DOutside), catches it.
func TestNoInternalImports(t *testing.T) {
	found, err := internalImports(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("imports a package internal to lagkit: %s", f)
	}
	// The check itself sees such an import.
	dir := t.TempDir()
	src := "package x\n\nimport _ \"github.com/lagkit/lagkit/internal/msec\"\nimport _ \"github.com/lagkit/lagkit/game\"\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, err := internalImports(dir); err != nil || len(found) != 1 || !strings.HasSuffix(found[0], "lagkit/internal/msec") {
		t.Errorf("internalImports found %q, %v; want the one internal import", found, err)
	}
	for p, want := range map[string]bool{
		"github.com/lagkit/lagkit/internal/msec":          true,
		"github.com/lagkit/lagkit/world/internal/mapgen":  true,
		"github.com/lagkit/lagkit/realtime":               false,
		"github.com/lagkit/lagkitx/internal/y":            false,
		"example.com/arena2d/internal/z":                  false,
		"github.com/lagkit/lagkit/examples/arena2d/arena": false,
	} {
		if got := isLagkitInternal(p); got != want {
			t.Errorf("isLagkitInternal(%q) = %v, want %v", p, got, want)
		}
	}
}

// copyModule copies the module at src to dst under the module path
// newPath in place of oldPath (in go.mod and in every Go file's
// imports), with lagkit replaced by the checkout at root. It skips
// node_modules and what a build leaves (dist).
func copyModule(t *testing.T, src, dst, oldPath, newPath, root string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == "dist" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".go") || d.Name() == "go.mod" {
			b = bytes.ReplaceAll(b, []byte(oldPath), []byte(newPath))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// go.mod's replace pointed at lagkit relative to the old folder.
	run(t, dst, nil, "go", "mod", "edit", "-replace", lagkitPath+"="+root)
}

// run runs a command in dir with env added, failing the test with its
// output if it fails, and returns its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := command(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func command(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestArena2DOutside copies examples/arena2d out of lagkit's tree, as
// the module example.com/arena2d with a replace of lagkit, and vets its
// game, package arena, there: go vet loads the package and its tests,
// refusing an import the module may not make, compiles what they import
// and type-checks the rest, so it is the build of a game in its own
// repository short of linking. (The desktop client, cmd/arena2d, needs
// X11's headers for Ebitengine: arena2d's own CI step vets it.) Then it
// adds one import of a package internal to lagkit and checks that it is
// refused, so the check can fail. arena2d's own go test runs its tests
// (minutes: live matches and a browser).
func TestArena2DOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("vets a copy of arena2d outside lagkit's tree")
	}
	root := lagkitRoot(t)
	dst := filepath.Join(t.TempDir(), "arena2d")
	copyModule(t, filepath.Join(root, "examples", "arena2d"), dst,
		lagkitPath+"/examples/arena2d", "example.com/arena2d", root)
	// -mod=mod lets go record the replace; the game's modules are
	// lagkit's, fetched as lagkit's own build fetches them.
	env := []string{"GOFLAGS=-mod=mod", "GOWORK=off"}
	if out, err := command(dst, env, "go", "vet", "./arena"); err != nil {
		t.Fatalf("go vet ./arena outside lagkit's tree: %v\n%s", err, out)
	}

	bad := "package arena\n\nimport _ \"github.com/lagkit/lagkit/internal/msec\"\n"
	if err := os.WriteFile(filepath.Join(dst, "arena", "internal_import.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := command(dst, env, "go", "vet", "./arena")
	if err == nil || !strings.Contains(out, "use of internal package") {
		t.Fatalf("an internal import outside lagkit's tree built: %v\n%s", err, out)
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A guide that shows a program's code quotes it from a file that is
// built and run (docs/your-game.md quotes the game of
// sim/example_game_test.go, an Example whose output go test checks), so
// the code a reader copies is code that compiles and does what the
// guide says. The file marks each quoted region with a line
// "// quote: NAME" before it and "// quote: end" after it; the guide
// marks the block with <!-- quote: FILE NAME -->. They must be equal
// byte for byte, and every region of a quoted file must be quoted.

// quoteRegions returns the regions of a source file by name, in order.
func quoteRegions(src string) (map[string]string, []string, error) {
	regions := map[string]string{}
	var order []string
	var name string
	var body []string
	open := false
	for i, l := range strings.Split(src, "\n") {
		m, ok := strings.CutPrefix(strings.TrimSpace(l), "// quote: ")
		switch {
		case !ok:
			if open {
				body = append(body, l)
			}
		case m == "end":
			if !open {
				return nil, nil, fmt.Errorf("line %d: quote: end without a region", i+1)
			}
			regions[name] = strings.Join(body, "\n")
			order = append(order, name)
			open, body = false, nil
		default:
			if open {
				return nil, nil, fmt.Errorf("line %d: region %s begins inside region %s", i+1, m, name)
			}
			if _, dup := regions[m]; dup || strings.ContainsAny(m, " \t") {
				return nil, nil, fmt.Errorf("line %d: region name %q taken or not one word", i+1, m)
			}
			name, open = m, true
		}
	}
	if open {
		return nil, nil, fmt.Errorf("region %s never ends", name)
	}
	return regions, order, nil
}

// quotedFile is a quoted source file's regions and which were quoted.
type quotedFile struct {
	regions map[string]string
	order   []string
	quoted  map[string]bool
}

// checkQuotes checks every quote-marked block of d against its region,
// and that every region of each quoted file is quoted. It returns the
// number of blocks checked.
func checkQuotes(root string, d docText) (int, []error) {
	var errs []error
	files := map[string]*quotedFile{} // nil: unreadable, reported once
	var names []string
	n := 0
	for _, b := range d.blocks {
		if b.quote == "" {
			continue
		}
		n++
		file, name, _ := strings.Cut(b.quote, " ")
		f, seen := files[file]
		if !seen {
			names = append(names, file)
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				errs = append(errs, fmt.Errorf("line %d: quote of %s: %v", b.line, file, err))
				files[file] = nil
				continue
			}
			regions, order, err := quoteRegions(string(src))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", file, err))
				files[file] = nil
				continue
			}
			f = &quotedFile{regions: regions, order: order, quoted: map[string]bool{}}
			files[file] = f
		}
		if f == nil {
			continue
		}
		text, ok := f.regions[name]
		if !ok {
			errs = append(errs, fmt.Errorf("line %d: %s has no region %s", b.line, file, name))
			continue
		}
		f.quoted[name] = true
		if b.text != text {
			errs = append(errs, fmt.Errorf("line %d: the block differs from region %s of %s: %s", b.line, name, file, firstDiff(b.text, text)))
		}
	}
	for _, file := range names {
		if f := files[file]; f != nil {
			for _, r := range f.order {
				if !f.quoted[r] {
					errs = append(errs, fmt.Errorf("region %s of %s is not quoted", r, file))
				}
			}
		}
	}
	return n, errs
}

// firstDiff describes the first line where got differs from want.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("its line %d is %q, the file's %q", i+1, gl, wl)
		}
	}
	return "equal"
}

// TestDocsQuotes checks that every block a guide marks as quoted is its
// file's region, byte for byte, and that docs/your-game.md quotes its
// game whole.
func TestDocsQuotes(t *testing.T) {
	root := repoRoot(t)
	total := 0
	for _, file := range docFiles(t, root) {
		n, errs := checkQuotes(root, readDoc(t, root, file))
		for _, err := range errs {
			t.Errorf("%s: %v", file, err)
		}
		if file == filepath.Join("docs", "your-game.md") && n < 5 {
			t.Errorf("%s quotes %d blocks of its game, want the game whole", file, n)
		}
		total += n
	}
	if total == 0 {
		t.Fatal("no quoted block in the documents")
	}
}

// TestDocsQuotesCatch: a block that drifted from its region, a region
// that is not there, one left unquoted and a region never ended are
// each reported.
func TestDocsQuotesCatch(t *testing.T) {
	root := t.TempDir()
	src := "package x\n\n// quote: a\nfunc A() {}\n// quote: end\n\n// quote: b\nfunc B() int {\n\treturn 1\n}\n// quote: end\n"
	if err := os.WriteFile(filepath.Join(root, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(doc string) []error {
		d, err := parseDoc(doc)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := checkQuotes(root, d)
		return errs
	}
	good := "<!-- quote: x.go a -->\n```go\nfunc A() {}\n```\n\ntext\n\n<!-- quote: x.go b -->\n```go\nfunc B() int {\n\treturn 1\n}\n```\n"
	if errs := check(good); len(errs) > 0 {
		t.Fatalf("good document: %v", errs)
	}
	for _, c := range []struct{ name, doc, want string }{
		{"drifted", strings.Replace(good, "return 1", "return 2", 1), `its line 2 is "\treturn 2", the file's "\treturn 1"`},
		{"a line short", strings.Replace(good, "\treturn 1\n", "", 1), "differs from region b"},
		{"no such region", strings.Replace(good, "x.go b", "x.go c", 1), "x.go has no region c"},
		{"unquoted region", good[:strings.Index(good, "\ntext")], "region b of x.go is not quoted"},
		{"no such file", "<!-- quote: y.go a -->\n```go\n```\n", "quote of y.go"},
	} {
		if errs := check(c.doc); !strings.Contains(fmt.Sprint(errs), c.want) {
			t.Errorf("%s: errors %v, want one with %q", c.name, errs, c.want)
		}
	}
	if _, _, err := quoteRegions("// quote: a\nx\n"); err == nil {
		t.Error("a region never ended was taken")
	}
	if _, _, err := quoteRegions("// quote: a\n// quote: b\n// quote: end\n"); err == nil {
		t.Error("a region inside a region was taken")
	}
}

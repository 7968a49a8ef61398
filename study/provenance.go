package study

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lagkit/lagkit/experiment"
)

// Revision, when set at link time, is the VCS revision the binary was
// built from, for builds that carry none of Go's own (-buildvcs=false,
// a tree without .git such as a container's build context):
//
//	go build -ldflags "-X github.com/lagkit/lagkit/study.Revision=$(git rev-parse HEAD)" ./cmd/lagkit
//
// Go's own stamp, when present, wins.
var Revision string

// revisionSource says where Provenance found the revision.
const (
	revisionStamped = ""
	revisionLinked  = "linked"
	revisionGit     = "git"
)

// Provenance returns the running binary's provenance (experiment.Build)
// with its revision made true however it was built: Go's stamp; else
// the link-time Revision; else, when the working folder lies in a git
// checkout of lagkit's own module (go run, go test, -buildvcs=false in
// the checkout), that checkout's HEAD and whether its tree is modified,
// read with git at run time. The second result names the source, for
// BuildNote.
func Provenance() (experiment.Provenance, string) {
	b := experiment.Build()
	switch {
	case b.Revision != "":
		return b, revisionStamped
	case Revision != "":
		b.Revision = Revision
		return b, revisionLinked
	}
	if rev, modified, ok := checkoutRevision(); ok {
		b.Revision, b.Modified = rev, modified
		return b, revisionGit
	}
	return b, revisionStamped
}

// module is lagkit's module path, which a checkout's go.mod must name
// for its revision to be taken for the running binary's.
const module = "github.com/lagkit/lagkit"

// checkoutRevision finds the lagkit checkout holding the working
// folder and returns its HEAD and whether its tree has uncommitted
// changes, by git (bounded to 5 s), or false when there is none.
func checkoutRevision() (rev string, modified, ok bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false, false
	}
	for {
		if gomod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if !namesModule(gomod) {
				return "", false, false
			}
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false, false
		}
		dir = up
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, false
	}
	rev = strings.TrimSpace(string(out))
	status, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return "", false, false
	}
	return rev, len(bytes.TrimSpace(status)) > 0, rev != ""
}

// namesModule reports whether go.mod's text declares lagkit's module.
func namesModule(gomod []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "module" {
			return f[1] == module
		}
	}
	return false
}

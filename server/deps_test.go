package server

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoGameRules: the server core is the netcode of any game and
// imports none of lagkit's shooter's rules (its modes, aim assistance
// and attribute scaling in shooter/, their glue in package shooter),
// which reach it through Config.Rules and Config.Adjust.
func TestImportsNoGameRules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/lagkit/lagkit/server" {
		t.Fatalf("go list -deps listed %d packages, not ending with the server: %q", len(deps), out)
	}
	for _, d := range deps {
		p := strings.TrimPrefix(d, "github.com/lagkit/lagkit/")
		switch {
		case p == "shooter", strings.HasPrefix(p, "shooter/"), p == "bot", p == "match", p == "nav":
			t.Errorf("server imports %s", d)
		}
	}
}

package server

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoGameRules: the cores are the netcode of any game and
// import nothing of lagkit's shooter (its weapons, modes, aim
// assistance, attribute scaling and bots under shooter/, their glue in
// package shooter), which reaches the server through Config.Step,
// Game, Shots, Spawn, Died, Rules and Adjust, and a client through
// client.Config.Step, Game and ShotRays.
func TestImportsNoGameRules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	for _, core := range []struct{ dir, pkg string }{{".", "server"}, {"../client", "client"}} {
		out, err := exec.Command(goTool, "list", "-deps", core.dir).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", core.dir, err, out)
		}
		deps := strings.Fields(string(out))
		want := "github.com/lagkit/lagkit/" + core.pkg
		if len(deps) == 0 || deps[len(deps)-1] != want {
			t.Fatalf("go list -deps %s listed %d packages, not ending with %s: %q", core.dir, len(deps), want, out)
		}
		for _, d := range deps {
			p := strings.TrimPrefix(d, "github.com/lagkit/lagkit/")
			switch {
			case p == "shooter", strings.HasPrefix(p, "shooter/"), p == "bot", p == "match", p == "nav":
				t.Errorf("%s imports %s", want, d)
			}
		}
	}
}

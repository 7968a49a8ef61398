package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lagkit/lagkit/internal/cfgfile"
)

// FuzzParse checks that no scenario text makes Parse panic, that every
// error names the file, and that what it accepts is complete enough to
// run.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*.toml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name = \"x\"\nmap = \"metro\"\n[[player]]\nname = \"a\"\npos = [0, 0, 0]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Parse in the shipped folder so relative maps resolve.
		sc, err := Parse("../scenarios/fuzz.toml", data)
		if err != nil {
			var e *cfgfile.Error
			if !errors.As(err, &e) || e.File != "../scenarios/fuzz.toml" {
				t.Fatalf("error %v (%T) is not a *cfgfile.Error naming the file", err, err)
			}
			return
		}
		if sc.world == nil || len(sc.Players) == 0 || sc.TickRate == 0 {
			t.Fatalf("accepted an incomplete scenario: %+v", sc)
		}
	})
}

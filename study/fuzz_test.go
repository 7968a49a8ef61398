package study

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lagkit/lagkit/internal/cfgfile"
)

// FuzzParse: no schedule makes Parse panic, and every refusal is a
// *cfgfile.Error naming the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	files, _ := filepath.Glob("../presets/*.toml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("name = \"x\"\n[[seat]]\ncount = -1\n"))
	f.Add([]byte("[[round]]\nduration = \"99:99\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			var ce *cfgfile.Error
			if !errors.As(err, &ce) || ce.File != "fuzz.toml" {
				t.Fatalf("error %v (%T) is not a *cfgfile.Error naming the file", err, err)
			}
			return
		}
		if len(s.Seats()) == 0 || len(s.Seats()) > MaxSeats || len(s.Plans()) == 0 {
			t.Fatalf("accepted %d seats and %d rounds", len(s.Seats()), len(s.Plans()))
		}
		for _, p := range s.Plans() {
			if len(p.Links) != len(s.Seats()) || p.Technique == nil {
				t.Fatalf("round %d: %d links for %d seats, technique %v", p.Index, len(p.Links), len(s.Seats()), p.Technique)
			}
		}
	})
}

package bots_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
)

// BenchmarkMatchCTF12 is the cost of 20 s of the 12-bot capture the flag
// match on metro that the alc experiment plays: bots' vision, paths and
// cover queries with the server, clients and links they play through.
func BenchmarkMatchCTF12(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := match.Run(match.Config{Map: "metro", Mode: mode.CTF, Bots: 12, Duration: 20 * time.Second, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

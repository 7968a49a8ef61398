package lagcomp_test

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/world"
)

// crowd is fixture.Crowd on metro for a test or benchmark.
func crowd(b testing.TB, count int) (*lagcomp.Tracer, []fixture.CrowdShot) {
	m, err := world.Load("metro")
	if err != nil {
		b.Fatal(err)
	}
	return fixture.Crowd(m.Grid, count)
}

// BenchmarkRewindTrace64 is the cost of one rewound shot on a full
// server: 64 players with a second of 128 Hz history on the metro map.
func BenchmarkRewindTrace64(b *testing.B) {
	tr, shots := crowd(b, 256)
	// Checked over all the shots, not those timed: a run of one
	// iteration (-benchtime 1x) may time a miss.
	hits := 0
	for _, s := range shots {
		if _, ok := tr.Trace(s.Ray, 200, s.T, s.Shooter); ok {
			hits++
		}
	}
	if hits == 0 {
		b.Fatal("no shot hit anyone: the benchmark measures nothing")
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := &shots[i%len(shots)]
		tr.Trace(s.Ray, 200, s.T, s.Shooter)
	}
}

// BenchmarkBehindCover is the cost of SBC detection for one hit, as the
// server runs it on every hit and every denial and the victim's client on
// every hit it receives.
func BenchmarkBehindCover(b *testing.B) {
	tr, shots := crowd(b, 256)
	type sbc struct {
		st    game.PlayerState
		part  game.PartKind
		local geom.Vec3
		eye   geom.Vec3
	}
	var cases []sbc
	for _, s := range shots {
		if h, ok := tr.Trace(s.Ray, 200, s.T, s.Shooter); ok {
			newest, _ := tr.History.Newest()
			now, _ := tr.History.At(h.Victim, tr.History.TickTime(newest))
			cases = append(cases, sbc{now, h.Part, h.Local, s.Ray.Origin})
		}
	}
	if len(cases) == 0 {
		b.Fatal("no hits to check")
	}
	behind := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		if lagcomp.BehindCover(c.st, c.part, c.local, c.eye, tr.Grid, tr.Params) {
			behind++
		}
	}
	_ = behind
}

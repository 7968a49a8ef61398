package reckoning

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// benchPath is a player circling at 4 m/s, sampled at 64 Hz.
func benchPath(n int) []State {
	out := make([]State, n)
	for i := range out {
		t := float64(i) / 64
		a := t * 4 / 10 // a circle of radius 10 m
		out[i] = State{T: time.Duration(t * float64(time.Second)),
			Pos: geom.V(10*math.Cos(a), 10*math.Sin(a), 0), Vel: geom.V(-4*math.Sin(a), 4*math.Cos(a), 0)}
	}
	return out
}

// benchFrames replays one frame per iteration through a sender and a
// receiver, as a server does for each entity and each client.
func benchFrames(b *testing.B, p Policy) {
	path := benchPath(64 * 60)
	snd := Sender{Policy: p, Order: Second}
	rcv := Model{Order: Second}
	var sink geom.Vec3
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		st := path[i%len(path)]
		st.T += time.Duration(i/len(path)) * time.Minute
		if blend, due := snd.Step(st, false); due {
			rcv.Update(st, blend)
		}
		sink = sink.Add(rcv.At(st.T))
	}
	_ = sink
}

func BenchmarkDeadFrame(b *testing.B) { benchFrames(b, Dead{}) }

func BenchmarkLedFrame(b *testing.B) {
	tm := &TrendMap{Map: "b", Team: -1, Bounds: geom.Box(geom.V(-12, -12, 0), geom.V(12, 12, 0)), NX: DefaultGrid, NY: DefaultGrid}
	var samples []Sample
	for _, s := range benchPath(64 * 60) {
		samples = append(samples, Sample{T: s.T, Pos: s.Pos})
	}
	if err := tm.Build(samples); err != nil {
		b.Fatal(err)
	}
	benchFrames(b, Led{Trend: tm})
}

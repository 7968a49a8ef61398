package lagcomp

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

const dt = time.Second / 64

func record(h *History, from, to uint32) {
	for n := from; n <= to; n++ {
		h.Begin(n)
		// Player 0 walks along +X at 1 unit per tick; player 1 stands.
		h.Set(0, game.PlayerState{Pos: geom.V(float64(n), 0, 0), Yaw: uint16(n * 100)})
		h.Set(1, game.PlayerState{Pos: geom.V(5, 5, 0)})
	}
}

func TestHistoryAt(t *testing.T) {
	h := NewHistory(dt, time.Second, 4)
	record(h, 1, 200)
	cases := []struct {
		name string
		id   int
		t    time.Duration
		want float64 // X of player 0, or -1 for "not found"
	}{
		{"on a tick", 0, 150 * dt, 150},
		{"between ticks", 0, 150*dt + dt/4, 150.25},
		{"newest", 0, 200 * dt, 200},
		{"after newest holds newest", 0, 300 * dt, 200},
		{"oldest held", 0, 135 * dt, 135},
		{"older than the span", 0, 100 * dt, -1},
		{"negative time", 0, -dt, -1},
		{"absent player", 2, 150 * dt, -1},
		{"out of range player", 9, 150 * dt, -1},
	}
	for _, tc := range cases {
		got, ok := h.At(tc.id, tc.t)
		if tc.want < 0 {
			if ok {
				t.Errorf("%s: found %v, want none", tc.name, got.Pos)
			}
			continue
		}
		if !ok || got.Pos.X != tc.want {
			t.Errorf("%s: got %v (ok %v), want x=%v", tc.name, got.Pos, ok, tc.want)
		}
	}
	if o, _ := h.Oldest(); o != 135 {
		t.Errorf("oldest %d, want 135 (1 s at 64 Hz plus both ends)", o)
	}
	if s, ok := h.At(1, 170*dt+dt/2); !ok || s.Pos != geom.V(5, 5, 0) {
		t.Errorf("standing player moved: %v", s.Pos)
	}
}

func TestHistoryDoesNotSlideAcrossTeleport(t *testing.T) {
	h := NewHistory(dt, time.Second, 1)
	h.Begin(1)
	h.Set(0, game.PlayerState{Pos: geom.V(0, 0, 0), Teleport: 1})
	h.Begin(2)
	h.Set(0, game.PlayerState{Pos: geom.V(50, 0, 0), Teleport: 2})
	if s, _ := h.At(0, dt+dt/4); s.Pos.X != 0 {
		t.Errorf("a quarter of the way: x=%v, want 0 (no sliding)", s.Pos.X)
	}
	if s, _ := h.At(0, dt+3*dt/4); s.Pos.X != 50 {
		t.Errorf("three quarters of the way: x=%v, want 50", s.Pos.X)
	}
}

func TestInterpolateYawTakesShortArc(t *testing.T) {
	a := game.PlayerState{Yaw: 65000}
	b := game.PlayerState{Yaw: 500}
	got := game.Interpolate(a, b, 0.5).Yaw
	// 65000 -> 500 is 1036 units forward across the wrap; half is 518.
	if want := uint16(65000 + 518); got != want {
		t.Fatalf("yaw %d, want %d", got, want)
	}
}

func BenchmarkHistoryAt(b *testing.B) {
	h := NewHistory(time.Second/128, time.Second, 64)
	for n := uint32(1); n <= 1000; n++ {
		h.Begin(n)
		for id := range 64 {
			h.Set(id, game.PlayerState{Pos: geom.V(float64(n), float64(id), 0)})
		}
	}
	b.ReportAllocs()
	var sink float64
	for i := range b.N {
		t := time.Duration(900+i%90)*time.Second/128 + time.Millisecond
		s, _ := h.At(i%64, t)
		sink += s.Pos.X
	}
	_ = sink
}

// TestPosAtMatchesAt checks PosAt against At, and Instant.PosAt against
// PosAt, on random scenes: the same
// position and teleport count, bit for bit, at times on and between
// ticks, across teleports and gaps, before and after the history.
func TestPosAtMatchesAt(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for seed := uint64(1); seed <= 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		tr, now := randomScene(rng, m.Grid)
		h := tr.History
		for range 300 {
			_, at, _ := randomShot(rng, tr, now)
			id := rng.IntN(h.maxPlayers + 1)
			st, ok := h.At(id, at)
			pos, teleport, ok2 := h.PosAt(id, at)
			if ok != ok2 || ok && (pos != st.Pos || teleport != st.Teleport) {
				t.Fatalf("seed %d: PosAt(%d, %v) = %v, %d, %v; At gives %v, %d, %v", seed, id, at, pos, teleport, ok2, st.Pos, st.Teleport, ok)
			}
			in := h.Instant(at)
			if pos3, teleport3, ok3 := in.PosAt(id); ok3 != ok2 || pos3 != pos || teleport3 != teleport {
				t.Fatalf("seed %d: Instant(%v).PosAt(%d) = %v, %d, %v; PosAt gives %v, %d, %v", seed, at, id, pos3, teleport3, ok3, pos, teleport, ok2)
			}
			if ok {
				checked++
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d positions compared", checked)
	}
}

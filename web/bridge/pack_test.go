package bridge

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// unpack reads a packed frame as the page does: float32s.
func unpack(b []byte) []float64 {
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out
}

// TestPackMatchesState checks that the packed frame the page draws from
// says what State says: the local player, every remote player with its
// flags and hitboxes, the eye, the phase, and that events wait for Info.
func TestPackMatchesState(t *testing.T) {
	l := newLoop(t, 3, 10*time.Millisecond)
	l.run(1500*time.Millisecond, func(i int) Input { return Input{Forward: 1, Crouch: i == 0} })
	s := l.sessions[0]
	buf := make([]byte, PackSize)
	if n := s.Pack(l.now, buf[:PackSize-1]); n != 0 {
		t.Errorf("Pack into a short buffer wrote %d bytes", n)
	}
	s.event(Event{Kind: "kill", Other: 1, Killer: 2})
	n := s.Pack(l.now, buf)
	st := s.State(l.now)
	f := unpack(buf[:n])
	players, projectiles := int(f[1]), int(f[2])
	if f[0] != PackVersion || f[3] != PlayerValues || players != len(st.Players) || projectiles != len(st.Projectiles) {
		t.Fatalf("header %v, want %d players and %d projectiles", f[:PackHeader], len(st.Players), len(st.Projectiles))
	}
	if want := PackHeader + (1+players)*PlayerValues + projectiles*ProjectileValue; len(f) != want {
		t.Fatalf("%d values packed, want %d", len(f), want)
	}
	if f[4] != 2 || f[5] != 1 || int(f[6]) != st.ID || int(f[7]) != st.Ammo || f[11] <= 0 {
		t.Errorf("header %v: want connected, one event waiting, id %d, ammo %d, a tick", f[:PackHeader], st.ID, st.Ammo)
	}
	near := func(what string, got float64, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-4*max(1, math.Abs(want)) {
			t.Errorf("%s: packed %v, state %v", what, got, want)
		}
	}
	for k := range 3 {
		near("eye", f[8+k], st.Eye[k])
	}
	check := func(at int, p Player) {
		t.Helper()
		r := f[at : at+PlayerValues]
		flags := 0
		for bit, on := range []bool{p.Crouched, p.Dead, p.Protected, p.Reloading, p.Carrier} {
			if on {
				flags |= 1 << bit
			}
		}
		if int(r[0]) != p.ID || int(r[1]) != p.Team || int(r[2]) != flags || int(r[3]) != p.Health {
			t.Errorf("player %v, want %+v", r[:4], p)
		}
		for k := range 3 {
			near("pos", r[4+k], p.Pos[k])
		}
		near("yaw", r[7], p.Yaw)
		near("pitch", r[8], p.Pitch)
		for i, part := range p.Parts {
			q := r[9+i*PartValues:]
			if game.PartKind(q[0]).String() != part.Kind {
				t.Errorf("part %d is %v, want %s", i, q[0], part.Kind)
			}
			for k := range 3 {
				near("part A", q[1+k], part.A[k])
				near("part B", q[4+k], part.B[k])
			}
			near("radius", q[7], part.R)
		}
	}
	check(PackHeader, st.Self)
	if !st.Self.Crouched {
		t.Error("the local player holds crouch, but State does not say crouched")
	}
	for i, p := range st.Players {
		check(PackHeader+(1+i)*PlayerValues, p)
	}
	if info := s.Info(l.now); len(info.Players) != 0 || len(info.Events) != 0 || info.Tick == 0 || info.Phase != "connected" {
		t.Errorf("Info after State: %d players, events %+v, tick %d, phase %s; want no players, no events, a tick", len(info.Players), info.Events, info.Tick, info.Phase)
	}
	if n := s.Pack(l.now, buf); unpack(buf[:n])[5] != 0 {
		t.Error("events still wait after State reported them")
	}
}

// BenchmarkPack64 is one page's packed frame at 64 players (what the
// page asks for every frame): interpolation of 63 remote players and
// their hitboxes, written as float32s.
func BenchmarkPack64(b *testing.B) {
	l := newLoop(b, 64, 10*time.Millisecond)
	l.run(1500*time.Millisecond, func(int) Input { return Input{} })
	s := l.sessions[0]
	buf := make([]byte, PackSize)
	if n := s.Pack(l.now, buf); int(unpack(buf[:n])[1]) != 63 {
		b.Fatalf("%d players packed, want 63", int(unpack(buf[:n])[1]))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.Pack(l.now+time.Duration(i%16)*time.Millisecond, buf)
	}
}

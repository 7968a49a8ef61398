package server

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// sightRange is a shooting range whose victim (slot 1, peer 1) sends
// commands of its own, carrying sightings.
type sightRange struct {
	*shootingRange
	vcmd      uint32
	sightings []ShotRecord
}

func newSightRange(t *testing.T) *sightRange {
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, laser()), geom.V(0, 0, 0), geom.V(10, 0, 0))
	return &sightRange{shootingRange: r}
}

// step runs one tick: the shooter fires when fire is set, and the
// victim sends a command with sightings list.
func (r *sightRange) step(fire bool, list ...wire.Sighting) {
	r.t.Helper()
	r.cmd++
	r.vcmd++
	now := r.s.NextTick()
	in := game.UserCmd{Tick: r.cmd, Duration: r.s.TickDuration(), Pitch: -60}
	if fire {
		in.Buttons = game.BtnFire
	}
	sendCmds(r.t, r.s, now, 0, []game.UserCmd{in})
	b, err := wire.AppendCommands(nil, &wire.Commands{ClientTime: now + 1,
		Cmds: []game.UserCmd{{Tick: r.vcmd, Duration: r.s.TickDuration()}}, Sightings: list})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.s.Step(now, Peer(1), b); err != nil {
		r.t.Fatal(err)
	}
	rd := r.s.Advance(now)
	r.records = append(r.records, rd.Shots...)
	r.sightings = append(r.sightings, rd.Sightings...)
}

// firstHit fires until a hit on the victim is recorded and returns it.
func (r *sightRange) firstHit() ShotRecord {
	r.t.Helper()
	for range 64 {
		r.step(true)
		for _, rec := range r.records {
			if rec.Registered && rec.Victim == 1 {
				return rec
			}
		}
	}
	r.t.Fatal("no hit on the victim")
	return ShotRecord{}
}

func sightingOf(rec ShotRecord, sbc bool) wire.Sighting {
	return wire.Sighting{Shooter: uint8(rec.Shooter), ShotTick: rec.ShotTick, Part: rec.Part, SBC: sbc}
}

// TestSightingCompletesItsHit: a hit told to its victim is handed over
// in Shots marked Told, and again, once, in Sightings when the victim's
// judgment arrives, with that judgment; the copies of the judgment its
// client sends are ignored.
func TestSightingCompletesItsHit(t *testing.T) {
	for _, sbc := range []bool{true, false} {
		r := newSightRange(t)
		hit := r.firstHit()
		if !hit.Told || hit.Sight != (Sight{}) {
			t.Fatalf("hit in Shots: told %v, sight %+v; want told, no sight yet", hit.Told, hit.Sight)
		}
		if len(r.sightings) != 0 {
			t.Fatalf("sightings before any judgment: %+v", r.sightings)
		}
		r.step(false, sightingOf(hit, sbc))
		r.step(false, sightingOf(hit, sbc)) // a copy
		if len(r.sightings) != 1 {
			t.Fatalf("%d sightings handed over, want 1", len(r.sightings))
		}
		got := r.sightings[0]
		want := hit
		want.Sight = Sight{Known: true, SBC: sbc}
		if got != want {
			t.Errorf("sighting %+v, want the hit's record %+v with its judgment", got, want)
		}
		if st := r.s.Stats().Sightings; st.Taken != 1 || st.Ignored != 1 || st.Unknown != 0 {
			t.Errorf("counts %+v, want one taken, one copy ignored", st)
		}
	}
}

// TestSightingOnlyByTheVictim: the shooter's judgment of its own hit,
// and the victim's of a hit that never was, are ignored; the hit is
// handed over without a judgment once sightWait has passed.
func TestSightingOnlyByTheVictim(t *testing.T) {
	r := newSightRange(t)
	hit := r.firstHit()
	// The shooter (peer 0) claims the hit was behind cover.
	b, err := wire.AppendCommands(nil, &wire.Commands{ClientTime: r.s.NextTick(),
		Cmds: []game.UserCmd{{Tick: r.cmd + 1, Duration: r.s.TickDuration()}}, Sightings: []wire.Sighting{sightingOf(hit, true)}})
	if err != nil {
		t.Fatal(err)
	}
	r.cmd++
	if err := r.s.Step(r.s.NextTick(), Peer(0), b); err != nil {
		t.Fatal(err)
	}
	forged := sightingOf(hit, true)
	forged.ShotTick += 1000
	r.step(false, forged)
	told := hit.Time // the tick it was judged and told at
	for r.s.Time()-told <= sightWait {
		if len(r.sightings) != 0 {
			t.Fatalf("handed over at %v, before sightWait: %+v", r.s.Time()-told, r.sightings)
		}
		r.step(false)
	}
	if len(r.sightings) != 1 || r.sightings[0].Sight != (Sight{}) || r.sightings[0].ShotTick != hit.ShotTick {
		t.Fatalf("sightings %+v, want the hit without a judgment", r.sightings)
	}
	if st := r.s.Stats().Sightings; st.Taken != 0 || st.Ignored != 2 || st.Unknown != 1 {
		t.Errorf("counts %+v, want two ignored, one unknown", st)
	}
}

// TestSightingsOfALeavingVictim: a victim that leaves before judging its
// hits has them handed over at once, without a judgment.
func TestSightingsOfALeavingVictim(t *testing.T) {
	r := newSightRange(t)
	hit := r.firstHit()
	r.s.Kick(1, "bye")
	rd := r.s.Ready()
	if len(rd.Sightings) != 1 || rd.Sightings[0].ShotTick != hit.ShotTick || rd.Sightings[0].Sight.Known {
		t.Fatalf("sightings %+v, want the hit, unjudged", rd.Sightings)
	}
}

// TestSightingsBounded: a victim's client sending a flood of sightings,
// true and made up, keeps at most maxSights awaited hits on the server,
// and every told hit is handed over exactly once.
func TestSightingsBounded(t *testing.T) {
	r := newSightRange(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 * 64 {
		var list []wire.Sighting
		for range rng.IntN(wire.MaxSightings + 1) {
			list = append(list, wire.Sighting{Shooter: uint8(rng.IntN(3)), ShotTick: uint32(rng.IntN(int(r.cmd) + 2)),
				Part: game.PartKind(rng.IntN(int(game.NumParts))), SBC: rng.IntN(2) == 0})
		}
		r.step(true, list...)
		if c := r.s.clients[1]; c != nil && len(c.sights) > maxSights {
			t.Fatalf("%d sights kept", len(c.sights))
		}
	}
	// More hits told than one victim's sights hold: the oldest go.
	v := r.s.clients[1]
	for i := range 3 * maxSights {
		r.s.awaitSight(v, &hitInfo{shooter: 2, shotTick: 1<<20 + uint32(i)})
		if len(v.sights) > maxSights {
			t.Fatalf("%d sights kept", len(v.sights))
		}
	}
	r.s.Kick(1, "bye")
	r.sightings = append(r.sightings, r.s.Ready().Sightings...)
	told := 0
	seen := map[uint32]bool{}
	for _, rec := range r.records {
		if rec.Told {
			told++
		}
	}
	for _, rec := range r.sightings {
		if seen[rec.ShotTick] {
			t.Fatalf("hit of shot tick %d handed over twice", rec.ShotTick)
		}
		seen[rec.ShotTick] = true
	}
	if told == 0 || len(r.sightings) != told {
		t.Fatalf("%d told hits, %d handed over", told, len(r.sightings))
	}
}

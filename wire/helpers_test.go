package wire

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// randCoord returns a coordinate in quantum units, favouring the edges of
// the bucket code and of the valid range.
func randCoord(rng *rand.Rand) int32 {
	sign := int32(1 - 2*rng.IntN(2))
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return sign * rng.Int32N(300)
	case 2:
		return sign * rng.Int32N(40000)
	case 3:
		return sign * [...]int32{255, 256, 257, 32767, 32768, 32769}[rng.IntN(6)]
	case 4:
		return sign * MaxCoord
	default:
		return sign * rng.Int32N(MaxCoord+1)
	}
}

func randPitch(rng *rand.Rand) int16 {
	if rng.IntN(4) == 0 {
		return int16(game.MaxPitch * (1 - 2*rng.IntN(2)))
	}
	return int16(rng.IntN(2*game.MaxPitch+1) - game.MaxPitch)
}

func randEntity(rng *rand.Rand) EntityState {
	return EntityState{
		X: randCoord(rng), Y: randCoord(rng), Z: randCoord(rng),
		Yaw:      uint16(rng.Uint32()),
		Pitch:    randPitch(rng),
		Flags:    game.StateFlags(rng.Uint32()),
		Teleport: uint8(rng.Uint32()),
		VX:       randCoord(rng), VY: randCoord(rng), VZ: randCoord(rng),
		Stamp: rng.Uint32() >> uint(rng.IntN(33)),
	}
}

func randSelf(rng *rand.Rand) game.PlayerState {
	c := func() float64 { return float64(randCoord(rng)) * game.PosQuantum }
	return game.PlayerState{
		Pos:      geom.V(c(), c(), c()),
		Vel:      geom.V(c(), c(), c()),
		Yaw:      uint16(rng.Uint32()),
		Pitch:    randPitch(rng),
		Flags:    game.StateFlags(rng.Uint32()),
		Teleport: uint8(rng.Uint32()),
		Health:   int16(rng.Uint32()),
	}
}

// randEvents returns random events numbered from first up, some
// numbers skipped.
func randEvents(rng *rand.Rand, first uint32) []Event {
	evs := make([]Event, rng.IntN(MaxEvents+8))
	seq := first + uint32(rng.IntN(8))
	for i := range evs {
		evs[i].Seq = seq
		seq += 1 + uint32(rng.IntN(2)*rng.IntN(8))
		evs[i].Kind = uint16(rng.Uint32() >> rng.IntN(32))
		evs[i].Data = make([]byte, rng.IntN(MaxEventData+1)>>rng.IntN(8))
		for j := range evs[i].Data {
			evs[i].Data[j] = byte(rng.Uint32())
		}
	}
	return evs
}

// randSnapshot returns a snapshot of random content at tick. Absent slots
// sometimes hold leftovers, which the encoder must zero.
func randSnapshot(rng *rand.Rand, tick uint32) *Snapshot {
	s := &Snapshot{
		Tick:           tick,
		LastCmd:        rng.Uint32(),
		EchoClientTime: time.Duration(rng.Int64N(int64(MaxClock) + 1)),
		EchoHold:       time.Duration(rng.Int64N(int64(MaxDelay) + 1)),
		Self:           randSelf(rng),
		FirstEventSeq:  rng.Uint32(),
	}
	s.SetSlots(MaxEntities)
	s.Events = randEvents(rng, s.FirstEventSeq)
	density := rng.Float64()
	for i := range s.Entities {
		present := rng.Float64() < density
		if present || rng.IntN(8) == 0 {
			s.Entities[i] = randEntity(rng)
		}
		s.SetPresent(i, present)
	}
	return s
}

// randNext returns a snapshot some ticks after base: most entities move a
// little, some change otherwise, appear or disappear.
func randNext(rng *rand.Rand, base *Snapshot) *Snapshot {
	s := randSnapshot(rng, base.Tick+1+uint32(rng.IntN(30)))
	s.Baseline = base.Tick
	if rng.IntN(2) == 0 {
		s.Self = base.Self
		x := s.Self.Pos.X/game.PosQuantum + float64(rng.IntN(201)-100)
		s.Self.Pos.X = max(-MaxCoord, min(MaxCoord, x)) * game.PosQuantum
		switch rng.IntN(4) {
		case 0: // turning
			s.Self.Yaw += uint16(rng.IntN(512))
		case 1:
			s.Self.Health -= int16(rng.IntN(100))
		}
	}
	for i := range s.Entities {
		if !base.Has(i) || rng.IntN(5) == 0 {
			continue
		}
		e := base.Entities[i]
		switch rng.IntN(4) {
		case 0: // unchanged
		case 1:
			e.X += rng.Int32N(401) - 200
			e.Y += rng.Int32N(401) - 200
			e.X = max(-MaxCoord, min(MaxCoord, e.X))
			e.Y = max(-MaxCoord, min(MaxCoord, e.Y))
		case 2:
			e.Yaw += uint16(rng.IntN(100))
		case 3:
			e.Teleport++
		}
		s.Entities[i] = e
		s.SetPresent(i, true)
	}
	return s
}

// cloneSnapshot returns a deep copy of s.
func cloneSnapshot(s *Snapshot) *Snapshot {
	c := *s
	c.Entities, c.Present, c.held = slices.Clone(s.Entities), slices.Clone(s.Present), slices.Clone(s.held)
	c.EntityGame, c.Mates, c.masks, c.keys = slices.Clone(s.EntityGame), slices.Clone(s.Mates), nil, nil
	c.Events = make([]Event, len(s.Events))
	for i, ev := range s.Events {
		c.Events[i] = Event{Seq: ev.Seq, Kind: ev.Kind, Data: bytes.Clone(ev.Data)}
	}
	return &c
}

// diffSnapshot describes the first difference between got and want, or
// returns "". Event lists compare by content (nil equals empty).
func diffSnapshot(got, want *Snapshot) string {
	type header struct {
		Tick, Baseline, LastCmd  uint32
		EchoClientTime, EchoHold time.Duration
		Self                     game.PlayerState
		FirstEventSeq            uint32
		Slots                    int
	}
	// A snapshot not yet sized holds MaxEntities absent slots.
	slots := func(s *Snapshot) int { return cmp.Or(s.slots, MaxEntities) }
	hdr := func(s *Snapshot) header {
		return header{s.Tick, s.Baseline, s.LastCmd, s.EchoClientTime, s.EchoHold, s.Self, s.FirstEventSeq, slots(s)}
	}
	if h1, h2 := hdr(got), hdr(want); h1 != h2 {
		return fmt.Sprintf("header/self: got %+v, want %+v", h1, h2)
	}
	at := func(s *Snapshot, i int) EntityState {
		if i < len(s.Entities) {
			return s.Entities[i]
		}
		return EntityState{}
	}
	for i := range slots(got) {
		if got.Has(i) != want.Has(i) {
			return fmt.Sprintf("entity %d: present %v, want %v", i, got.Has(i), want.Has(i))
		}
		if at(got, i) != at(want, i) {
			return fmt.Sprintf("entity %d: got %+v, want %+v", i, at(got, i), at(want, i))
		}
	}
	for i := range slots(got) {
		if *entityGame(got, i) != *entityGame(want, i) {
			return fmt.Sprintf("entity %d game state: got %x, want %x", i, *entityGame(got, i), *entityGame(want, i))
		}
	}
	if len(got.Events) != len(want.Events) {
		return fmt.Sprintf("got %d events, want %d", len(got.Events), len(want.Events))
	}
	for i := range got.Events {
		g, w := got.Events[i], want.Events[i]
		if g.Seq != w.Seq || g.Kind != w.Kind || !bytes.Equal(g.Data, w.Data) {
			return fmt.Sprintf("event %d: got %d %d %x, want %d %d %x", i, g.Seq, g.Kind, g.Data, w.Seq, w.Kind, w.Data)
		}
	}
	return ""
}

// baselineOf returns a baseline function that knows only base.
func baselineOf(base *Snapshot) func(uint32) *Snapshot {
	return func(tick uint32) *Snapshot {
		if base != nil && tick == base.Tick {
			return base
		}
		return nil
	}
}

// walkers12 returns Walkers(tick, true) with 11 remote players: a
// snapshot of the 12-player matches of the bots.
func walkers12(tick uint32) *Snapshot {
	s := Walkers(tick, true)
	clear(s.Present)
	s.Present[0] = 1<<12 - 1
	return s
}

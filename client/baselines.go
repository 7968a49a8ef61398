package client

import "github.com/lagkit/lagkit/wire"

// baselines keeps the received snapshots a server may still delta encode
// against. A server encodes each snapshot against the newest one the
// client acknowledged (a tick within snapRing of its own), so once a
// snapshot names baseline b no later one names an older tick: those are
// forgotten. Their slots are reused newest freed first, so the few
// snapshots in use on a steady link stay in the processor's cache instead
// of cycling through every slot as a ring indexed by tick would.
type baselines struct {
	snaps     [snapRing]wire.Snapshot
	eventData [snapRing][]byte // backing store of each snapshot's event data
	// slot holds, by tick modulo snapRing, 1 + the index in snaps of the
	// snapshot of tick tick[k] (0: none kept).
	slot [snapRing]uint8
	tick [snapRing]uint32
	// free lists the unused indices of snaps, the most recently freed
	// last; nfree counts them.
	free  [snapRing]uint8
	nfree int
	floor uint32 // the newest baseline a snapshot named
}

func (b *baselines) init() {
	for i := range b.free {
		b.free[i] = uint8(snapRing - 1 - i)
	}
	b.nfree = snapRing
}

// get returns the snapshot of tick kept as a baseline, or nil.
func (b *baselines) get(tick uint32) *wire.Snapshot {
	k := tick % snapRing
	if tick == 0 || b.slot[k] == 0 || b.tick[k] != tick {
		return nil
	}
	return &b.snaps[b.slot[k]-1]
}

// take returns a slot to decode the snapshot of tick into, forgetting
// the snapshot snapRing or more ticks older that had its place. Hand it
// to keep once decoded, or to drop.
func (b *baselines) take(tick uint32) int {
	b.forget(tick % snapRing)
	b.nfree--
	return int(b.free[b.nfree])
}

// keep records the snapshot decoded into slot i and forgets those older
// than the baseline it names.
func (b *baselines) keep(i int) {
	s := &b.snaps[i]
	k := s.Tick % snapRing
	b.slot[k], b.tick[k] = uint8(i+1), s.Tick
	if s.Baseline <= b.floor {
		return
	}
	for t := max(b.floor, s.Baseline-min(s.Baseline, snapRing)); t < s.Baseline; t++ {
		if k := t % snapRing; b.tick[k] == t {
			b.forget(k)
		}
	}
	b.floor = s.Baseline
}

// drop gives back slot i, whose snapshot did not decode.
func (b *baselines) drop(i int) {
	b.snaps[i].Tick = 0
	b.free[b.nfree] = uint8(i)
	b.nfree++
}

// forget frees the slot of the snapshot kept at tick modulo snapRing k.
func (b *baselines) forget(k uint32) {
	if i := b.slot[k]; i != 0 {
		b.slot[k] = 0
		b.drop(int(i - 1))
	}
}

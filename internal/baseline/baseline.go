// Package baseline keeps the snapshots that a delta encoded snapshot may
// name as its baseline, on the sending and the receiving side alike.
//
// A server encodes each snapshot against the newest one its client
// acknowledged, a tick less than Window before its own, and the
// acknowledged tick only grows. So a snapshot Window or more ticks older
// than another is never named again, nor is one older than a baseline
// already named (receiver) or acknowledged (sender): Ring forgets those,
// and hands out the slots they held newest freed first. On a steady link
// only the few snapshots between the acknowledged one and the newest are
// in use, and they stay in the processor's cache instead of cycling
// through Window slots as a ring indexed by tick would.
package baseline

import "github.com/lagkit/lagkit/wire"

// Window is how many ticks back a baseline may lie.
const Window = 64

// Ring keeps at most one snapshot per tick modulo Window. The zero Ring
// is empty and ready.
type Ring struct {
	snaps [Window]wire.Snapshot
	// slot holds, by tick modulo Window, 1 + the index in snaps of the
	// snapshot of tick tick[k] (0: none kept).
	slot [Window]uint8
	tick [Window]uint32
	// free lists the freed indices of snaps, the most recently freed
	// last; the indices from used on were never handed out.
	free  [Window]uint8
	nfree int
	used  int
	floor uint32 // ticks before it are forgotten (see Forget)
}

// Get returns the snapshot of tick kept, or nil.
func (r *Ring) Get(tick uint32) *wire.Snapshot {
	k := tick % Window
	if tick == 0 || r.slot[k] == 0 || r.tick[k] != tick {
		return nil
	}
	return &r.snaps[r.slot[k]-1]
}

// Take returns a free slot, its index and the snapshot in it (holding
// whatever it last held), for the snapshot of tick; it forgets the
// snapshot a multiple of Window ticks older that had tick's place. Give
// the slot to Keep once the snapshot of tick is in it, or back to Drop.
func (r *Ring) Take(tick uint32) (int, *wire.Snapshot) {
	r.forget(tick % Window)
	var i int
	if r.nfree > 0 {
		r.nfree--
		i = int(r.free[r.nfree])
	} else {
		i = r.used
		r.used++
	}
	return i, &r.snaps[i]
}

// Keep keeps the snapshot in slot i, under its Tick.
func (r *Ring) Keep(i int) {
	k := r.snaps[i].Tick % Window
	r.forget(k)
	r.slot[k], r.tick[k] = uint8(i+1), r.snaps[i].Tick
}

// Drop gives back slot i unkept.
func (r *Ring) Drop(i int) {
	r.snaps[i].Tick = 0
	r.free[r.nfree] = uint8(i)
	r.nfree++
}

// Forget forgets the snapshots of ticks before tick, for good: a later
// Forget of an earlier tick does nothing.
func (r *Ring) Forget(tick uint32) {
	if tick <= r.floor {
		return
	}
	for t := max(r.floor, tick-min(tick, Window)); t < tick; t++ {
		if k := t % Window; r.slot[k] != 0 && r.tick[k] == t {
			r.forget(k)
		}
	}
	r.floor = tick
}

// forget frees the slot of the snapshot kept at tick modulo Window k.
func (r *Ring) forget(k uint32) {
	if i := r.slot[k]; i != 0 {
		r.slot[k] = 0
		r.Drop(int(i - 1))
	}
}

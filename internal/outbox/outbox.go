// Package outbox queues the datagrams a sans-IO core produces until its
// driver collects them. Each datagram is copied when queued, because the
// cores build datagrams in buffers they reuse (a snapshot buffer, a
// command packet), and a driver may step a core several times (ticks run
// to catch up after a stall, bursts of client ticks between two frames)
// before it collects.
package outbox

// Queue holds datagrams with a key each (their destination). The zero
// value is ready to use. Two sets of buffers alternate, so what one Drain
// handed out stays valid until the next Drain.
type Queue[K any] struct {
	pending []span[K]
	bytes   [2][]byte
	flip    int
}

type span[K any] struct {
	key      K
	off, end int
}

// Add queues a copy of b for key.
func (q *Queue[K]) Add(key K, b []byte) {
	buf := &q.bytes[q.flip]
	q.pending = append(q.pending, span[K]{key: key, off: len(*buf), end: len(*buf) + len(b)})
	*buf = append(*buf, b...)
}

// Tail returns the buffer the next datagram is appended to: append one
// datagram to it and pass the result to Commit, as a core does that
// builds a datagram in place (sealing it, say) rather than copy one.
func (q *Queue[K]) Tail() []byte { return q.bytes[q.flip] }

// Commit queues for key the datagram appended to Tail's buffer, tail
// being that buffer after the append.
func (q *Queue[K]) Commit(key K, tail []byte) {
	buf := &q.bytes[q.flip]
	q.pending = append(q.pending, span[K]{key: key, off: len(*buf), end: len(tail)})
	*buf = tail
}

// Len is the number of datagrams queued.
func (q *Queue[K]) Len() int { return len(q.pending) }

// Drain calls f with each queued datagram in order and forgets them. The
// slices f receives stay valid until the next call to Drain.
func (q *Queue[K]) Drain(f func(key K, b []byte)) {
	data := q.bytes[q.flip]
	q.flip ^= 1
	q.bytes[q.flip] = q.bytes[q.flip][:0]
	for _, s := range q.pending {
		f(s.key, data[s.off:s.end:s.end])
	}
	q.pending = q.pending[:0]
}

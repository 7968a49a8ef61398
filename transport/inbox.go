package transport

import (
	"sync"
	"time"
)

// Inbox gathers the datagrams of many connections for one consumer,
// which takes them a batch at a time (once per server tick) rather than
// being handed each datagram by a goroutine of its own: the readers copy
// each datagram into a preallocated batch and wake nobody, until the
// batch is half full. Two batches alternate, so neither side allocates
// in steady state and a full batch drops (counting the drop) rather than
// grows.
//
// Where the platform allows it, Take first reads the sockets of the UDP
// listeners whose sessions route into the inbox (each listener's own
// reader then stays off the socket): datagrams wait in the kernel,
// stamped with their arrival time, until the consumer's next Take, and
// no thread wakes per datagram.
type Inbox struct {
	mu          sync.Mutex
	fill, spare *Batch
	wake        func()
	// sources are the listeners Take polls, with how many of the
	// inbox's sessions each has; polling is Take's copy of them.
	sources []source
	polling []*UDPListener
}

type source struct {
	l *UDPListener
	n int
}

// Batch is the datagrams an Inbox gathered between two Takes, in the
// order they arrived.
type Batch struct {
	ents    []batchEntry
	data    []byte // every datagram's bytes, one after another
	dropped int
}

type batchEntry struct {
	tag    uint64
	at     int64 // arrival, on the monotonic clock (monotonic())
	off, n int32
}

// NewInbox returns an inbox whose batches hold up to datagrams
// datagrams and bytes bytes of them.
func NewInbox(datagrams, bytes int) *Inbox {
	datagrams, bytes = max(datagrams, 1), max(bytes, MaxDatagram)
	mk := func() *Batch {
		return &Batch{ents: make([]batchEntry, 0, datagrams), data: make([]byte, 0, bytes)}
	}
	return &Inbox{fill: mk(), spare: mk()}
}

// OnHalfFull has wake called (on the goroutine that put the datagram,
// which must not wait for it) each time the batch being filled becomes
// half full: the consumer should Take it before it fills and drops.
// Call it before any datagram is put.
func (in *Inbox) OnHalfFull(wake func()) { in.wake = wake }

// Take returns the datagrams gathered since the last Take. The batch is
// the consumer's until its next Take, which reuses it; there must be one
// consumer.
func (in *Inbox) Take() *Batch {
	in.mu.Lock()
	in.polling = in.polling[:0]
	for _, s := range in.sources {
		in.polling = append(in.polling, s.l)
	}
	in.mu.Unlock()
	for _, l := range in.polling {
		l.poll() // puts into in, under its lock
	}
	in.mu.Lock()
	b := in.fill
	in.fill, in.spare = in.spare, b
	in.fill.ents, in.fill.data, in.fill.dropped = in.fill.ents[:0], in.fill.data[:0], 0
	in.mu.Unlock()
	return b
}

// watch adds one session of l to those Take polls l for.
func (in *Inbox) watch(l *UDPListener) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range in.sources {
		if in.sources[i].l == l {
			in.sources[i].n++
			return
		}
	}
	in.sources = append(in.sources, source{l: l, n: 1})
}

// unwatch removes one session of l; Take stops polling l with the last.
func (in *Inbox) unwatch(l *UDPListener) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range in.sources {
		if in.sources[i].l == l {
			if in.sources[i].n--; in.sources[i].n == 0 {
				in.sources = append(in.sources[:i], in.sources[i+1:]...)
			}
			return
		}
	}
}

// put copies p into the batch being filled, tagged tag, arrived at at;
// false (and the drop counted) when the batch is full.
func (in *Inbox) put(tag uint64, at int64, p []byte) bool {
	in.mu.Lock()
	b := in.fill
	if len(b.ents) == cap(b.ents) || len(b.data)+len(p) > cap(b.data) {
		b.dropped++
		in.mu.Unlock()
		return false
	}
	b.ents = append(b.ents, batchEntry{tag: tag, at: at, off: int32(len(b.data)), n: int32(len(p))})
	b.data = append(b.data, p...)
	// Half full, by count or by bytes, at this datagram.
	halfN, halfB := cap(b.ents)/2, cap(b.data)/2
	half := len(b.ents) == halfN || len(b.data) > halfB && len(b.data)-len(p) <= halfB
	in.mu.Unlock()
	if half && in.wake != nil {
		in.wake()
	}
	return true
}

// Len is the number of datagrams in the batch.
func (b *Batch) Len() int { return len(b.ents) }

// Datagram returns the batch's i-th datagram: the tag of the connection
// it came from, when it arrived, and its bytes (valid until the next
// Take).
func (b *Batch) Datagram(i int) (tag uint64, arrived time.Time, p []byte) {
	e := b.ents[i]
	return e.tag, epoch.Add(time.Duration(e.at)), b.data[e.off : e.off+e.n]
}

// Dropped is how many datagrams arrived while the batch was full.
func (b *Batch) Dropped() int { return b.dropped }

// Bytes is the datagrams' total length.
func (b *Batch) Bytes() int { return len(b.data) }

// Routable is implemented by this package's connections: ReceiveInto
// sends the connection's datagrams, from then on, into in tagged tag
// instead of its own queue, after those already queued; Recv then
// returns only the connection's close. This is how a server takes every
// connection's datagrams once per tick with no goroutine hand-off per
// datagram.
type Routable interface {
	ReceiveInto(in *Inbox, tag uint64)
}

// ReceiveInto routes the connection's datagrams into in (see Routable).
func (b *base) ReceiveInto(in *Inbox, tag uint64) {
	q := b.in
	q.mu.Lock()
	defer q.mu.Unlock()
	b.tag = tag
	b.sink.Store(in)
	now := monotonic()
	for ; q.n > 0; q.n-- {
		i := q.head
		q.head = (q.head + 1) % len(q.slots)
		in.put(tag, now, q.slots[i][:q.lens[i]])
	}
}

package transport

import "sync/atomic"

// webBatch is datagrams for web sessions (WebSocket, WebTransport), in
// one buffer.
type webBatch struct {
	ents []webEntry
	data []byte
}

type webEntry struct {
	s      *session
	off, n int
}

func (b *webBatch) add(s *session, p []byte) {
	b.ents = append(b.ents, webEntry{s: s, off: len(b.data), n: len(p)})
	b.data = append(b.data, p...)
}

func (b *webBatch) datagram(i int) (*session, []byte) {
	e := b.ents[i]
	return e.s, b.data[e.off : e.off+e.n]
}

func (b *webBatch) reset() {
	clear(b.ents) // no session outlives its batch through it
	b.ents, b.data = b.ents[:0], b.data[:0]
}

// webWriter sends a SendBatch's datagrams for web sessions: each Flush
// hands it a batch, which a goroutine started for it sends one datagram
// after another, and which it then gives back. Its sends may block (a
// WebSocket's TCP buffer, a WebTransport connection's datagram queue
// full): the next Flush then finds it busy and rescues the batch (see
// hand).
type webWriter struct {
	b    webBatch                // the batch being sent, the writer's while busy
	busy atomic.Bool             // a goroutine is sending b
	next atomic.Int64            // the index in b of the next datagram to claim
	cur  atomic.Pointer[session] // whose datagram is being sent
	run  func()                  // w.send, bound once: a go statement then allocates nothing
}

func newWebWriter() *webWriter {
	w := &webWriter{}
	w.run = w.send
	return w
}

// hand gives the writer batch b, taking the writer's last (emptied) in
// exchange, and starts a goroutine to send it. If the writer is still
// sending the last batch, the session it is stuck on is marked slow, and
// every datagram not yet claimed, of that batch and of b, goes to its
// session's own queue instead (dropped and counted where full).
func (w *webWriter) hand(b *webBatch) {
	if w.busy.Load() {
		if s := w.cur.Load(); s != nil {
			s.slow.Store(true)
		}
		for {
			i := int(w.next.Add(1) - 1)
			if i >= len(w.b.ents) {
				break
			}
			s, p := w.b.datagram(i)
			s.enqueue(p)
			s.batchDone()
		}
		for i := range b.ents {
			s, p := b.datagram(i)
			s.enqueue(p)
			s.batchDone()
		}
		b.reset()
		return
	}
	w.b, *b = *b, w.b
	b.reset()
	w.next.Store(0)
	w.busy.Store(true)
	go w.run()
}

// send sends the batch's datagrams, claiming each so that a rescue
// (hand) takes only what it has not started.
func (w *webWriter) send() {
	for {
		i := int(w.next.Add(1) - 1)
		if i >= len(w.b.ents) {
			break
		}
		s, p := w.b.datagram(i)
		w.cur.Store(s)
		s.write(p)
		s.batchDone()
	}
	w.cur.Store(nil)
	w.busy.Store(false)
}

package realtime

import (
	"hash/fnv"
	"maps"
	"slices"
	"sync"

	"github.com/lagkit/lagkit/server"
)

// Account is a ledger of the reliable events of sessions as one side saw
// them: a match's account (Match.SetAccount) holds every event its
// server queued for each session and how many of them the session
// acknowledged; a client account (ClientConfig.Account) every event the
// client delivered to its player. Comparing the two shows whether each
// session got exactly what it was sent, once, in order. Sessions are
// named by their nonce; a match may hold several server sessions under
// one nonce (a client whose session ended before it heard the Accept,
// and which connected again with a retransmitted Connect), its client
// only the one it joined. An account keeps a short entry for every event
// of every session (no data), so it grows with the match: for soaks,
// tests and diagnosis, not for a server that runs for days.
type Account struct {
	mu       sync.Mutex
	sessions map[uint64][]*SessionEvents
}

// SessionEvents is one session's reliable events, in sequence order.
type SessionEvents struct {
	// Seat is the session's slot.
	Seat   int
	Events []EventEntry
	// Acked counts the events the client acknowledged (a match's account
	// only). They need not be the first Acked of Events: a client holds
	// an event that arrives before one it follows, and acknowledges the
	// snapshot that carried it.
	Acked int
	// AckedSeq holds the sequence numbers of the acknowledged events.
	AckedSeq map[uint32]bool
}

// EventEntry is one reliable event.
type EventEntry struct {
	Seq  uint32
	Kind uint16
	// Digest is the FNV-1a hash of the event's data.
	Digest uint64
}

// NewAccount returns an empty account.
func NewAccount() *Account { return &Account{sessions: map[uint64][]*SessionEvents{}} }

// Sessions returns a copy of the account: by nonce, the sessions under
// it in the order they began.
func (a *Account) Sessions() map[uint64][]SessionEvents {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[uint64][]SessionEvents, len(a.sessions))
	for k, list := range a.sessions {
		for _, s := range list {
			c := *s
			c.Events = slices.Clone(s.Events)
			c.AckedSeq = maps.Clone(s.AckedSeq)
			out[k] = append(out[k], c)
		}
	}
	return out
}

// Nonces returns the account's sessions' nonces, sorted.
func (a *Account) Nonces() []uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.sessions))
}

// add records one event of session (queued or delivered), or its
// acknowledgement. Every session's events begin at sequence number 1, so
// a first event under a nonce that has events begins another session.
func (a *Account) add(session uint64, seat int, seq uint32, kind uint16, data []byte, acked bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.sessions[session]
	if len(list) == 0 || !acked && seq == 1 && len(list[len(list)-1].Events) > 0 {
		list = append(list, &SessionEvents{Seat: seat})
		a.sessions[session] = list
	}
	s := list[len(list)-1]
	if acked {
		s.Acked++
		if s.AckedSeq == nil {
			s.AckedSeq = map[uint32]bool{}
		}
		s.AckedSeq[seq] = true
		return
	}
	h := fnv.New64a()
	h.Write(data)
	s.Events = append(s.Events, EventEntry{Seq: seq, Kind: kind, Digest: h.Sum64()})
}

// SetAccount makes the match keep in a every reliable event its server
// queues for each session and each acknowledgement (nil: none).
func (m *Match) SetAccount(a *Account) error {
	return m.do(func() {
		if a == nil {
			m.srv.SetEventNotes(nil)
			return
		}
		m.srv.SetEventNotes(func(n *server.EventNote) { a.add(n.Session, n.Seat, n.Seq, n.Kind, n.Data, n.Acked) })
	})
}

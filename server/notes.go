package server

// EventNote is one step of a client's reliable event stream as the server
// sees it: an event queued for the client, or acknowledged by it. Notes
// of one session come in sequence order, and the acknowledged events are
// always a prefix of the queued ones: a client core that delivers each
// event exactly once delivers, over a session, a prefix of the queued
// events at least as long as the acknowledged ones.
type EventNote struct {
	// Seat is the client's slot, Session its session nonce (the Connect's
	// Nonce), which tells apart the sessions one seat has over a match.
	Seat    int
	Session uint64
	Seq     uint32
	Kind    uint16
	// Data is the event's data, valid during the call only.
	Data []byte
	// Acked is false for an event queued, true for one acknowledged and
	// so forgotten.
	Acked bool
}

// SetEventNotes makes the server call f for each reliable event it
// queues for a client and each one a client acknowledges (nil: no
// notes), so a driver can keep an account of what every session was
// sent and what reached it. f runs within Step and Advance and must not
// call the server.
func (s *Server) SetEventNotes(f func(*EventNote)) { s.notes = f }

// note tells the notes function of event e of c.
func (s *Server) note(c *client, e *queuedEvent, acked bool) {
	if s.notes == nil {
		return
	}
	s.notes(&EventNote{Seat: c.id, Session: c.nonce, Seq: e.seq, Kind: e.kind, Data: e.data, Acked: acked})
}

package wire

// A game built on lagkit sends events of its own both ways, reliably and
// in order, with kinds from EventGameMin up; the kinds below it are
// lagkit's. From the server they ride in snapshots as every event does
// (Snapshot.Events). From a client they travel in GameEvents datagrams,
// laid out as
//
//	First 32 | count 5 | event...
//
// where the events carry the sequence numbers First, First+1, ... and an
// event is its Kind as a uvarint, len(Data) in 8 bits, zero bits up to a
// byte boundary and Data's bytes. The client sends each event again until
// a GameEventAck, laid out as Through 32, names its sequence number or a
// later one: the server takes events in order only, so its
// acknowledgement is cumulative, as TCP's.

// EventGameMin is the first event kind reserved for games: lagkit's own
// kinds lie below it and a game's from it up to the largest uint16.
// Receivers skip the kinds they do not know.
const EventGameMin uint16 = 1 << 14

// IsGameEvent reports whether kind is a game's own event kind.
func IsGameEvent(kind uint16) bool { return kind >= EventGameMin }

// MaxGameEventData bounds a game event's Data, in bytes, each way.
const MaxGameEventData = 255

// MaxGameEvents bounds the events of one GameEvents datagram.
const MaxGameEvents = 31

const gameEventCountBits = 5 // up to 31 = MaxGameEvents

// GameEvents carries a client's game events numbered First,
// First+1, ...: the Seq of each Event is ignored by AppendGameEvents and
// set by DecodeGameEvents.
type GameEvents struct {
	First  uint32
	Events []Event
}

// GameEventAck acknowledges every client game event up to and including
// Through (0: none yet).
type GameEventAck struct {
	Through uint32
}

// AppendGameEvents appends the encoding of m to dst. m must hold 1 to
// MaxGameEvents events of game kinds (IsGameEvent), each with at most
// MaxGameEventData bytes, and fit MaxDatagram. On error, dst is
// unchanged.
func AppendGameEvents(dst []byte, m *GameEvents) ([]byte, error) {
	if n := len(m.Events); n == 0 || n > MaxGameEvents {
		return dst, encodeError(MsgGameEvents, "%d events, want 1 to %d", n, MaxGameEvents)
	}
	for i := range m.Events {
		ev := &m.Events[i]
		if !IsGameEvent(ev.Kind) {
			return dst, encodeError(MsgGameEvents, "kind %d is lagkit's, want a game's (%d up)", ev.Kind, EventGameMin)
		}
		if len(ev.Data) > MaxGameEventData {
			return dst, encodeError(MsgGameEvents, "event of %d bytes exceeds %d", len(ev.Data), MaxGameEventData)
		}
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgGameEvents), 8)
	w.writeBits(uint64(m.First), 32)
	w.writeBits(uint64(len(m.Events)), gameEventCountBits)
	for i := range m.Events {
		ev := &m.Events[i]
		w.writeUvarint(uint64(ev.Kind))
		w.writeBits(uint64(len(ev.Data)), 8)
		w.align()
		w.appendAligned(ev.Data)
	}
	if len(w.buf)-len(dst) > MaxDatagram {
		return dst, encodeError(MsgGameEvents, "%d bytes exceed MaxDatagram", len(w.buf)-len(dst))
	}
	return w.buf, nil
}

// DecodeGameEvents decodes datagram b into m, reusing m.Events. The
// events' Data alias b.
func DecodeGameEvents(b []byte, m *GameEvents) error {
	r := newReader(b, MsgGameEvents)
	m.First = uint32(r.readBits(32))
	n := int(r.readBits(gameEventCountBits))
	if r.err == nil && n == 0 {
		r.failf("no events")
	}
	m.Events = m.Events[:0]
	for i := 0; i < n && r.err == nil; i++ {
		kind := r.readUvarint()
		size := int(r.readBits(8))
		r.align()
		data := r.readAligned(size)
		if r.err != nil {
			break
		}
		if kind > 0xffff || !IsGameEvent(uint16(kind)) {
			r.failf("event kind %d is not a game's", kind)
			break
		}
		m.Events = append(m.Events, Event{Seq: m.First + uint32(i), Kind: uint16(kind), Data: data})
	}
	if r.err != nil {
		m.Events = m.Events[:0]
	}
	return r.finish()
}

// AppendGameEventAck appends the encoding of m to dst.
func AppendGameEventAck(dst []byte, m *GameEventAck) []byte {
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgGameEventAck), 8)
	w.writeBits(uint64(m.Through), 32)
	return w.buf
}

// DecodeGameEventAck decodes datagram b into m.
func DecodeGameEventAck(b []byte, m *GameEventAck) error {
	r := newReader(b, MsgGameEventAck)
	m.Through = uint32(r.readBits(32))
	return r.finish()
}

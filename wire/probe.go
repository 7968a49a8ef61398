package wire

import "time"

// Probe is one datagram of a round-trip probe: the exchange by which a
// game server host measures a client's round trip over the game's own
// transport before any game session (an online study's prescreen). The
// client opens a link and sends a Probe with Seq 0 and its Ticket; the
// server sends Probes numbered from 1, the client answers each with a
// Probe of the same Seq (and no ticket), and the server, which timed
// them, ends with one more carrying Done and the RTT it measured. The
// client reports nothing: the number the server keeps is its own.
//
// Every field is byte aligned, so a page's script reads and writes it
// without the client core:
//
//	type 8 | Seq 32 | Done 8 (0 or 1) | RTT uvarint µs (Done only) |
//	ticket length 8 | ticket bytes
type Probe struct {
	Seq  uint32
	Done bool
	// RTT is the round trip the server measured, in its Done Probe.
	RTT time.Duration
	// Ticket names the client to the server (opaque, at most
	// MaxProbeTicket bytes), in the client's first Probe.
	Ticket string
}

// MaxProbeTicket bounds Probe.Ticket, in bytes.
const MaxProbeTicket = 64

// AppendProbe appends the encoding of m to dst.
func AppendProbe(dst []byte, m *Probe) ([]byte, error) {
	if len(m.Ticket) > MaxProbeTicket {
		return dst, encodeError(MsgProbe, "ticket of %d bytes exceeds %d", len(m.Ticket), MaxProbeTicket)
	}
	if !inRange(m.RTT, MaxDelay) || m.RTT != 0 && !m.Done {
		return dst, encodeError(MsgProbe, "round trip %v out of range, or without Done", m.RTT)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgProbe), 8)
	w.writeBits(uint64(m.Seq), 32)
	if m.Done {
		w.writeBits(1, 8)
		w.writeUvarint(micros(m.RTT))
	} else {
		w.writeBits(0, 8)
	}
	w.writeString(m.Ticket, 8)
	return w.buf, nil
}

// DecodeProbe decodes datagram b into m.
func DecodeProbe(b []byte, m *Probe) error {
	r := newReader(b, MsgProbe)
	*m = Probe{Seq: uint32(r.readBits(32))}
	switch r.readBits(8) {
	case 0:
	case 1:
		m.Done = true
		m.RTT = r.readMicros(MaxDelay, "round trip")
	default:
		r.failf("done flag not 0 or 1")
	}
	m.Ticket = r.readBytes(8, MaxProbeTicket, "ticket")
	return r.finish()
}

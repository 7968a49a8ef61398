package wire

import "github.com/lagkit/lagkit/game"

// An Appeal is laid out as
//
//	ID 32 | Deny 1 | State
//
// with State coded as a snapshot's Self against the zero PlayerState, that
// is with absolute values: an appeal has no baseline to refer to, and it
// must survive on its own: the server re-runs SBC detection on exactly
// this state (Reference: [alc], the server's check of a denial,
// docs/references.md).

// AppendAppeal appends the encoding of m to dst. m.State must meet the
// conditions AppendSnapshot sets on Self (Pos and Vel on the game.PosQuantum
// and game.VelQuantum grids within ±MaxCoord units, Pitch within
// ±game.MaxPitch), so that it decodes exactly.
func AppendAppeal(dst []byte, m *Appeal) ([]byte, error) {
	if why := checkSelf(&m.State); why != "" {
		return dst, encodeError(MsgAppeal, "state %s", why)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgAppeal), 8)
	w.writeBits(uint64(m.ID), 32)
	w.writeBool(m.Deny)
	writeSelf(&w, &m.State, &game.PlayerState{})
	return w.buf, nil
}

// DecodeAppeal decodes datagram b into m.
func DecodeAppeal(b []byte, m *Appeal) error {
	r := newReader(b, MsgAppeal)
	m.ID = uint32(r.readBits(32))
	m.Deny = r.readBool()
	m.State = game.PlayerState{}
	readSelf(&r, &m.State, "state")
	return r.finish()
}

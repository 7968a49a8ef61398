package wire

import (
	"unicode/utf8"
)

// checkString returns why s cannot be a string field of at most max bytes,
// or "".
func checkString(s string, max int) string {
	switch {
	case len(s) > max:
		return "too long"
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	}
	return ""
}

// shapePartsBits holds Shape.Parts, 0 to MaxParts, and shapeSlotsBits
// Shape.Slots, 1 to MaxSlots, in a Connect.
const (
	shapePartsBits = 9
	shapeSlotsBits = 13
)

// AppendConnect appends the encoding of m to dst, padded with zero bytes
// to ConnectSize. m.Version must be Version. The version is the two bytes
// after the type byte, little-endian, and stays there in every version so
// that any server can read it.
func AppendConnect(dst []byte, m *Connect) ([]byte, error) {
	if m.Version != Version {
		return dst, encodeError(MsgConnect, "version %d, want %d", m.Version, Version)
	}
	if why := checkString(m.Name, MaxNameLen); why != "" {
		return dst, encodeError(MsgConnect, "name %s", why)
	}
	if len(m.Token) > MaxTokenLen {
		return dst, encodeError(MsgConnect, "token of %d bytes exceeds %d", len(m.Token), MaxTokenLen)
	}
	if !inRange(m.InterpDelay, MaxDelay) {
		return dst, encodeError(MsgConnect, "interp delay %v out of range", m.InterpDelay)
	}
	if len(m.Key) != 0 && len(m.Key) != KeySize {
		return dst, encodeError(MsgConnect, "key of %d bytes, want %d or none", len(m.Key), KeySize)
	}
	if why := m.Shape.why(); why != "" {
		return dst, encodeError(MsgConnect, "shape: %s", why)
	}
	if !m.Rejoin.Asked && m.Rejoin != (Rejoin{}) {
		return dst, encodeError(MsgConnect, "rejoin seat or team without Asked")
	}
	start := len(dst)
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgConnect), 8)
	w.writeBits(uint64(m.Version), 16)
	w.writeBits(m.Nonce, 64)
	w.writeString(m.Token, tokenLenBits)
	w.writeString(m.Name, nameLenBits)
	w.writeBits(uint64(m.SnapshotRate), 16)
	w.writeUvarint(micros(m.InterpDelay))
	w.writeKey(m.Key)
	w.writeBits(m.Game, 64)
	w.writeBits(m.Rules, 64)
	shape := m.Shape != (Shape{})
	if m.Rejoin.Asked || m.Cmd != 0 || shape {
		w.writeBool(m.Rejoin.Asked)
		if m.Rejoin.Asked {
			w.writeBits(uint64(m.Rejoin.Seat), 8)
			w.writeBits(uint64(m.Rejoin.Team), 8)
		}
	}
	if m.Cmd != 0 || shape {
		w.writeBool(m.Cmd != 0)
		if m.Cmd != 0 {
			w.writeBits(m.Cmd, 64)
		}
	}
	if shape {
		w.writeBool(true)
		w.writeBits(uint64(m.Shape.Parts), shapePartsBits)
		w.writeBool(m.Shape.HealthToAll)
		if m.Shape.Slots != 0 {
			w.writeBool(true)
			w.writeBits(uint64(m.Shape.Slots), shapeSlotsBits)
		}
	}
	for len(w.buf)-start < ConnectSize {
		w.buf = append(w.buf, 0)
	}
	return w.buf, nil
}

// DecodeConnect decodes datagram b into m. A Connect of another version
// decodes without error to m with only Version set, whatever follows it,
// so that the server can reject it with a reason. A Connect of this
// version must be padded with zero bytes to exactly ConnectSize.
func DecodeConnect(b []byte, m *Connect) error {
	r := newReader(b, MsgConnect)
	*m = Connect{Version: uint16(r.readBits(16))}
	if r.err != nil || m.Version != Version {
		return r.err
	}
	if len(b) != ConnectSize {
		r.failf("%d bytes, want %d (padded)", len(b), ConnectSize)
		return r.err
	}
	m.Nonce = r.readBits(64)
	m.Token = r.readBytes(tokenLenBits, MaxTokenLen, "token")
	m.Name = r.readString(nameLenBits, MaxNameLen, "name")
	m.SnapshotRate = uint16(r.readBits(16))
	m.InterpDelay = r.readMicros(MaxDelay, "interp delay")
	m.Key = r.readKey()
	m.Game = r.readBits(64)
	m.Rules = r.readBits(64)
	if r.readBool() {
		m.Rejoin = Rejoin{Asked: true, Seat: uint8(r.readBits(8)), Team: uint8(r.readBits(8))}
	}
	if r.readBool() {
		if m.Cmd = r.readBits(64); m.Cmd == 0 && r.err == nil {
			r.failf("command declaration hash flagged but 0")
		}
	}
	if r.readBool() {
		m.Shape.Parts = int(r.readBits(shapePartsBits))
		m.Shape.HealthToAll = r.readBool()
		if r.readBool() {
			if m.Shape.Slots = int(r.readBits(shapeSlotsBits)); m.Shape.Slots == 0 && r.err == nil {
				r.failf("shape: slots flagged but 0")
			}
		}
		if r.err == nil && m.Shape == (Shape{}) {
			r.failf("shape flagged but zero")
		} else if why := m.Shape.why(); r.err == nil && why != "" {
			r.failf("shape: %s", why)
		}
	}
	r.align()
	for _, pad := range r.readAligned(len(b) - r.pos/8) {
		if pad != 0 {
			r.failf("nonzero padding")
			break
		}
	}
	return r.finish()
}

// AppendChallenge appends the encoding of m to dst.
func AppendChallenge(dst []byte, m *Challenge) ([]byte, error) {
	if len(m.Token) > MaxTokenLen {
		return dst, encodeError(MsgChallenge, "token of %d bytes exceeds %d", len(m.Token), MaxTokenLen)
	}
	if len(m.Key) != 0 && len(m.Key) != KeySize {
		return dst, encodeError(MsgChallenge, "key of %d bytes, want %d or none", len(m.Key), KeySize)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgChallenge), 8)
	w.writeBits(m.Nonce, 64)
	w.writeString(m.Token, tokenLenBits)
	w.writeKey(m.Key)
	return w.buf, nil
}

// DecodeChallenge decodes datagram b into m.
func DecodeChallenge(b []byte, m *Challenge) error {
	r := newReader(b, MsgChallenge)
	m.Nonce = r.readBits(64)
	m.Token = r.readBytes(tokenLenBits, MaxTokenLen, "token")
	m.Key = r.readKey()
	return r.finish()
}

// writeKey writes an optional public key: a presence bit, then its
// KeySize bytes. An absent key costs one bit, which a Challenge without
// one fits in the padding of its last byte.
func (w *bitWriter) writeKey(k string) {
	if len(k) == 0 {
		w.writeBits(0, 1)
		return
	}
	w.writeBits(1, 1)
	for i := range len(k) {
		w.writeBits(uint64(k[i]), 8)
	}
}

// readKey reads an optional public key.
func (r *bitReader) readKey() string {
	if r.readBits(1) == 0 || r.err != nil {
		return ""
	}
	var k [KeySize]byte
	for i := range k {
		k[i] = byte(r.readBits(8))
	}
	if r.err != nil {
		return ""
	}
	return string(k[:])
}

// AppendAccept appends the encoding of m to dst.
func AppendAccept(dst []byte, m *Accept) ([]byte, error) {
	if m.TickRate == 0 {
		return dst, encodeError(MsgAccept, "tick rate 0")
	}
	if why := checkString(m.Map, MaxNameLen); why != "" {
		return dst, encodeError(MsgAccept, "map %s", why)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgAccept), 8)
	w.writeBits(uint64(m.ClientID), 8)
	w.writeBits(uint64(m.TickRate), 16)
	w.writeBits(uint64(m.Tick), 32)
	w.writeString(m.Map, nameLenBits)
	return w.buf, nil
}

// DecodeAccept decodes datagram b into m.
func DecodeAccept(b []byte, m *Accept) error {
	r := newReader(b, MsgAccept)
	m.ClientID = uint8(r.readBits(8))
	m.TickRate = uint16(r.readBits(16))
	if r.err == nil && m.TickRate == 0 {
		r.failf("tick rate 0")
	}
	m.Tick = uint32(r.readBits(32))
	m.Map = r.readString(nameLenBits, MaxNameLen, "map")
	return r.finish()
}

// AppendReject appends the encoding of m to dst.
func AppendReject(dst []byte, m *Reject) ([]byte, error) {
	return appendReason(dst, MsgReject, m.Reason)
}

// DecodeReject decodes datagram b into m.
func DecodeReject(b []byte, m *Reject) error {
	r := newReader(b, MsgReject)
	m.Reason = r.readString(reasonLenBits, MaxReasonLen, "reason")
	return r.finish()
}

// AppendDisconnect appends the encoding of m to dst: the session nonce
// in 64 bits, the reason, and a code as one byte, only when it is not
// DisconnectUnspecified.
func AppendDisconnect(dst []byte, m *Disconnect) ([]byte, error) {
	if m.Code >= NumDisconnectCodes {
		return dst, encodeError(MsgDisconnect, "code %d unknown", m.Code)
	}
	if why := checkString(m.Reason, MaxReasonLen); why != "" {
		return dst, encodeError(MsgDisconnect, "reason %s", why)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgDisconnect), 8)
	w.writeBits(m.Nonce, 64)
	w.writeString(m.Reason, reasonLenBits)
	if m.Code != DisconnectUnspecified {
		w.writeBits(uint64(m.Code), 8)
	}
	return w.buf, nil
}

// DecodeDisconnect decodes datagram b into m.
func DecodeDisconnect(b []byte, m *Disconnect) error {
	r := newReader(b, MsgDisconnect)
	m.Nonce = r.readBits(64)
	m.Reason = r.readString(reasonLenBits, MaxReasonLen, "reason")
	m.Code = DisconnectUnspecified
	if r.err == nil && len(b)*8-r.pos >= 8 {
		m.Code = DisconnectCode(r.readBits(8))
		if m.Code == DisconnectUnspecified || m.Code >= NumDisconnectCodes {
			r.failf("code %d unknown", m.Code)
		}
	}
	return r.finish()
}

func appendReason(dst []byte, t MsgType, reason string) ([]byte, error) {
	if why := checkString(reason, MaxReasonLen); why != "" {
		return dst, encodeError(t, "reason %s", why)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(t), 8)
	w.writeString(reason, reasonLenBits)
	return w.buf, nil
}

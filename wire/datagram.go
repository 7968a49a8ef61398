package wire

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// MsgType is the first byte of every datagram: which message it holds.
type MsgType uint8

// Message types. Zero is not a message, so a zeroed buffer is rejected.
const (
	MsgConnect MsgType = 1 + iota
	MsgAccept
	MsgReject
	MsgCommands
	MsgSnapshot
	MsgDisconnect
	MsgAppeal
	MsgChallenge
	MsgReport
	// MsgSealed is a datagram of a sealed session (package seal): a
	// sequence number, another message encrypted, and its tag.
	MsgSealed
	// MsgGameEvents carries a game's own reliable events from a client
	// (GameEvents), and MsgGameEventAck the server's acknowledgement.
	MsgGameEvents
	MsgGameEventAck
	// MsgProbe is a ping of a round-trip probe (Probe): no game session,
	// only the server's measurement of the link's round trip.
	MsgProbe
)

var msgNames = [...]string{
	MsgConnect:      "connect",
	MsgAccept:       "accept",
	MsgReject:       "reject",
	MsgCommands:     "commands",
	MsgSnapshot:     "snapshot",
	MsgDisconnect:   "disconnect",
	MsgAppeal:       "appeal",
	MsgChallenge:    "challenge",
	MsgReport:       "report",
	MsgSealed:       "sealed",
	MsgGameEvents:   "game events",
	MsgGameEventAck: "game event ack",
	MsgProbe:        "probe",
}

// String returns the message's name in lower case, as errors use it.
func (t MsgType) String() string {
	if t > 0 && int(t) < len(msgNames) {
		return msgNames[t]
	}
	return "MsgType(" + strconv.Itoa(int(t)) + ")"
}

// PeekType returns the type of datagram b without decoding it, or an error
// if b is empty, longer than MaxDatagram or of no known type.
func PeekType(b []byte) (MsgType, error) {
	switch {
	case len(b) == 0:
		return 0, errors.New("wire: empty datagram")
	case len(b) > MaxDatagram:
		return 0, fmt.Errorf("wire: datagram of %d bytes exceeds MaxDatagram", len(b))
	}
	t := MsgType(b[0])
	if t == 0 || int(t) >= len(msgNames) {
		return 0, fmt.Errorf("wire: unknown message type %d", b[0])
	}
	return t, nil
}

// Limits of the encoded fields. Encoders reject values beyond them and
// decoders reject encodings of such values. Durations travel in whole
// microseconds: UserCmd.Duration and PlayerState.WeaponWait must be whole
// microseconds, as the movement and weapon steps run on them; clock
// readings, delays and HitEvent.Deadline are truncated.
const (
	// MaxNameLen bounds Connect.Name and Accept.Map, in bytes.
	MaxNameLen = 32
	// MaxReasonLen bounds Reject.Reason and Disconnect.Reason, in bytes.
	MaxReasonLen = 200
	// MaxCmdDuration bounds UserCmd.Duration; longer commands would let a
	// client move further per command than any tick rate needs.
	MaxCmdDuration = 250 * time.Millisecond
	// MaxDelay bounds the delays a message reports: Connect.InterpDelay,
	// Commands.AckDelay and Snapshot.EchoHold.
	MaxDelay = time.Minute
	// MaxClock bounds clock readings: Commands.ClientTime,
	// Snapshot.EchoClientTime and UserCmd.ViewTime (about 35 years, far
	// from time.Duration's overflow).
	MaxClock = 1 << 50 * time.Microsecond
	// MaxCoord bounds the magnitude of positions and velocities in
	// game.PosQuantum and game.VelQuantum units (32 km, 32 km/s).
	MaxCoord = 1 << 24
	// MaxEvents bounds the events in one snapshot.
	MaxEvents = 32
	// MaxEventData bounds Event.Data, in bytes.
	MaxEventData = 255
	// MaxEventWindow bounds how far apart the sequence numbers of the
	// events a client is still owed may be: a server keeps at most this
	// many unacknowledged events for a client, so a client holds at most
	// this many that arrived early.
	MaxEventWindow = 512
)

// Bit widths of length prefixes, from the limits above.
const (
	nameLenBits   = 6 // up to 63 >= MaxNameLen
	tokenLenBits  = 7 // up to 127 >= MaxTokenLen
	reasonLenBits = 8 // up to 255 >= MaxReasonLen
)

// inRange reports whether d lies in [0, max].
func inRange(d, max time.Duration) bool { return d >= 0 && d <= max }

// micros returns d in whole microseconds, truncated: clock readings and
// delays are measurements, and their sub-microsecond part is noise.
func micros(d time.Duration) uint64 { return uint64(d / time.Microsecond) }

// readMicros reads a duration written as a uvarint of microseconds and
// checks it against max; field names it in errors.
func (r *bitReader) readMicros(max time.Duration, field string) time.Duration {
	us := r.readUvarint()
	if us > uint64(max/time.Microsecond) {
		r.failf("%s out of range", field)
		return 0
	}
	return time.Duration(us) * time.Microsecond
}

// encodeError returns the error of an encoder of message t.
func encodeError(t MsgType, format string, args ...any) error {
	return fmt.Errorf("wire: %v: %s", t, fmt.Sprintf(format, args...))
}

// eventError returns the error of an encoder of the event called name.
func eventError(name, format string, args ...any) error {
	return fmt.Errorf("wire: %s: %s", name, fmt.Sprintf(format, args...))
}

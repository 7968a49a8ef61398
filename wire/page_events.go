package wire

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// Events a player's screen needs beyond the game's rules: who the other
// players are, the way the server turned the player when it placed it,
// and what the server measures of itself and of the player's link. Their
// layouts:
//
//	NameEvent:   Player 8 | Name string (6-bit length, at most MaxNameLen, as Connect.Name)
//	PlaceEvent:  Teleport 8 | Yaw 16 | Pitch 16 (game angle units)
//	ServerEvent: TickTime TickLate EmulatedUp EmulatedDown HeldUp HeldDown
//	             uvarint µs each | LossOut 10 (per mille) |
//	             Policy string (5-bit length, at most MaxPolicyName)
//
// A receiver that does not know a kind skips it, as every event kind.
const (
	EventName   uint16 = 13 // NameEvent, to every client when a player joins, and every name to a joining client
	EventPlace  uint16 = 14 // PlaceEvent, to a player the server placed (spawn, respawn, teleport)
	EventServer uint16 = 15 // ServerEvent, to every client once a second
)

// MaxPolicyName is the longest lag compensation policy name a
// ServerEvent carries, in bytes.
const MaxPolicyName = 31

// NameEvent names the player in a slot: what its Connect called it (a
// free player's chosen name, a study participant's label, a bot's name).
// It holds until another NameEvent names the slot.
type NameEvent struct {
	Player uint8
	Name   string
}

// PlaceEvent tells a player the way the server turned it when it placed
// it: the view the player's page takes. Teleport is the player state's
// Teleport counter after the placement, so that a client can tell which
// placement a snapshot's state belongs to. A snapshot cannot say this:
// the server runs the player's commands before it sends the tick's
// snapshot, and a command sent before the player heard of the placement
// turns it back.
type PlaceEvent struct {
	Teleport uint8
	Yaw      uint16 // game angle units (game.YawUnits)
	Pitch    int16
}

// ServerEvent is what the server measured over the last second, for a
// client's net graph: how long its ticks took to compute and how late
// they started (the worst of the second), the one-way latency added to
// this client's link by network emulation and by the time delay
// technique (package delay) in each direction, the share of this
// client's commands that never arrived, and the lag compensation policy
// in force.
type ServerEvent struct {
	TickTime, TickLate       time.Duration
	EmulatedUp, EmulatedDown time.Duration
	HeldUp, HeldDown         time.Duration
	// LossOut is the share of the client's commands lost on the way to
	// the server, in thousandths (at most 1000).
	LossOut uint16
	Policy  string
}

const (
	nameEventName   = "name event"
	placeEventName  = "place event"
	serverEventName = "server event"
)

// AppendNameEvent appends the encoding of e to dst, for an Event of kind
// EventName. On error, dst is unchanged.
func AppendNameEvent(dst []byte, e *NameEvent) ([]byte, error) {
	if why := checkString(e.Name, MaxNameLen); why != "" {
		return dst, eventError(nameEventName, "name %s", why)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Player), 8)
	w.writeString(e.Name, 6)
	return w.buf, nil
}

// DecodeNameEvent decodes event data b into e.
func DecodeNameEvent(b []byte, e *NameEvent) error {
	r := newEventReader(b, nameEventName)
	e.Player = uint8(r.readBits(8))
	e.Name = r.readString(6, MaxNameLen, "name")
	return r.finish()
}

// AppendPlaceEvent appends the encoding of e to dst, for an Event of kind
// EventPlace. Pitch must lie within ±game.MaxPitch.
func AppendPlaceEvent(dst []byte, e *PlaceEvent) ([]byte, error) {
	if e.Pitch > game.MaxPitch || e.Pitch < -game.MaxPitch {
		return dst, eventError(placeEventName, "pitch %d out of range", e.Pitch)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Teleport), 8)
	w.writeBits(uint64(e.Yaw), 16)
	w.writeBits(uint64(uint16(e.Pitch)), 16)
	return w.buf, nil
}

// DecodePlaceEvent decodes event data b into e.
func DecodePlaceEvent(b []byte, e *PlaceEvent) error {
	r := newEventReader(b, placeEventName)
	e.Teleport = uint8(r.readBits(8))
	e.Yaw = uint16(r.readBits(16))
	e.Pitch = int16(uint16(r.readBits(16)))
	if r.err == nil && (e.Pitch > game.MaxPitch || e.Pitch < -game.MaxPitch) {
		r.failf("pitch %d out of range", e.Pitch)
	}
	return r.finish()
}

// AppendServerEvent appends the encoding of e to dst, for an Event of
// kind EventServer. Each duration is sent in whole microseconds,
// truncated, and must lie within [0, MaxClock]. On error, dst is
// unchanged.
func AppendServerEvent(dst []byte, e *ServerEvent) ([]byte, error) {
	ds := e.durations()
	for _, d := range ds {
		if *d < 0 || *d > MaxClock {
			return dst, eventError(serverEventName, "duration %v out of range", *d)
		}
	}
	if e.LossOut > 1000 {
		return dst, eventError(serverEventName, "loss %d‰ over 1000", e.LossOut)
	}
	if why := checkString(e.Policy, MaxPolicyName); why != "" {
		return dst, eventError(serverEventName, "policy %s", why)
	}
	w := bitWriter{buf: dst}
	for _, d := range ds {
		w.writeUvarint(uint64(*d / time.Microsecond))
	}
	w.writeBits(uint64(e.LossOut), 10)
	w.writeString(e.Policy, 5)
	return w.buf, nil
}

// DecodeServerEvent decodes event data b into e.
func DecodeServerEvent(b []byte, e *ServerEvent) error {
	r := newEventReader(b, serverEventName)
	for _, d := range e.durations() {
		us := r.readUvarint()
		if us > uint64(MaxClock/time.Microsecond) {
			r.failf("duration out of range")
			us = 0
		}
		*d = time.Duration(us) * time.Microsecond
	}
	e.LossOut = uint16(r.readBits(10))
	if r.err == nil && e.LossOut > 1000 {
		r.failf("loss %d‰ over 1000", e.LossOut)
	}
	e.Policy = r.readString(5, MaxPolicyName, "policy")
	return r.finish()
}

func (e *ServerEvent) durations() [6]*time.Duration {
	return [6]*time.Duration{&e.TickTime, &e.TickLate, &e.EmulatedUp, &e.EmulatedDown, &e.HeldUp, &e.HeldDown}
}

package wire

import (
	"fmt"

	"github.com/lagkit/lagkit/game"
)

// MaxParts bounds Shape.Parts: a part is a game.PartKind, one byte.
const MaxParts = 256

// Shape is what a game declares that sizes some of the wire's fields
// beyond its state and command declarations: how many slots its players
// and entities share, how many parts its bodies have, and whether every
// player's health goes to every client. The zero Shape is lagkit's own
// game: 256 slots (MaxEntities), four parts (game.NumParts), health to
// its owner alone. Server and client configurations carry the same
// Shape; a Connect carries the client's, and a server refuses one that
// differs from its own, naming the field.
type Shape struct {
	// Slots is the number of snapshot slots, players' and entities'
	// (the players take the first, server.Config.MaxClients, at most
	// MaxEntities of them): 1 to MaxSlots, or 0 for MaxEntities. A
	// snapshot codes a slot in the bits the slots rounded up to a
	// multiple of 64 take: 8 up to 256 slots, so that lagkit's own
	// snapshots are as they were, and 12 for 4096.
	Slots int
	// Parts is the number of parts of the game's bodies
	// (lagcomp.BodyHit.Part is below it): 1 to MaxParts, or 0 for
	// game.NumParts. A part index travels in 4 bits below 15, so that
	// lagkit's own four parts cost what they always did, and in 12
	// beyond.
	Parts int
	// HealthToAll sends each player's and entity's health
	// (game.PlayerState.Health) to every client in its snapshot entry
	// (EntityState.Health), for health bars; otherwise only the owner
	// learns its own.
	HealthToAll bool
}

// SlotCount returns the number of slots s declares: s.Slots, or
// MaxEntities for 0.
func (s Shape) SlotCount() int {
	if s.Slots == 0 {
		return MaxEntities
	}
	return s.Slots
}

// PartCount returns the number of parts s declares: s.Parts, or
// game.NumParts for 0.
func (s Shape) PartCount() int {
	if s.Parts == 0 {
		return game.NumParts
	}
	return s.Parts
}

// Check returns an error if s cannot be a session's shape.
func (s Shape) Check() error {
	if why := s.why(); why != "" {
		return fmt.Errorf("wire: shape: %s", why)
	}
	return nil
}

// why returns why s cannot be a session's shape, or "".
func (s Shape) why() string {
	if s.Slots < 0 || s.Slots > MaxSlots {
		return fmt.Sprintf("slots %d outside 1 to %d (0 for %d)", s.Slots, MaxSlots, MaxEntities)
	}
	if s.Parts < 0 || s.Parts > MaxParts {
		return fmt.Sprintf("parts %d outside 1 to %d (0 for %d)", s.Parts, MaxParts, game.NumParts)
	}
	return ""
}

// Diff returns the first field in which a client's shape c differs
// from its server's, s, with both values ("parts: client 12, server
// 4"), or "" when they are the same, for a server refusing the client.
func (s Shape) Diff(c Shape) string {
	switch {
	case s.SlotCount() != c.SlotCount():
		return fmt.Sprintf("slots: client %d, server %d", c.SlotCount(), s.SlotCount())
	case s.PartCount() != c.PartCount():
		return fmt.Sprintf("parts: client %d, server %d", c.PartCount(), s.PartCount())
	case s.HealthToAll != c.HealthToAll:
		return fmt.Sprintf("health to all: client %v, server %v", c.HealthToAll, s.HealthToAll)
	}
	return ""
}

// A part index is coded as 4 bits below partEscape, and as partEscape
// then 8 bits for the others (partEscape to MaxParts-1): lagkit's own
// parts, 0 to 3, cost the 4 bits they did before the escape existed.
const (
	partBits   = 4
	partEscape = 1<<partBits - 1
	partLong   = 8
)

// partCode returns the bits and bit count of part p.
func partCode(p game.PartKind) (uint64, uint) {
	if p < partEscape {
		return uint64(p), partBits
	}
	return partEscape | uint64(p)<<partBits, partBits + partLong
}

// writePart writes part p.
func writePart(w *bitWriter, p game.PartKind) {
	c, n := partCode(p)
	w.writeBits(c, n)
}

// partError returns why p cannot be a part of a body of parts parts
// (0: game.NumParts), or "".
func partError(p game.PartKind, parts int) string {
	switch {
	case parts < 0 || parts > MaxParts:
		return fmt.Sprintf("parts %d outside 1 to %d", parts, MaxParts)
	case parts == 0:
		parts = game.NumParts
	}
	if int(p) >= parts {
		return fmt.Sprintf("part %d out of range: the body has %d parts", p, parts)
	}
	return ""
}

// bodyMark, a value of the long code below partEscape (no part's),
// marks a HitEvent's part as on a game's body (HitEvent.OnBody); the
// part follows in partLong bits.
const bodyMark = 0

// bodyMark must lie below partEscape: this fails to compile otherwise.
const _ = uint(partEscape - 1 - bodyMark)

// writeHitPart writes a HitEvent's part p, on a game's body if onBody.
func writeHitPart(w *bitWriter, p game.PartKind, onBody bool) {
	if !onBody {
		writePart(w, p)
		return
	}
	w.writeBits(partEscape|bodyMark<<partBits, partBits+partLong)
	w.writeBits(uint64(p), partLong)
}

// readPart reads a body part of a body of parts parts (0:
// game.NumParts) and checks it.
func readPart(r *bitReader, parts int) game.PartKind {
	p, _ := readPartMarked(r, parts, false)
	return p
}

// readHitPart reads a HitEvent's part, as readPart does, and whether it
// is on a game's body.
func readHitPart(r *bitReader, parts int) (game.PartKind, bool) {
	return readPartMarked(r, parts, true)
}

// readPartMarked reads a part and, where body allows the mark, whether
// it is on a game's body.
func readPartMarked(r *bitReader, parts int, body bool) (game.PartKind, bool) {
	p := game.PartKind(r.readBits(partBits))
	onBody := false
	if p == partEscape {
		p = game.PartKind(r.readBits(partLong))
		switch {
		case body && p == bodyMark && r.err == nil:
			onBody = true
			p = game.PartKind(r.readBits(partLong))
		case p < partEscape && r.err == nil:
			r.failf("part %d in the long code", p)
			return 0, false
		}
	}
	if why := partError(p, parts); why != "" {
		r.failf("%s", why)
	}
	return p, onBody
}

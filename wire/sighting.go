package wire

import "github.com/lagkit/lagkit/game"

// Sighting is a victim's client's judgment of a hit on its player: the
// hit, named by the shot it belongs to (Shooter, ShotTick) and the part
// it struck (which tells a shotgun's pellets on different parts apart),
// and whether the client's SBC detection, run on its predicted pose
// when the HitEvent arrived against the shooter's eye the event carried,
// found it behind cover: the objective "shot behind cover" of [alc]'s
// study, measured where the victim saw it. A client sends one for every
// hit on its player, riding on its Commands (Commands.Sightings), and
// the server ties it to the hit's record (server.ShotRecord.Sight).
type Sighting struct {
	Shooter  uint8
	ShotTick uint32
	Part     game.PartKind
	SBC      bool
}

// MaxSightings bounds Commands.Sightings: a client sends each sighting
// in a few consecutive command packets (so that a lost packet loses
// none), and a player is seldom hit by more than a few pellets a tick.
const MaxSightings = 8

// After its commands, a Commands packet carries a flag bit saying
// whether sightings follow, and when set its sightings:
//
//	len(Sightings)-1 3 | per sighting: Shooter 8 | ShotTick 32 | Part | SBC 1
//
// so that a packet of a player nobody hits pays one bit for them.
const sightCountBits = 3 // len(Sightings)-1, 0 to 7

// Every count up to MaxSightings fits.
const _ = uint(1<<sightCountBits - MaxSightings)

// checkSightings returns an error if m's sightings cannot be encoded.
func checkSightings(m *Commands) error {
	if len(m.Sightings) > MaxSightings {
		return encodeError(MsgCommands, "%d sightings, want at most %d", len(m.Sightings), MaxSightings)
	}
	for i := range m.Sightings {
		if why := partError(m.Sightings[i].Part, m.Parts); why != "" {
			return encodeError(MsgCommands, "sighting %d: %s", i, why)
		}
	}
	return nil
}

// writeSightings writes m's sightings, if any, after its commands.
func writeSightings(w *bitWriter, m *Commands) {
	w.writeBool(len(m.Sightings) > 0)
	if len(m.Sightings) == 0 {
		return
	}
	w.writeBits(uint64(len(m.Sightings)-1), sightCountBits)
	for i := range m.Sightings {
		s := &m.Sightings[i]
		w.writeBits(uint64(s.Shooter), 8)
		w.writeBits(uint64(s.ShotTick), 32)
		writePart(w, s.Part)
		w.writeBool(s.SBC)
	}
}

// readSightings reads the sightings that follow a Commands packet's
// commands into m, reusing m.Sightings' storage.
func readSightings(r *bitReader, m *Commands) {
	m.Sightings = m.Sightings[:0]
	if r.err != nil || !r.readBool() {
		return
	}
	n := int(r.readBits(sightCountBits)) + 1
	for i := 0; i < n && r.err == nil; i++ {
		s := Sighting{Shooter: uint8(r.readBits(8)), ShotTick: uint32(r.readBits(32))}
		s.Part = readPart(r, m.Parts)
		s.SBC = r.readBool()
		m.Sightings = append(m.Sightings, s)
	}
}

package wire

import (
	"math"
	"strconv"

	"github.com/lagkit/lagkit/game"
)

// Game events travel as the Data of a snapshot's Event, whose Kind names
// them (EventHit ...). Their Data is a bit stream like a message's, without
// a type byte, padded with zero bits to a whole byte:
//
//	HitEvent:     Shooter 8 | ShotTick 32 | Part | Damage 16 |
//	              Local.X Local.Y Local.Z 13 each, or far 13 + 3 x 18 |
//	              ShooterEye.X ShooterEye.Y ShooterEye.Z |
//	              Appeal 32 | Deadline uvarint µs
//	ConfirmEvent: ShotTick 32 | Victim 8 | Part | Damage 16 | Outcome 4
//	VerdictEvent: Appeal 32 | Outcome 4
//	KillEvent:    Killer 8 | Victim 8
//
// A Part is 4 bits below 15, else 15 and 8 bits (see partCode); a
// HitEvent's Part on a game's body (OnBody) is 15, 8 bits of 0 (in the
// long code, where no part is) and the part in 8 bits. A Local
// component is zigzag coded in LocalQuantum units, in 13 bits within
// ±MaxLocal. A Local on a game's body with a component beyond it is
// localFar (8191) in Local.X's 13 bits, a code above every component's
// within ±MaxLocal, and then its three components in 18 bits each, up to
// ±MaxBodyLocal: lagkit's own hits, within ±MaxLocal, are coded as they
// were before the far code existed. A ShooterEye
// component is in game.PosQuantum units in the bucket code of positions
// (coordBuckets), which keeps eyes on the bundled maps to 19 bits.

// Names of the events in errors.
const (
	hitName     = "hit event"
	confirmName = "confirm event"
	verdictName = "verdict event"
	killName    = "kill event"
)

const (
	outcomeBits = 4 // up to 15 >= numOutcomes-1
	localBits   = 13
	// maxLocalUnits is MaxLocal in LocalQuantum units; its zigzag code
	// (2*maxLocalUnits) fits localBits.
	maxLocalUnits = MaxLocal / LocalQuantum
	// localFar in Local.X's place marks a far Local on a game's body,
	// whose components follow in localFarBits each, within
	// ±maxBodyLocalUnits.
	localFar          = 1<<localBits - 1
	localFarUnits     = -(localFar + 1) / 2 // unzigzag(localFar)
	localFarBits      = 18
	maxBodyLocalUnits = MaxBodyLocal / LocalQuantum
)

// The widths above must hold every part, outcome and local, and localFar
// lie above every near local's code: these constants fail to compile (a
// negative value converted to uint) when they do not.
const (
	_ = uint(1<<outcomeBits - numOutcomes)
	_ = uint(localFar - 1 - 2*maxLocalUnits)
	_ = uint(1<<localFarBits - 1 - 2*maxBodyLocalUnits)
)

var outcomeNames = [numOutcomes]string{
	OutcomeRegistered:    "registered",
	OutcomeConfirmed:     "confirmed",
	OutcomeDeniedUpheld:  "denied_upheld",
	OutcomeDeniedRefuted: "denied_refuted",
	OutcomeTimeout:       "timeout",
	OutcomeDiscarded:     "discarded",
}

// String returns the outcome's name in snake case, as logs and metrics use
// it.
func (o Outcome) String() string {
	if o < numOutcomes {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// AppendHitEvent appends the encoding of e to dst, for an Event of kind
// EventHit. Each component of e.Local is rounded to the nearest multiple of
// LocalQuantum (halves away from zero) and must lie within ±MaxLocal, or
// on a game's body (e.OnBody) within ±MaxBodyLocal; DecodeHitEvent
// returns the rounded Local. e.ShooterEye must lie on the
// game.PosQuantum grid within ±MaxCoord units, e.Part be below
// e.Parts (game.NumParts for 0), and e.Deadline within [0, MaxClock]; it is sent in whole
// microseconds, truncated. On error, dst is unchanged.
func AppendHitEvent(dst []byte, e *HitEvent) ([]byte, error) {
	if why := partError(e.Part, e.Parts); why != "" {
		return dst, eventError(hitName, "%s", why)
	}
	var local, eye [3]int64
	limit := MaxLocal
	if e.OnBody {
		limit = MaxBodyLocal
	}
	far := false
	for i, v := range [...]float64{e.Local.X, e.Local.Y, e.Local.Z} {
		// The negated test also rejects NaN.
		if !(math.Abs(v) <= limit) {
			if e.OnBody {
				return dst, eventError(hitName, "local %+v out of range: beyond ±%g m of the body's origin", e.Local, limit)
			}
			return dst, eventError(hitName, "local %+v out of range", e.Local)
		}
		local[i] = int64(math.Round(v / LocalQuantum))
		// Within ±MaxLocal, local[i] is too: only a body's is far.
		far = far || local[i] < -maxLocalUnits || local[i] > maxLocalUnits
	}
	for i, v := range [...]float64{e.ShooterEye.X, e.ShooterEye.Y, e.ShooterEye.Z} {
		var ok bool
		if eye[i], ok = quantize(v, game.PosQuantum); !ok {
			return dst, eventError(hitName, "shooter eye %+v off the PosQuantum grid or out of range", e.ShooterEye)
		}
	}
	if !inRange(e.Deadline, MaxClock) {
		return dst, eventError(hitName, "deadline %v out of range", e.Deadline)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Shooter), 8)
	w.writeBits(uint64(e.ShotTick), 32)
	writeHitPart(&w, e.Part, e.OnBody)
	w.writeBits(uint64(uint16(e.Damage)), 16)
	if far {
		w.writeBits(localFar, localBits)
		for _, u := range local {
			w.writeBits(zigzag(u), localFarBits)
		}
	} else {
		for _, u := range local {
			w.writeBits(zigzag(u), localBits)
		}
	}
	for _, u := range eye {
		w.writeBucketed(u, coordBuckets)
	}
	w.writeBits(uint64(e.Appeal), 32)
	w.writeUvarint(micros(e.Deadline))
	return w.buf, nil
}

// DecodeHitEvent decodes event data b into e. On error e holds a partial
// result.
func DecodeHitEvent(b []byte, e *HitEvent) error {
	r := newEventReader(b, hitName)
	e.Shooter = uint8(r.readBits(8))
	e.ShotTick = uint32(r.readBits(32))
	e.Part, e.OnBody = readHitPart(&r, e.Parts)
	e.Damage = int16(r.readBits(16))
	var local, eye [3]float64
	for i := range local {
		u := unzigzag(r.readBits(localBits))
		if u < -maxLocalUnits || u > maxLocalUnits {
			// localFar is out of the near range: a near Local pays
			// nothing for the far code.
			if i == 0 && u == localFarUnits && e.OnBody {
				readFarLocal(&r, &local)
				break
			}
			r.failf("local %g m out of range", float64(u)*LocalQuantum)
		}
		local[i] = float64(u) * LocalQuantum
	}
	e.Local.X, e.Local.Y, e.Local.Z = local[0], local[1], local[2]
	for i := range eye {
		u, ok := readCoord(&r, 0)
		if !ok {
			r.failf("shooter eye out of range")
		}
		eye[i] = float64(u) * game.PosQuantum
	}
	e.ShooterEye.X, e.ShooterEye.Y, e.ShooterEye.Z = eye[0], eye[1], eye[2]
	e.Appeal = uint32(r.readBits(32))
	e.Deadline = r.readMicros(MaxClock, "deadline")
	return r.finish()
}

// readFarLocal reads the components of a far Local on a game's body, after
// its localFar, into local and checks them: within ±MaxBodyLocal, one at
// least beyond ±MaxLocal (a Local within it has one code, the near one).
func readFarLocal(r *bitReader, local *[3]float64) {
	far := false
	for i := range local {
		u := unzigzag(r.readBits(localFarBits))
		if u < -maxBodyLocalUnits || u > maxBodyLocalUnits {
			r.failf("local %g m out of range on the body", float64(u)*LocalQuantum)
		}
		far = far || u < -maxLocalUnits || u > maxLocalUnits
		local[i] = float64(u) * LocalQuantum
	}
	if !far {
		r.failf("local within ±%g m in the far code", MaxLocal)
	}
}

// AppendConfirmEvent appends the encoding of e to dst, for an Event of kind
// EventConfirm. e.Part must be below e.Parts (game.NumParts for 0) and e.Outcome a known
// Outcome. On error, dst is unchanged.
func AppendConfirmEvent(dst []byte, e *ConfirmEvent) ([]byte, error) {
	if why := partError(e.Part, e.Parts); why != "" {
		return dst, eventError(confirmName, "%s", why)
	}
	if e.Outcome >= numOutcomes {
		return dst, eventError(confirmName, "outcome %d out of range", e.Outcome)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.ShotTick), 32)
	w.writeBits(uint64(e.Victim), 8)
	writePart(&w, e.Part)
	w.writeBits(uint64(uint16(e.Damage)), 16)
	w.writeBits(uint64(e.Outcome), outcomeBits)
	return w.buf, nil
}

// DecodeConfirmEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeConfirmEvent(b []byte, e *ConfirmEvent) error {
	r := newEventReader(b, confirmName)
	e.ShotTick = uint32(r.readBits(32))
	e.Victim = uint8(r.readBits(8))
	e.Part = readPart(&r, e.Parts)
	e.Damage = int16(r.readBits(16))
	e.Outcome = readOutcome(&r)
	return r.finish()
}

// AppendVerdictEvent appends the encoding of e to dst, for an Event of kind
// EventVerdict. e.Outcome must be a known Outcome. On error, dst is
// unchanged.
func AppendVerdictEvent(dst []byte, e *VerdictEvent) ([]byte, error) {
	if e.Outcome >= numOutcomes {
		return dst, eventError(verdictName, "outcome %d out of range", e.Outcome)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Appeal), 32)
	w.writeBits(uint64(e.Outcome), outcomeBits)
	return w.buf, nil
}

// DecodeVerdictEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeVerdictEvent(b []byte, e *VerdictEvent) error {
	r := newEventReader(b, verdictName)
	e.Appeal = uint32(r.readBits(32))
	e.Outcome = readOutcome(&r)
	return r.finish()
}

// AppendKillEvent appends the encoding of e to dst, for an Event of kind
// EventKill.
func AppendKillEvent(dst []byte, e *KillEvent) ([]byte, error) {
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Killer), 8)
	w.writeBits(uint64(e.Victim), 8)
	return w.buf, nil
}

// DecodeKillEvent decodes event data b into e. On error e holds a partial
// result.
func DecodeKillEvent(b []byte, e *KillEvent) error {
	r := newEventReader(b, killName)
	e.Killer = uint8(r.readBits(8))
	e.Victim = uint8(r.readBits(8))
	return r.finish()
}

// readOutcome reads an outcome and checks it.
func readOutcome(r *bitReader) Outcome {
	o := Outcome(r.readBits(outcomeBits))
	if o >= numOutcomes {
		r.failf("outcome %d out of range", o)
	}
	return o
}

package wire

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// MaxDatagram is the largest datagram lagkit sends or accepts: small enough
// for one QUIC/WebTransport datagram on a 1280-byte path MTU.
const MaxDatagram = 1100

// Version is the protocol version carried by Connect and checked by Accept.
const Version = 1

// MaxEntities is the number of entity slots a snapshot can address.
const MaxEntities = 256

// Connect asks a server for a slot.
type Connect struct {
	Version uint16
	Name    string // player name, at most 32 bytes of UTF-8
	// SnapshotRate is the snapshots per second the client wants (0 = the
	// server's tick rate).
	SnapshotRate uint16
	// InterpDelay is the delay at which the client draws remote entities.
	InterpDelay time.Duration
}

// Accept admits a client.
type Accept struct {
	ClientID uint8 // the client's own entity slot
	TickRate uint16
	Tick     uint32 // server tick when accepted
	Map      string
}

// Reject refuses a Connect.
type Reject struct{ Reason string }

// Disconnect ends a session from either side.
type Disconnect struct{ Reason string }

// Commands carries the newest user commands (the newest first is not
// required; commands are ordered by Tick, oldest first) together with the
// client's acknowledgement of the last snapshot it received.
type Commands struct {
	// AckTick is the tick of the newest snapshot the client has received (0:
	// none yet); the server deltas against it.
	AckTick uint32
	// AckDelay is how long the client held that snapshot before sending this
	// packet, so the server can take it out of its RTT sample.
	AckDelay time.Duration
	// ClientTime is the client's clock when sending; snapshots echo it.
	ClientTime time.Duration
	Cmds       []game.UserCmd // 1 to MaxCmdsPerPacket commands, oldest first
}

// MaxCmdsPerPacket bounds the commands in one Commands packet.
const MaxCmdsPerPacket = 8

// EntityState is the replicated state of one remote entity, quantised.
type EntityState struct {
	X, Y, Z  int32 // position in game.PosQuantum units
	Yaw      uint16
	Pitch    int16
	Flags    game.StateFlags
	Teleport uint8
}

// Event is one entry of a snapshot's extensible event list. Receivers skip
// kinds they do not know.
type Event struct {
	Kind uint16
	Data []byte
}

// Snapshot is the server's per-client world update.
type Snapshot struct {
	Tick uint32 // server tick of this state
	// Baseline is the tick of the acknowledged snapshot this one is delta
	// encoded against (0: none, a full snapshot).
	Baseline uint32
	// LastCmd is the Tick of the last command the server executed for this
	// client; the client reconciles from Self after it.
	LastCmd uint32
	// EchoClientTime is the newest Commands.ClientTime the server has
	// received, and EchoHold how long it was held since, for the client's
	// RTT estimate.
	EchoClientTime time.Duration
	EchoHold       time.Duration
	// Self is the receiving client's own authoritative state, exactly.
	Self game.PlayerState
	// Entities holds every entity slot; Present marks which are in the
	// world.
	Entities [MaxEntities]EntityState
	Present  [MaxEntities / 64]uint64
	// Events are delivered reliably: the server repeats each event in every
	// snapshot until one containing it is acknowledged. FirstEventSeq is the
	// sequence number of Events[0]; the rest follow consecutively, and the
	// receiver drops those it has already seen.
	FirstEventSeq uint32
	Events        []Event
}

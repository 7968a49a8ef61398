package wire

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// MaxDatagram is the largest datagram lagkit sends or accepts: small enough
// for one QUIC/WebTransport datagram on a 1280-byte path MTU.
const MaxDatagram = 1100

// Version is the protocol version carried by Connect and checked by Accept.
// Version 4 added the session nonce, the address token and the padding of
// Connect, and Challenge. Version 5 added the fire press (sub-tick input)
// to the commands of a Commands packet. Version 6 codes every state's
// stamp against the snapshot's tick (a snapshot under a bandwidth budget
// mixes states of different ticks). Version 7 numbers every event of a
// snapshot, so that a server can resend an event a round trip after it
// last sent it rather than in every snapshot until acknowledged, and
// names the session a Disconnect ends by its nonce. Version 9 adds a
// game's own events from clients (GameEvents, GameEventAck) and, after
// the entities, a game's own values (Snapshot.Values; none for lagkit's
// own game, whose snapshots are byte for byte as in Version 8). Version
// 10 adds the name, place and server events (EventName, EventPlace,
// EventServer) and a Connect's Rejoin, and the mandated feedback (what a
// player is shown of its network) to the settings event. Version 11
// adds to a command holding the fire button the client's verdict on its
// shot (game.UserCmd.Shown). Version 12 replaces a game's values with
// its declared state (game.Declare; Snapshot.Game), and a Connect
// carries the hashes of the client's declaration and movement rules
// (Connect.Game, Connect.Rules), which a server refuses when they
// differ from its own. A game's declared command (game.DeclareCmd)
// came within Version 12: its hash rides in the Connect's padding
// (Connect.Cmd) and its fields after each command (Commands.Game), so a
// game that declares none, lagkit's own, sends the same bytes as before,
// and a server that knows no command declaration refuses a Connect with
// one for its nonzero padding.
// Version 13 adds to a Commands packet the
// client's sightings of hits on its player (Sighting): its own SBC
// detection of each, which a study records as the objective shot behind
// cover. A game's shape (Shape: more slots, more body parts, health to
// all) came within Version 13: it rides in the Connect's padding after
// the command hash, and sizes fields only in sessions that declare it,
// so lagkit's own, of the zero Shape, sends the same bytes as before,
// and a server that knows no shape refuses a Connect with one for its
// nonzero padding.
// Version 14 moves the weapon in hand, its ammunition, heat and timer
// out of Self's fixed fields into the declared game state, and leaves
// out a declared state's entry count when none of its fields goes to
// others.
// Version 15 makes a Connect's Game hash 0 mean no declared state:
// lagkit's shooter's weapon state is a declaration like any game's,
// named by its own hash.
const Version = 15

// ConnectSize is the size every Connect is padded to: at least the
// largest datagram a server sends to an address before a session exists
// (a Reject with the longest reason, a Challenge with the longest token,
// an Accept), so that a server never sends more to an unproven address
// than it received from it and cannot be used to amplify a flood aimed
// at a spoofed one (as QUIC pads a client's Initial to 1200 bytes, RFC
// 9000, section 8.1).
const ConnectSize = 256

// MaxTokenLen bounds Connect.Token and Challenge.Token, in bytes: room for
// a 16-byte address token followed by a sealed connect token (package
// token: XChaCha20-Poly1305 nonce 24, tag 16, claims up to 71). It was 96,
// too small for the claims; 127 is the most the 7-bit length field holds,
// so the encoding is unchanged, and a Connect with it still fits
// ConnectSize.
const MaxTokenLen = 127

// MaxEntities is the number of entity slots (players and entities) of
// lagkit's own shape (Shape.Slots 0): a snapshot's slot is 8 bits.
const MaxEntities = 256

// MaxSlots bounds Shape.Slots. A snapshot of n slots keeps 36 bytes of
// state a slot (147 KB at MaxSlots), and a server keeps one for each of
// a client's snapshots that may still be acknowledged: a few on a
// steady link, baseline.Window behind a lossy one. A slot's number
// takes 12 bits at most.
const MaxSlots = 4096

// Connect asks a server for a slot. A server answers a Connect without
// the token it expects with a Challenge; the client repeats its Connect
// with that token, proving it receives at its address, and only then gets
// a slot (as QUIC's Retry, RFC 9000, section 8.1.2).
type Connect struct {
	Version uint16
	// Nonce identifies the client's session: a client repeats it in every
	// Connect of one session and picks a new one when it starts again, so
	// a server can tell a retransmission from a restarted client at the
	// same address.
	Nonce uint64
	// Token is the token of the server's Challenge for this Nonce (empty
	// in a first Connect): opaque bytes, not text, at most MaxTokenLen.
	Token string
	Name  string // player name, at most 32 bytes of UTF-8
	// SnapshotRate is the snapshots per second the client wants (0 = the
	// server's tick rate).
	SnapshotRate uint16
	// InterpDelay is the delay at which the client draws remote entities.
	InterpDelay time.Duration
	// Key is the client's X25519 public key for sealing the session's
	// datagrams (package seal), or empty: a client over a transport that
	// authenticates its packets itself (WebTransport, WebSocket) asks for
	// no sealing. Opaque bytes: empty or KeySize of them.
	Key string
	// Rejoin asks for the seat and team of the client's session before,
	// on a server it lost: a restarted server knows nothing of it.
	Rejoin Rejoin
	// Game is the hash of the client's declared game state
	// (game.Layout.Hash; 0 for none), and Rules the
	// hash of its movement rules (game.Params.Hash; 0 for a client that
	// does not say, one that predicts nothing). A server whose own
	// differ rejects the Connect, naming the difference: a client
	// predicting with other rules, or decoding snapshots by another
	// declaration, would play a session it cannot follow.
	Game, Rules uint64
	// Cmd is the hash of the client's declared command
	// (game.CmdLayout.Hash; 0 for none, lagkit's own game), checked as
	// Game is: a client coding its commands by another declaration is
	// refused. It rides in the padding after Rejoin, a flag bit and 64
	// bits only when set, so a Connect without one is byte for byte as
	// before.
	Cmd uint64
	// Shape is the client's shape (part count, health to all), checked
	// as Game is. It rides in the padding after Cmd, a flag bit and its
	// fields only when not the zero Shape, lagkit's own.
	Shape Shape
}

// Rejoin is the seat and team a client asks for when it connects again
// after losing its server (Asked), so that a free player comes back
// where it was. A server that places players itself (a study's seats)
// ignores it; one that does not gives the seat when it is free and the
// team when that keeps the teams even. It rides in a Connect's padding:
// a Connect without it is encoded as before it existed.
type Rejoin struct {
	Asked      bool
	Seat, Team uint8
}

// Accept admits a client.
type Accept struct {
	ClientID uint8 // the client's own entity slot
	TickRate uint16
	Tick     uint32 // server tick when accepted
	Map      string
}

// Challenge answers a Connect that lacks the token the server expects:
// the client repeats its Connect with Token.
type Challenge struct {
	Nonce uint64 // the Connect's Nonce
	Token string // opaque bytes, not text, at most MaxTokenLen
	// Key is the server's X25519 public key for sealing the session
	// (package seal), or empty for a server that does not seal. Opaque
	// bytes: empty or KeySize of them.
	Key string
}

// KeySize is the size of Connect.Key and Challenge.Key: an X25519 public
// key.
const KeySize = 32

// Reject refuses a Connect.
type Reject struct{ Reason string }

// Disconnect ends a session from either side: Nonce names the session
// (the Nonce of its Connect), Reason in words for people and logs, Code
// for programs (metrics count disconnects by it). A side ignores a
// Disconnect that names another session: a goodbye of a client's
// previous session at the same address, delayed or reordered past the
// Connect of its next, or a spoofed one, ends nothing.
type Disconnect struct {
	Nonce  uint64
	Reason string
	Code   DisconnectCode
}

// DisconnectCode says why a session ended, for programs.
type DisconnectCode uint8

// The disconnect codes. A server over a limit of Config.Limits sends the
// code of that limit.
const (
	DisconnectUnspecified  DisconnectCode = iota // no code: read Reason
	DisconnectKicked                             // an administrator or the match (a seat given to a person, the end)
	DisconnectTimedOut                           // nothing heard for the server's timeout
	DisconnectNoAcks                             // no snapshot acknowledged for the server's timeout
	DisconnectEventBacklog                       // too many unacknowledged events
	DisconnectMalformed                          // too many malformed datagrams
	DisconnectOutOfWindow                        // too many commands outside the command window
	DisconnectAppeals                            // too many appeals
	DisconnectReports                            // too many reports
	DisconnectBytes                              // too many bytes received per second
	NumDisconnectCodes                           // the number of codes; not a code
)

var disconnectNames = [NumDisconnectCodes]string{
	"unspecified", "kicked", "timed_out", "no_acks", "event_backlog",
	"malformed", "out_of_window", "appeals", "reports", "bytes",
}

// String returns the code's name in snake case, as metrics label it.
func (c DisconnectCode) String() string {
	if c < NumDisconnectCodes {
		return disconnectNames[c]
	}
	return fmt.Sprintf("code_%d", uint8(c))
}

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
	// Game is the layout of the game's own part of each command
	// (game.DeclareCmd; nil for none, lagkit's own game, whose packets
	// it leaves unchanged). Both ends set it from their configuration
	// (the Connect carries its hash); the encoder refuses a command
	// whose part is outside its declared ranges, naming the field.
	Game *game.CmdLayout
	// Sightings are the client's judgments of hits on its player, at
	// most MaxSightings (see Sighting).
	Sightings []Sighting
	// Parts is the number of parts of the session's bodies
	// (Shape.Parts; 0: game.NumParts), which each sighting's Part must
	// be below: not sent, set at both ends as Game is.
	Parts int
}

// MaxCmdsPerPacket bounds the commands in one Commands packet.
const MaxCmdsPerPacket = 8

// EntityState is the replicated state of one remote entity, quantised.
type EntityState struct {
	X, Y, Z int32 // position in game.PosQuantum units
	// VX, VY, VZ is the velocity in game.VelQuantum units, for receivers
	// that extrapolate or dead reckon.
	VX, VY, VZ int32
	Yaw        uint16
	Pitch      int16
	Flags      game.StateFlags
	Teleport   uint8
	// Health is the player's or entity's health, sent only in a session
	// whose shape sends it to all (Shape.HealthToAll, Snapshot.HealthToAll);
	// zero otherwise.
	Health int16
	// Stamp is the server tick this state is from: the snapshot's own
	// tick for a state sent fresh, an older one for a state carried over
	// (threshold replication sends a player's state only when the
	// receiver's dead reckoning of it drifts too far; a bandwidth budget
	// leaves low-priority states for later snapshots).
	Stamp uint32
}

// Event is one entry of a snapshot's extensible event list. Receivers skip
// kinds they do not know.
type Event struct {
	// Seq is the event's sequence number: a server numbers each client's
	// events from 1 up, one by one, and the client delivers them in that
	// order whatever order they arrive in.
	Seq  uint32
	Kind uint16
	Data []byte
}

// Snapshot is the server's per-client world update. The entity of a slot
// not present is the zero EntityState; leave it so (AppendSnapshot and
// DecodeSnapshot zero the slots that leave, and every absent slot of a
// snapshot they have not seen before).
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
	// Entities holds every entity slot, the session's slot count
	// (SetSlots) rounded up to a multiple of 64; Present marks which are
	// in the world, a bit a slot. Both are empty until SetSlots, or
	// AppendSnapshot or DecodeSnapshot, sizes them.
	Entities []EntityState
	Present  []uint64
	// Events are delivered reliably: the server sends each event again,
	// about a round trip after it last sent it, until a snapshot carrying
	// it is acknowledged. Their sequence numbers (Event.Seq) increase
	// within a snapshot, from FirstEventSeq and less than MaxEventWindow
	// past it; they need not be consecutive. The receiver drops those it
	// has already seen and holds those that arrive early.
	FirstEventSeq uint32
	Events        []Event

	// Game is the layout of the game's own declared state (game.Declare)
	// the snapshot carries: Self.Game's fields sent to the owner or to
	// all, and each present entity's fields sent to all (EntityGame).
	// It is the session's declaration, the same at both ends (the
	// Connect carries its hash); a receiver sets it (SetGame) before
	// DecodeSnapshot, which reads it and leaves it. nil is none: a game
	// that keeps no state of its own.
	Game *game.Layout
	// EntityGame are each present entity's game states, MaxEntities of
	// them once SetGame finds fields sent to all (nil before), coded as
	// a delta against the baseline's after the entities (see
	// AppendSnapshot).
	EntityGame []game.State
	// Mates marks, a bit a slot as Present does, the entities whose
	// fields sent to the owner's team (game.VisTeam) the receiver is
	// sent: its team mates. The sender sets it (SetMate) when the
	// layout has such fields (game.Layout.SentToTeam; nil before
	// SetGame finds them); AppendSnapshot zeroes those fields of every
	// other entity in EntityGame, as the receiver holds them, and
	// DecodeSnapshot leaves it.
	Mates []uint64
	// HealthToAll codes each entity's Health after its state, as a
	// changed bit and 16 bits when changed: the session's shape
	// (Shape.HealthToAll), set at both ends as Game is. Without it an
	// entity's Health must be zero.
	HealthToAll bool

	// held marks, once settled is set, the slots that may hold a state:
	// those present when AppendSnapshot or DecodeSnapshot last ran on
	// the snapshot. Every other slot is zero (absent slots stay zero unless
	// written), so the next run clears only the slots that have left since
	// rather than every absent one.
	held    []uint64
	settled bool
	// slots is the declared slot count (SetSlots; 0: not yet sized),
	// and step the rotation step of its ring (see rotationStep).
	slots, step int
	// masks is AppendSnapshot's scratch, two masks of the slots, and
	// keys AppendSnapshotBudget's, a key a slot.
	masks []uint64
	keys  []uint64
	// reserve is gameReserve's answer for reserveOf in a ring of
	// reserveRing slots.
	reserveOf            *game.Layout
	reserve, reserveRing int
}

// Appeal answers a provisional hit (policy alc): the victim's client
// confirms it, or denies it because SBC detection on its current pose
// found the hit behind cover, sending that pose for the server to check.
type Appeal struct {
	ID   uint32 // the HitEvent's Appeal id
	Deny bool
	// State is the victim's current predicted state (position, view
	// angles, flags: what SBC detection needs).
	State game.PlayerState
}

// Event kinds of lagkit's game events. Receivers skip unknown kinds.
const (
	EventHit     uint16 = 1 // HitEvent, to the victim
	EventConfirm uint16 = 2 // ConfirmEvent, to the shooter
	EventVerdict uint16 = 3 // VerdictEvent, to the victim of an appealed hit
	EventKill    uint16 = 4 // KillEvent, to every client
)

// HitEvent tells a victim that a shot hit it.
type HitEvent struct {
	Shooter  uint8
	ShotTick uint32 // the shooter's command that fired
	Part     game.PartKind
	Damage   int16
	// Local is the impact in the hit part's frame, or with OnBody in
	// the body's, quantised to LocalQuantum, each component within
	// ±MaxLocal, or with OnBody within ±MaxBodyLocal (a vehicle's or a
	// boss's far end).
	Local geom.Vec3
	// ShooterEye is the shooter's eye when it fired, on the
	// game.PosQuantum grid.
	ShooterEye geom.Vec3
	// Appeal is non-zero when the hit is provisional and the victim may
	// answer it with an Appeal of this id before Deadline (server time).
	Appeal   uint32
	Deadline time.Duration
	// OnBody reports a hit on a game's body (a game's shot,
	// server.ShotWorld.Hit, against server.Config.Body or BodyOf):
	// Part is the body's part index and Local the impact in the body's
	// frame (lagcomp.Pose.ToWorld puts it back on a pose), not in one
	// of lagkit's humanoid parts. It codes the part in 20 bits (16 more
	// than a part below 15 alone, 8 more than one above); lagkit's own
	// hits, without it, are coded as they always were.
	OnBody bool
	// Parts is the number of parts of the session's bodies
	// (Shape.Parts; 0: game.NumParts), which Part must be below: not
	// sent, set at both ends before encoding and decoding.
	Parts int
}

// Quantisation of HitEvent.Local: a humanoid part's point lies within
// ±MaxLocal, a game's body's (OnBody) within ±MaxBodyLocal, a body
// 128 m across, on the same grid. A Local within ±MaxLocal costs the
// same 39 bits on either; one beyond it, which only a game's body has,
// costs 67 (see AppendHitEvent).
const (
	LocalQuantum = 1.0 / 1024 // metres
	MaxLocal     = 2.0        // metres
	MaxBodyLocal = 64.0       // metres
)

// Outcome is what became of a hit.
type Outcome uint8

// Hit outcomes, as ConfirmEvent and VerdictEvent carry them.
const (
	OutcomeRegistered    Outcome = iota // damage applied, no appeal
	OutcomeConfirmed                    // appealed; the victim confirmed
	OutcomeDeniedUpheld                 // the victim denied and the server agreed: no damage
	OutcomeDeniedRefuted                // the victim denied, the server disagreed: damage applied
	OutcomeTimeout                      // no answer in time: damage applied
	OutcomeDiscarded                    // the policy discarded it (alc-predict)
	numOutcomes
)

// ConfirmEvent tells a shooter what became of its hit.
type ConfirmEvent struct {
	ShotTick uint32
	Victim   uint8
	Part     game.PartKind
	Damage   int16 // 0 when the hit did no damage
	Outcome  Outcome
	// Parts is as HitEvent's: the session's part count, not sent.
	Parts int
}

// VerdictEvent tells a victim the server's verdict on its appeal.
type VerdictEvent struct {
	Appeal  uint32
	Outcome Outcome
}

// KillEvent tells everyone of a kill.
type KillEvent struct {
	Killer, Victim uint8
}

// Package client is lagkit's client core: clock synchronisation, one user
// command per tick, prediction with reconciliation (predict.go), remote
// players drawn by a chosen Display mode (interpolation, extrapolation,
// opponent prediction or dead reckoning; display*.go), and answers to
// provisional hits (appeal.go). Like the server core it is a
// deterministic state machine with no sockets, goroutines or clocks: the
// driver passes in received datagrams (Step) and the local input each tick
// (Tick), and learns what happened from the Ready each Tick (or Ready)
// hands over: the datagrams to send and the events of the span (ready.go).
// Bots, native clients and the simulation driver all use it, so they see
// exactly what a player would.
package client

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/baseline"
	"github.com/lagkit/lagkit/internal/outbox"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// Config sets up a Client. The zero value of every field but Map selects
// its documented default.
type Config struct {
	// Map is the world, needed to predict movement. Required.
	Map *world.Map
	// Movement must equal the server's movement rules (default
	// game.DefaultParams()).
	Movement *game.Params
	// Step must equal the server's movement and firing rule
	// (server.Config.Step; default game.DefaultStep, movement alone):
	// the client predicts its
	// player's commands with it.
	Step game.StepFunc
	Name string
	// SnapshotRate is the snapshots per second requested (default: the
	// server's tick rate).
	SnapshotRate int
	// InterpDelay is how far behind the estimated server time remote
	// players are drawn (default 100 ms: two snapshot intervals at 20 Hz,
	// six at 64 Hz).
	InterpDelay time.Duration
	// ExtrapolateMax caps extrapolation when the interpolation buffer runs
	// dry; past it a remote player is held still (default 250 ms).
	ExtrapolateMax time.Duration
	// Redundancy is how many previous unacknowledged commands each packet
	// repeats, so a lost packet loses no input (default 3).
	Redundancy int
	// SmoothTime is the time constant over which small prediction
	// corrections are blended out instead of snapped (default 100 ms).
	SmoothTime time.Duration
	// SnapDistance is the correction above which the view snaps (default
	// 1 m).
	SnapDistance float64
	// ConnectRetry is the interval between Connect attempts (default
	// 500 ms).
	ConnectRetry time.Duration
	// Nonce identifies the session to the server, which takes a Connect
	// with another nonce from the same address for a restarted client.
	// A driver with a random source should set it; the default mixes the
	// time Connect is called with the name, which differs between a
	// client and its restart on the same address.
	Nonce uint64
	// Sealer, if set, seals the session (package seal, through a
	// driver's adapter): its public key goes in the Connect, and when the
	// server's Challenge carries one too, every datagram after the
	// handshake is authenticated and encrypted both ways. A driver over
	// native UDP gives one per session; over a transport that
	// authenticates packets itself (WebTransport, WebSocket) and in a
	// simulation, leave it nil. The core holds no cryptography of its
	// own, so a client built without a Sealer (the browser's) links none.
	Sealer Sealer
	// Token is a connect token (package token) for a server that requires
	// one: sent in every Connect, after the address token of the
	// server's Challenge. At most token.MaxSize bytes.
	Token []byte
	// Rejoin asks for the seat and team of a session before, on a server
	// the client lost (wire.Rejoin; zero: none).
	Rejoin wire.Rejoin
	// ShotRays, if set, gives the hitscan rays of a shot the client's
	// own player fired, appended to dst: their directions and how far
	// they reach, for state after (the state Step returned for command
	// cmd, which fired) of player shooter; p is the movement rules. The
	// client traces them from the eye at the command's press against
	// the enemies it draws at the shot's view time, and sends its own
	// verdict (game.Shown) with the command: the server records it
	// beside its own. nil, or no rays (a projectile): the client's
	// verdict is unknown. lagkit's shooter's is weapon.ShotRays.
	ShotRays func(dst []geom.Ray, after *game.PlayerState, cmd *game.UserCmd, shooter int, p *game.Params) ([]geom.Ray, float64)
	// Appeals is how the client answers provisional hits (default
	// AppealHonest).
	Appeals AppealMode
	// Display is how remote players are drawn (default Interpolate; see
	// DisplayNames for the others).
	Display Display
	// Reckoning and ReckoningOrder are the dead reckoning policy and order
	// of DeadReckon (default first-order dead reckoning with its default
	// threshold), and ReckoningTeams the policy for the players of each
	// team, by team number, when set; they must match the server's
	// Replication (Policy, Order and Teams).
	Reckoning      reckoning.Policy
	ReckoningOrder reckoning.Order
	ReckoningTeams []reckoning.Policy
	// Game is the game's own declared state (game.Declare's schema, its
	// Layout), and must be the server's (server.Config.Game; nil for
	// none): the Connect carries its hash, and a server
	// with another refuses. The client's player's state is predicted
	// with Step and corrected from the server's as its position is;
	// other players' and entities' fields sent to all (and team
	// mates' fields sent to the team, game.VisTeam) are drawn from
	// their states, each from the nearer state unless tagged lerp.
	Game *game.Layout
	// Cmd is the game's own part of every command (game.DeclareCmd's
	// CmdLayout), the same as the server's (server.Config.Cmd): Tick
	// takes it from its input's UserCmd.Game, puts it on its grid,
	// predicts with it and sends it. nil is lagkit's own game: the part
	// is zeroed.
	Cmd *game.CmdLayout
	// Shape sizes the wire's fields for the game (wire.Shape: its slot
	// count, its bodies' part count, others' health), the same as the
	// server's (server.Config.Shape): the Connect carries it, and a
	// server with another refuses. A snapshot naming a slot beyond it, or
	// a hit a part beyond it, is malformed.
	Shape wire.Shape
	// FirstEntity is the first slot of the game's entities (its server's
	// MaxClients, or the first slot it puts entities in): the step's
	// view of the match (game.StepCtx.View) holds the newest snapshot's
	// entities from there on. 0 (the default): the step sees none.
	FirstEntity int
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Map == nil {
		return out, errors.New("client: config: map is required")
	}
	if out.Movement == nil {
		p := game.DefaultParams()
		out.Movement = &p
	}
	if err := out.Movement.Validate(); err != nil {
		return out, fmt.Errorf("client: config: movement: %w", err)
	}
	if out.Step == nil {
		out.Step = game.DefaultStep
	}
	if err := out.Shape.Check(); err != nil {
		return out, fmt.Errorf("client: config: %w", err)
	}
	if n := out.Shape.SlotCount(); out.FirstEntity < 0 || out.FirstEntity >= n {
		return out, fmt.Errorf("client: config: first entity slot %d outside 0..%d", out.FirstEntity, n-1)
	}
	if out.SnapshotRate < 0 || out.SnapshotRate > 128 {
		return out, fmt.Errorf("client: config: snapshot rate %d outside 0..128", out.SnapshotRate)
	}
	if out.InterpDelay == 0 {
		out.InterpDelay = 100 * time.Millisecond
	}
	if out.ExtrapolateMax == 0 {
		out.ExtrapolateMax = 250 * time.Millisecond
	}
	if out.Redundancy == 0 {
		out.Redundancy = 3
	}
	if out.Redundancy < 0 || out.Redundancy > wire.MaxCmdsPerPacket-1 {
		return out, fmt.Errorf("client: config: redundancy %d outside 0..%d", out.Redundancy, wire.MaxCmdsPerPacket-1)
	}
	if out.SmoothTime == 0 {
		out.SmoothTime = 100 * time.Millisecond
	}
	if out.SnapDistance == 0 {
		out.SnapDistance = 1
	}
	if out.ConnectRetry == 0 {
		out.ConnectRetry = 500 * time.Millisecond
	}
	if out.Display == nil {
		out.Display = Interpolate
	}
	if out.Appeals > AppealSilent {
		return out, fmt.Errorf("client: config: appeal mode %d unknown", out.Appeals)
	}
	if out.InterpDelay < 0 || out.ExtrapolateMax < 0 || out.SmoothTime < 0 || out.SnapDistance < 0 || out.ConnectRetry < 0 {
		return out, errors.New("client: config: durations and distances must not be negative")
	}
	return out, nil
}

// Phase is where a client is in its session.
type Phase uint8

// Session phases.
const (
	Idle Phase = iota
	Connecting
	Connected
	Closed // rejected or disconnected; see Reason
)

const (
	cmdRing = 256 // pending commands kept for replay (4 s at 64 Hz)
	histLen = 32  // interpolation samples kept per remote player
)

// Client is one player's client state machine.
type Client struct {
	cfg    Config
	phase  Phase
	reason string
	// lastGame is the game part of the newest command taken (Cmd), and
	// cmdErr why the last refused part was refused.
	lastGame game.CmdState
	cmdErr   error

	id       int
	tickRate int
	tickDur  time.Duration
	decay    float64 // per-tick factor on the smoothing offset

	connectAt time.Duration // last Connect sent
	nonce     uint64        // the session nonce
	token     string        // the address token of the server's Challenge
	// seal seals the session once the server's first sealed datagram
	// opened under sealing, the keys derived from its Challenge.
	seal, sealing Sealed
	opened        []byte // sealed datagrams are opened into it
	// serverMap is the map the server's Accept named when it was not
	// this client's.
	serverMap string
	// outq holds the datagrams since the last handover, each keyed by
	// whether it is a command packet.
	outq outbox.Queue[bool]
	// ready holds what happened since the last handover (ready.go);
	// snap is the snapshot being taken.
	ready  readies
	snap   Snapshot
	cmdBuf []byte

	rtt       rtt.Estimator
	games     gameEvents    // the game's own events, both ways
	offset    time.Duration // estimated server time - local time
	hasOffset bool

	nextCmd   uint32
	cmds      [cmdRing]game.UserCmd
	cmdTime   [cmdRing]time.Duration // local time each command was issued
	predicted [cmdRing]game.PlayerState
	fired     bool   // the newest command fired (first prediction only)
	lastAck   uint32 // last command the server reported executed
	input     frameInput

	pred   game.PlayerState
	smooth geom.Vec3
	// ackState is the server's state of the local player after command
	// lastAck, from the newest snapshot, which prediction starts from.
	ackState game.PlayerState
	// chained reports that every command since lastAck was predicted
	// from the state before it (ackState for the first): set by a full
	// replay that kept them all, kept up by Tick.
	chained bool
	// held marks the commands that move nothing: those the paused server
	// discards (issued while paused, or on their way when the pause
	// began) until the resume, when the ones it has not yet executed
	// will run (settings.go).
	held [cmdRing]bool
	// hasSelf is set by the first snapshot, the first authoritative state
	// of the local player: until then there is nothing to predict from
	// (the server has not said where it spawned the player).
	hasSelf bool
	// scored is the first command issued after hasSelf; the commands
	// before it were issued blind, and the distance between their
	// prediction and the server's state is not a prediction error.
	scored uint32

	// baselines holds the received snapshots, eventData by slot the
	// backing store of each one's event data.
	baselines baseline.Ring
	eventData [baseline.Window][]byte
	newest    uint32
	newestAt  time.Duration
	hasNewest bool

	remotes []*remote // by slot, the shape's slots (Config.Shape)
	// present lists, in increasing order, the remote players of the
	// newest snapshot: every remote alive is among them.
	present []int

	nextEvent uint32        // sequence number of the next event not yet seen
	early     []earlyEvent  // by sequence number modulo wire.MaxEventWindow; nil until one arrives early
	hitEv     wire.HitEvent // decode targets, reused
	confirmEv wire.ConfirmEvent
	// lastHit is the newest hit on the local player, which ReportSBC
	// names.
	lastHit    HitReport
	hasLastHit bool
	scoreEv    wire.ScoreboardEvent

	settings    wire.SettingsEvent
	hasSettings bool
	board       Scoreboard
	page        pageInfo // names, placements and server events (page.go)
	flags       []FlagView
	points      []PointView

	stepCtx game.StepCtx // the context of each predicted command (step)
	rays    []geom.Ray   // scratch for the rays of the client's own shots (ownVerdict)
	view    game.MatchView
	stats   Stats

	reported *wire.Report    // the newest report sent (ReportSBC)
	unacked  []pendingReport // reports the server has not answered (reports.go)
	appeals  []pendingAppeal // appeals the server has not settled (appeal.go)
	// sightings are the hits on the local player judged and not yet
	// sent sightingCopies times (sighting.go).
	sightings []pendingSighting
	resent    bool // a report was sent again, at resentAt
	resentAt  time.Duration
}

// Stats are a client's counters.
type Stats struct {
	SnapshotsReceived int
	BytesReceived     int
	Malformed         int
	Stale             int // snapshots older than the newest, ignored
	Corrections       int // reconciliations that moved the present by more than a millimetre
	Shots             int // shots predicted
	Appeals           int // appeals sent
	// AppealsResent counts the copies sent of appeals not yet settled.
	AppealsResent int
	// Sightings counts the hits on the local player whose SBC detection
	// was sent (wire.Sighting), SightingsDropped those whose sighting
	// waited so long behind others that it was dropped unsent.
	Sightings, SightingsDropped int
	Reports                     int // SBC reports sent (ReportSBC)
	// ReportsKept and ReportsRefused count the server's answers to them:
	// kept, or refused as over the report rate; ReportsResent the copies
	// sent of reports not yet answered.
	ReportsKept, ReportsRefused, ReportsResent int
	CommandsSent                               int
	EncodeErrors                               int // command packets that could not be encoded
	// CmdRefused counts commands whose game part (Config.Cmd) had a
	// field outside its declared range: each took the previous
	// command's part instead (Client.CmdError says why).
	CmdRefused int
	// ForeignGoodbyes counts the server's Disconnects that named another
	// session (an earlier one at this address): ignored.
	ForeignGoodbyes int
	// Forged counts datagrams a sealed session dropped: plain ones once
	// it is sealed, and sealed ones that did not open under its key.
	Forged int
}

// FollowReplication has the client draw remote players with the dead
// reckoning a server's threshold replication (server.Replication's
// Policy, Order and Teams) assumes, so that it draws each player where
// the server takes it to be drawn; a nil policy (every state in every
// snapshot) changes nothing.
func (c *Config) FollowReplication(policy reckoning.Policy, order reckoning.Order, teams []reckoning.Policy) {
	if policy == nil {
		return
	}
	c.Display = DeadReckon
	c.Reckoning, c.ReckoningOrder, c.ReckoningTeams = policy, order, teams
}

// New returns a client for cfg. Call Connect to start a session.
func New(cfg Config) (*Client, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cl := &Client{cfg: c, nextCmd: 1, nextEvent: 1, cmdBuf: make([]byte, 0, wire.MaxDatagram), remotes: make([]*remote, c.Shape.SlotCount())}
	cl.ready.cur, cl.ready.out = &cl.ready.bufs[0], &cl.ready.bufs[1]
	cl.ready.cur.Mispredictions, cl.ready.out.Mispredictions = newMisses(c.Game), newMisses(c.Game)
	if c.Cmd != nil {
		c.Cmd.Snap(&cl.lastGame) // the zero part, within its ranges
	}
	for _, o := range c.Map.Objectives {
		switch {
		case o.Kind == world.Flag && (o.Team == 0 || o.Team == 1):
			cl.flags = append(cl.flags, FlagView{Team: o.Team, Home: o.Pos, Pos: o.Pos, Carrier: -1})
		case o.Kind == world.Point:
			cl.points = append(cl.points, PointView{Name: o.Name, Pos: o.Pos, Owner: -1})
		}
	}
	return cl, nil
}

// Phase returns the session phase.
func (c *Client) Phase() Phase { return c.phase }

// Reason returns why the session closed.
func (c *Client) Reason() string { return c.reason }

// closeAs closes the session for reason, telling the driver (Ready's
// Session) what became of it.
func (c *Client) closeAs(ch SessionChange) {
	c.phase, c.reason = Closed, ch.Reason
	c.ready.cur.Session = append(c.ready.cur.Session, ch)
}

// ID returns the client's entity slot once connected.
func (c *Client) ID() int { return c.id }

// TickDuration returns the command interval (the server's tick), zero
// before the server accepted.
func (c *Client) TickDuration() time.Duration { return c.tickDur }

// RTT returns the smoothed round-trip time estimate.
func (c *Client) RTT() time.Duration { return c.rtt.Smoothed() }

// Stats returns the client's counters.
func (c *Client) Stats() Stats { return c.stats }

// Datagram is one datagram to send, with what it carries.
type Datagram struct {
	Data []byte
	// Commands is set for a command packet (wire.Commands), which
	// repeats the commands of the packets before it up to the
	// redundancy: a driver that sends several at once may send only the
	// newest.
	Commands bool
}

// send queues a copy of buf, sealed once the session is.
func (c *Client) send(buf []byte) { c.sendAs(false, buf) }

// sendAs queues a copy of buf as send does, noting whether it is a
// command packet.
func (c *Client) sendAs(cmds bool, buf []byte) {
	if c.seal != nil {
		c.outq.Commit(cmds, c.seal.Seal(c.outq.Tail(), buf))
		return
	}
	c.outq.Add(cmds, buf)
}

// Connect starts a session; the Connect message repeats every ConnectRetry
// until the server answers.
func (c *Client) Connect(now time.Duration) {
	if c.phase != Idle {
		return
	}
	c.phase = Connecting
	c.nonce = c.cfg.Nonce
	if c.nonce == 0 {
		c.nonce = sessionNonce(now, c.cfg.Name)
	}
	c.sendConnect(now)
}

// RandomNonce returns a session nonce (Config.Nonce) from the system's
// random source (getRandomValues under WebAssembly), never 0. Drivers on
// a real network use it: a client restarted on the same address must
// start a new session, so its nonce cannot come from its clock and name.
// The core itself never calls it, to stay deterministic.
func RandomNonce() uint64 {
	var b [8]byte
	for {
		crand.Read(b[:])
		if n := binary.LittleEndian.Uint64(b[:]); n != 0 {
			return n
		}
	}
}

// sessionNonce derives a session nonce from the time and the name
// (FNV-1a over both, finished with SplitMix64's mixer), never 0.
func sessionNonce(now time.Duration, name string) uint64 {
	h := uint64(14695981039346656037) ^ uint64(now)
	for i := range len(name) {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return max(h, 1)
}

func (c *Client) sendConnect(now time.Duration) {
	var key string
	if c.cfg.Sealer != nil {
		key = string(c.cfg.Sealer.PublicKey())
	}
	buf, err := wire.AppendConnect(nil, &wire.Connect{
		Key:          key,
		Version:      wire.Version,
		Nonce:        c.nonce,
		Token:        c.token + string(c.cfg.Token),
		Name:         c.cfg.Name,
		SnapshotRate: uint16(c.cfg.SnapshotRate),
		InterpDelay:  c.cfg.InterpDelay,
		Rejoin:       c.cfg.Rejoin,
		Game:         c.cfg.Game.Hash(),
		Rules:        c.cfg.Movement.Hash(),
		Cmd:          c.cfg.Cmd.Hash(),
		Shape:        c.cfg.Shape,
	})
	if err != nil {
		c.closeAs(SessionChange{Kind: SessionRefused, Reason: err.Error()})
		return
	}
	c.connectAt = now
	c.send(buf)
}

// Disconnect ends the session, telling the server why; the next
// handover holds the Disconnect to send.
func (c *Client) Disconnect(reason string) {
	switch c.phase {
	case Connected:
		if buf, err := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: c.nonce, Reason: reason}); err == nil {
			c.send(buf)
		}
		fallthrough
	case Connecting:
		c.closeAs(SessionChange{Kind: SessionEnded, Reason: reason})
	case Closed:
		// The reason it closed with stands: a server's goodbye, read
		// before the page let go of its link, is what the player is told.
	default:
		c.phase, c.reason = Closed, reason
	}
}

// unseal returns the datagram data holds: data itself in a session that
// is not sealed, else what opens from it. Once the session is sealed, a
// plain datagram, or a sealed one that does not open, is dropped and
// counted (Stats.Forged).
func (c *Client) unseal(data []byte) ([]byte, error) {
	if len(data) == 0 || data[0] != byte(wire.MsgSealed) {
		if c.seal != nil {
			c.stats.Forged++
			return nil, ErrForged
		}
		return data, nil
	}
	s := c.seal
	if s == nil {
		s = c.sealing
	}
	if s == nil {
		c.stats.Forged++
		return nil, ErrForged
	}
	opened, err := s.Open(c.opened[:0], data)
	if err != nil {
		c.stats.Forged++
		return nil, ErrForged
	}
	c.opened = opened
	if c.seal == nil {
		c.seal, c.sealing = s, nil // the server's first sealed datagram
	}
	return opened, nil
}

// Sealer is a client's key for sealed sessions (see Config.Sealer).
type Sealer interface {
	// PublicKey is the key the Connect carries.
	PublicKey() []byte
	// Session derives the session of nonce with a server whose
	// Challenge carried serverKey.
	Session(serverKey []byte, nonce uint64) (Sealed, error)
}

// Sealed seals one session's outgoing datagrams and opens its incoming
// ones (package seal's Session).
type Sealed interface {
	// Seal appends the sealed form of p to dst.
	Seal(dst, p []byte) []byte
	// Open appends what b seals to dst, or fails for a datagram that is
	// not the session's.
	Open(dst, b []byte) ([]byte, error)
}

// ErrForged is returned by Step for a datagram a sealed session drops.
var ErrForged = errors.New("client: datagram does not open under the session's key")

// ServerMap returns the map the server plays when its Accept named
// another than Config.Map, which closed the session; "" otherwise.
func (c *Client) ServerMap() string { return c.serverMap }

// Sealed reports whether the session's datagrams are sealed.
func (c *Client) Sealed() bool { return c.seal != nil }

// ServerTime returns the client's estimate of the server time it is
// receiving now: the server's clock seen through the one-way delay, which
// is the time of the newest snapshots as they arrive.
func (c *Client) ServerTime(now time.Duration) time.Duration { return now + c.offset }

// Step processes one received datagram. What it did is in the next
// handover (Tick or Ready).
func (c *Client) Step(now time.Duration, data []byte) error {
	c.stepped()
	data, err := c.unseal(data)
	if err != nil {
		return err
	}
	typ, err := wire.PeekType(data)
	if err != nil {
		c.stats.Malformed++
		return err
	}
	switch typ {
	case wire.MsgAccept:
		var m wire.Accept
		if err := wire.DecodeAccept(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		if c.phase != Connecting {
			return nil // a repeated Accept
		}
		if m.TickRate < game.MinTickRate || m.TickRate > game.MaxTickRate || int(m.ClientID) >= wire.MaxEntities {
			c.stats.Malformed++
			return fmt.Errorf("client: accept: tick rate %d or client id %d out of range", m.TickRate, m.ClientID)
		}
		if m.Map != c.cfg.Map.Name {
			// Prediction against another map would be corrected every
			// tick: the session ends, and ServerMap says which map the
			// server plays, for a page to load it and start again.
			c.serverMap = m.Map
			c.closeAs(SessionChange{Kind: SessionRefused, ServerMap: m.Map,
				Reason: fmt.Sprintf("the server plays map %q, this client has %q", m.Map, c.cfg.Map.Name)})
			return nil
		}
		c.phase = Connected
		c.id = int(m.ClientID)
		c.tickRate = int(m.TickRate)
		c.tickDur = game.TickDuration(c.tickRate)
		c.decay = max(0, 1-float64(c.tickDur)/float64(c.cfg.SmoothTime))
		c.rtt.Add(now - c.connectAt)
		c.offset = time.Duration(m.Tick)*c.tickDur - now
		c.hasOffset = true
		c.ready.cur.Session = append(c.ready.cur.Session, SessionChange{Kind: SessionConnected, ID: c.id})
		return nil
	case wire.MsgChallenge:
		var m wire.Challenge
		if err := wire.DecodeChallenge(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		if c.phase == Connecting && m.Nonce == c.nonce && m.Token != c.token {
			c.token = m.Token // prove we receive here: connect again with it
			if m.Key != "" && c.cfg.Sealer != nil {
				// The server seals: its Accept will come sealed under the
				// keys of this exchange.
				var err error
				if c.sealing, err = c.cfg.Sealer.Session([]byte(m.Key), c.nonce); err != nil {
					c.closeAs(SessionChange{Kind: SessionRefused, Reason: "server's session key: " + err.Error()})
					return nil
				}
			}
			c.sendConnect(now)
		}
		return nil
	case wire.MsgReject:
		var m wire.Reject
		if err := wire.DecodeReject(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		if c.phase == Connecting {
			c.closeAs(SessionChange{Kind: SessionRefused, Reason: "rejected: " + m.Reason})
		}
		return nil
	case wire.MsgDisconnect:
		var m wire.Disconnect
		if err := wire.DecodeDisconnect(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		if m.Nonce != c.nonce {
			c.stats.ForeignGoodbyes++ // for an earlier session at this address
			return nil
		}
		if c.phase != Closed {
			c.closeAs(SessionChange{Kind: SessionEnded, Reason: "disconnected by server: " + m.Reason, ByServer: true, Code: m.Code})
		}
		return nil
	case wire.MsgSnapshot:
		if c.phase != Connected {
			return nil
		}
		return c.snapshot(now, data)
	case wire.MsgGameEventAck:
		return c.gameEventAck(data)
	default:
		c.stats.Malformed++
		return fmt.Errorf("client: unexpected message type %d from the server", typ)
	}
}

func (c *Client) baseline(tick uint32) *wire.Snapshot { return c.baselines.Get(tick) }

func (c *Client) snapshot(now time.Duration, data []byte) error {
	tick, err := wire.SnapshotTick(data)
	if err != nil {
		c.stats.Malformed++
		return err
	}
	if c.hasNewest && tick <= c.newest {
		c.stats.Stale++
		return nil
	}
	// Decoded in place: the slot is where it is kept, and copying a
	// snapshot (every entity slot) costs as much as decoding it.
	i, slot := c.baselines.Take(tick)
	slot.SetSlots(c.cfg.Shape.Slots)
	slot.SetGame(c.cfg.Game)
	slot.HealthToAll = c.cfg.Shape.HealthToAll
	if err := wire.DecodeSnapshot(data, slot, c.baseline); err != nil {
		c.baselines.Drop(i) // half decoded: no baseline
		c.stats.Malformed++
		return err
	}
	c.baselines.Keep(i)
	// A server names no baseline older than one it named before (see
	// package baseline): those are forgotten.
	c.baselines.Forget(slot.Baseline)
	c.stats.SnapshotsReceived++
	c.stats.BytesReceived += len(data)
	c.snap = Snapshot{Tick: tick, First: c.stats.SnapshotsReceived == 1}
	sn := slot
	events, data := slot.Events, c.eventData[i][:0]
	// Event data aliases the datagram, which the driver may reuse: copy it
	// (the decoded events are rewritten in place, each before it is read).
	for i, ev := range events {
		start := len(data)
		data = append(data, ev.Data...)
		events[i].Data = data[start:len(data):len(data)]
	}
	c.eventData[i] = data
	c.newest, c.newestAt, c.hasNewest = sn.Tick, now, true

	serverTime := time.Duration(sn.Tick) * c.tickDur
	if sn.EchoClientTime > 0 {
		c.rtt.Add(now - sn.EchoClientTime - sn.EchoHold)
	}
	// Clock sync: the client's server clock runs at the server time of
	// the snapshots it receives, one one-way delay behind the server's
	// own clock, so remote players drawn InterpDelay behind it are always
	// between received samples, and the view time a command carries is
	// the world its player saw (the server estimates it as its own time
	// minus the round trip and the interpolation delay, as Source does).
	// Smooth with gain 1/16 so jitter does not shake the view time; a
	// large error (a stall, a clock jump) resets it.
	sample := serverTime - now
	if d := sample - c.offset; !c.hasOffset || d > 250*time.Millisecond || d < -250*time.Millisecond {
		c.offset = sample
	} else {
		c.offset += d / 16
	}
	c.hasOffset = true

	if c.cfg.FirstEntity > 0 {
		c.viewEntities(sn)
	}
	c.reconcile(sn)
	for _, id := range c.present {
		if !sn.Has(id) {
			c.remotes[id].alive = false // gone from the world
		}
	}
	c.present = c.present[:0]
	for w, word := range sn.Present {
		for word != 0 {
			id := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if id == c.id {
				continue
			}
			t := serverTime
			if stamp := sn.Entities[id].Stamp; stamp != 0 {
				t = time.Duration(stamp) * c.tickDur
			}
			var gs *game.State
			if sn.EntityGame != nil {
				gs = &sn.EntityGame[id]
			}
			c.addSample(id, t, &sn.Entities[id], gs)
			c.present = append(c.present, id)
		}
	}
	c.events(now, sn)
	c.ready.cur.Snapshots = append(c.ready.cur.Snapshots, c.snap)
	return nil
}

// events delivers the snapshot's events in order of their sequence
// numbers, each once: those seen before are dropped, and those that
// arrive before an event they follow are held (at most
// wire.MaxEventWindow, as many as a server keeps unacknowledged) until it
// comes.
func (c *Client) events(now time.Duration, sn *wire.Snapshot) {
	for _, ev := range sn.Events {
		ahead := ev.Seq - c.nextEvent
		if ahead >= wire.MaxEventWindow {
			continue // seen before, or further ahead than a server may be
		}
		if ahead > 0 {
			if c.early == nil {
				c.early = make([]earlyEvent, wire.MaxEventWindow)
			}
			e := &c.early[ev.Seq%wire.MaxEventWindow]
			e.held, e.kind, e.data = true, ev.Kind, append(e.data[:0], ev.Data...)
			continue
		}
		c.event(now, ev.Seq, ev.Kind, ev.Data)
		c.nextEvent++
		for c.early != nil {
			e := &c.early[c.nextEvent%wire.MaxEventWindow]
			if !e.held {
				break
			}
			e.held = false
			c.event(now, c.nextEvent, e.kind, e.data)
			c.nextEvent++
		}
	}
}

// earlyEvent is an event held until the events before it arrive.
type earlyEvent struct {
	held bool
	kind uint16
	data []byte
}

// event handles event seq, in order.
func (c *Client) event(now time.Duration, seq uint32, kind uint16, data []byte) {
	r := c.ready.cur
	r.keepEvent(&r.Notes, seq, kind, data)
	if wire.IsGameEvent(kind) {
		r.keepEvent(&r.GameEvents, seq, kind, data)
		return
	}
	if c.show(kind, data) || c.pageEvent(kind, data) {
		return
	}
	switch kind {
	case wire.EventHit:
		h := &c.hitEv
		h.Parts = c.cfg.Shape.Parts
		if wire.DecodeHitEvent(data, h) != nil {
			c.stats.Malformed++
			return
		}
		c.hit(now, h)
	case wire.EventSettings:
		var set wire.SettingsEvent
		if wire.DecodeSettingsEvent(data, &set) != nil {
			c.stats.Malformed++
			return
		}
		c.applySettings(&set)
	case wire.EventScoreboard:
		if wire.DecodeScoreboardEvent(data, &c.scoreEv) != nil {
			c.stats.Malformed++
			return
		}
		c.board.merge(&c.scoreEv)
	case wire.EventObjective:
		var o wire.ObjectiveEvent
		if wire.DecodeObjectiveEvent(data, &o) != nil {
			c.stats.Malformed++
			return
		}
		c.objective(&o)
	case wire.EventConfirm:
		e := &c.confirmEv
		e.Parts = c.cfg.Shape.Parts
		if wire.DecodeConfirmEvent(data, e) != nil {
			c.stats.Malformed++
			return
		}
		cr := ConfirmReport{ShotTick: e.ShotTick, Victim: int(e.Victim), Part: e.Part, Damage: e.Damage, Outcome: e.Outcome}
		if e.ShotTick < c.nextCmd && e.ShotTick+cmdRing > c.nextCmd {
			cr.Delay = now - c.cmdTime[e.ShotTick%cmdRing]
		}
		r.Confirms = append(r.Confirms, cr)
	case wire.EventReportAck:
		c.reportAck(data)
	case wire.EventVerdict:
		c.verdict(data)
	}
}

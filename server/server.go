// Package server is lagkit's authoritative game server core. It is a
// deterministic state machine in the manner of etcd raft: the caller feeds
// it received datagrams (Step) and the passage of time (Advance), and
// Advance hands back one Ready that says everything that happened: the
// datagrams to send, sessions started, ended and refused, shots, kills,
// the log, reports and counts. It owns no sockets, goroutines or clocks,
// so the simulation driver and the real-time driver run the same code,
// and a simulated match is reproducible from its seed.
//
// Each tick the server executes every client's queued user commands through
// the shared movement code (package game), records every player's pose in
// the lag compensation history, and sends each client a snapshot delta
// encoded against the last one that client acknowledged.
//
// Commands and the movement-time budget: a client's commands are executed
// in sequence order as they arrive (as Source does), each consuming its
// duration from the client's movement budget. The budget grows with server
// time and is capped at MoveSlack, so a client cannot move further than
// wall time allows plus that allowance, however many commands it sends or
// however long it claims they are. Commands older than the newest received
// (replays, duplicates, redundant copies) are dropped, and so are
// commands whose tick is further ahead than the session can have reached
// (see cmdWindow); commands beyond a full queue (flooding) are dropped.
// Stats.CmdsDropped counts each reason. A command's duration is clamped to the
// budget cap so an absurd duration cannot stall the queue.
package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/baseline"
	"github.com/lagkit/lagkit/internal/outbox"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/wire"
)

// Peer identifies a remote endpoint. The driver chooses the values (an
// index into its address table, a connection id); the server only compares
// them.
type Peer uint64

// Datagram is one packet to send.
type Datagram struct {
	To   Peer
	Data []byte
}

// snapRing is how many ticks of sent snapshots are kept as delta baselines
// per client. A client whose acknowledgement is older gets a full snapshot.
const snapRing = baseline.Window

// Server is the authoritative game server state machine.
type Server struct {
	cfg      Config
	tickDur  time.Duration
	stepCtx  game.StepCtx     // the context of each command run (act)
	armState game.PlayerState // the shooter's state a resolver names the weapon of (firedShot)
	// view is the steps' view of the match as the tick began (view.go),
	// stepView the one the commands run now see: view, or under a time
	// warp the re-run tick's.
	view       game.MatchView
	viewDirty  bool
	stepView   *game.MatchView
	matchState game.State
	viewIDs    []int // scratch: the entity slots in order
	tick       uint32
	rng        *rand.Rand

	clients []*client // by slot; nil when free
	byPeer  map[Peer]int
	// seenTokens maps the ids of admitted connect tokens to their expiry
	// (server time), at most Config.TokenWindow of them.
	seenTokens map[uint64]time.Duration
	history    *lagcomp.History
	tracer     lagcomp.Tracer
	// humans reports that the players are lagkit's humanoids, traced by
	// tracer: the game gives them no body (Config.Body, BodyOf).
	humans bool
	policy lagcomp.Policy
	// adjust are the world adjustments at hit registration (Config.Adjust),
	// targets the scratch of their queries' targets (rules.go).
	adjust   []Adjustment
	targets  []lagcomp.Target
	hitQuery HitQuery

	shots          []pendingShot // fired this tick, resolved after poses are recorded
	shotWorld      ShotWorld     // the world each is resolved in, rewritten for each (resolve.go)
	found          lagcomp.Found // a hit the policy judges, rewritten for each
	absorber       Absorber      // Config.Shots, if it takes damage elsewhere than health
	projectiles    []projectile  // in flight, in launch order
	nextProjectile uint32
	appeals        [maxAppeals]appealState
	nextAppeal     uint32
	activeAppeals  int
	appealScratch  wire.Appeal

	rules   Rules
	referee Referee     // the rules' hand on the match, its players reused each tick
	enemies []geom.Vec3 // scratch for spawn choice

	entities   []wire.EntityState // by slot: this tick's replicated states (see stampEntities)
	outq       outbox.Queue[Peer] // datagrams since the last handover (Ready)
	cmdScratch wire.Commands      // decode target, reused so steady state does not allocate

	hash    hash.Hash
	hashBuf []byte
	boards  [][]byte // scoreboard buffers for reuse (boards.go)
	spawnN  [2]int

	sched      scheduler
	recorder   *warpRecorder // nil: nothing recorded (no time warp)
	delay      *delay.Delayer
	delayView  []delay.Player      // scratch for the delay's view of the players
	areEnemies func(i, j int) bool // enemySlots, bound once so that passing it does not allocate
	warp       *timeWarp           // nil: time warp off

	stats Stats
	// notes, when set, is told of the reliable events (SetEventNotes).
	notes func(*EventNote)
	// kept holds each identity's statistics between its sessions (with
	// Config.Seat); pause the pause state (see Pause).
	kept  map[string]kept
	pause pauseState
	// overLimit is set when a client is disconnected for going over a
	// limit, for Step to report.
	overLimit bool
	// gate answers Connects before a session exists (see Gate), with
	// the keys of Config; scratch is a buffer its replies are built in,
	// opened one datagrams of sealed sessions are opened into.
	gate           *Gate
	scratch        []byte
	opened         []byte
	connectScratch wire.Connect
	// ready is what happened since the last handover, and what it
	// handed over (ready.go).
	ready ready
	// games holds the game events clients sent (game_events.go).
	games gameInbox
	// objects are the game's entities by slot (nil until the first),
	// objectIDs their slots in the order added; rewind the history of
	// bodies TraceAt rewinds (nil until a body is recorded)
	// (entities.go).
	objects   []entity
	objectIDs []int
	rewind    *lagcomp.Rewinder
	// load is the driver's report of its ticks' timing, emulated each
	// slot's emulated latency (nil: none reported), for the server
	// events (page.go).
	load     serverLoad
	emulated [][2]time.Duration
}

// Stats are server-wide counters.
type Stats struct {
	Malformed int // datagrams that failed to decode
	// GameEventsDeferred counts client game events not taken because the
	// game had not read the ones before (GameEvents); their clients send
	// them again.
	GameEventsDeferred int
	Rejected           int // connects refused
	// Challenged counts connects answered with a Challenge, lacking the
	// address token; Restarts new sessions that replaced an old one at
	// the same address.
	Challenged, Restarts int
	// Rejoins counts sessions that took over the slot of the same
	// identity's older one (see Config.Seat).
	Rejoins int
	// ForeignGoodbyes counts Disconnects from an address with a session
	// that named another session (a goodbye of the client's previous
	// session, delayed past its restart, or a spoofed one): ignored.
	ForeignGoodbyes int
	Connects        int
	Disconnects     int
	// Kicked counts the disconnects the server made, by the code sent
	// (over a limit, timed out, kicked); Disconnects counts every
	// session that ended.
	Kicked [wire.NumDisconnectCodes]int
	// ProjectilesDropped counts projectiles not launched because
	// MaxProjectiles were in flight.
	ProjectilesDropped int
	// CmdsDropped counts received commands not queued, by reason.
	CmdsDropped CmdDrops
	// Tokens counts connects refused for their connect token, by reason
	// (only with Config.ConnectKey).
	Tokens TokenRefusals
	// AppealCopies counts the copies of appeal answers received after
	// the first settled the appeal (a client sends its answer again
	// until the verdict arrives).
	AppealCopies int
	// Sightings counts the victims' judgments of hits (sighting.go).
	Sightings SightCounts
	// Reports counts the SBC reports received, by what became of them.
	Reports ReportCounts
	// Forged counts datagrams from the address of a sealed session that
	// did not open under its key (spoofed, replayed or corrupted): each
	// dropped before it touched the session, charged to none of its
	// limits.
	Forged int
}

// TokenRefusals counts connects refused for their connect token.
type TokenRefusals struct {
	Invalid      int // did not open: missing, tampered, another key
	Expired      int
	WrongMatch   int
	WrongAddress int
	Replayed     int // token id already admitted
	WindowFull   int // the replay window held only unexpired ids
}

// CmdDrops counts dropped user commands by reason.
type CmdDrops struct {
	// Stale commands are no newer than the newest received: the
	// redundant copies every packet carries, duplicates and replays.
	Stale int
	// OutOfWindow commands claim a tick further ahead than the session
	// can have reached (see cmdWindow).
	OutOfWindow int
	// QueueFull commands arrived while the client's queue was full
	// (flooding).
	QueueFull int
}

// client is one connected player.
type client struct {
	peer  Peer
	seal  *seal.Session // nil: the session is not sealed
	nonce uint64        // the session nonce of its Connect
	id    int
	name  string
	ident string // its identity's player, with Config.Seat
	team  int
	state game.PlayerState

	queue       []game.UserCmd // ring of pending commands
	qHead, qN   int
	lastRecv    uint32 // newest command tick received
	joinedAt    time.Duration
	lastExec    uint32 // last command tick executed
	budget      time.Duration
	cmdsLost    int
	cmdsDropped int

	snapEvery   uint32 // send a snapshot every this many ticks
	tracers     int    // tracer events queued since its last snapshot
	tracerBytes int    // what tracers may still take (see TracerShare)
	interpDelay time.Duration

	snaps  baseline.Ring // sent, while they may be acknowledged
	sentAt [snapRing]time.Duration
	sent   [snapRing]bool
	ack    uint32

	echoTime time.Duration // newest Commands.ClientTime received
	echoAt   time.Duration // when it was received

	usage      usage         // charges against Config.Limits
	ackedAt    time.Duration // when it last acknowledged a new snapshot
	lastSnapAt time.Duration // when it was last sent a snapshot
	// cmdAt is when its last command packet arrived.
	cmdAt time.Duration

	rtt       rtt.Estimator
	lastHeard time.Duration

	// Threshold replication: per other player, what this client was last
	// sent and the sender-side copy of its dead reckoning.
	rep         []wire.EntityState
	repSent     []bool
	senders     []reckoning.Sender
	updatesSent int
	// prio accumulates each other player's priority for a place in this
	// client's snapshots (see replicate.go); nil until needed.
	prio   []uint32
	credit int // bytes of Config.Bandwidth this client's snapshots may spend
	// overBudget is set when the last snapshot left a state out.
	overBudget bool

	hold clientHold

	respawnAt, protectedUntil time.Duration
	events                    []queuedEvent
	eventBuf                  []wire.Event            // the next snapshot's events, MaxEvents long
	carried                   [snapRing]carriedEvents // by snapshot slot, the events each carried
	nextEventSeq              uint32
	gameIn                    uint32 // the client's game events taken, numbered from 1
	overflow                  bool
	appealTokens              float64

	shotsFired, hitsLanded, hitsTaken int
	pressShots                        int
	kills, deaths                     int
	refuted, appealsIgnored           int
	reports                           reportState
	// sights are the hits it was told of awaiting its judgment
	// (sighting.go), oldest first.
	sights []sight

	out           []byte
	bytesSent     int
	packetsSent   int
	snapshotBytes int
	snapshots     int

	page pageLink // for its server events (page.go)
}

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     c,
		tickDur: game.TickDuration(c.TickRate),
		rng:     rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)),
		clients: make([]*client, c.MaxClients),
		byPeer:  make(map[Peer]int, c.MaxClients),
		hash:    sha256.New(),
		hashBuf: make([]byte, 0, 64),
	}
	s.ready.cur, s.ready.out = &s.ready.bufs[0], &s.ready.bufs[1]
	if s.gate, err = NewGate(GateConfig{CookieKey: c.CookieKey, ConnectKey: c.ConnectKey, Address: c.Address, SealKey: c.SealKey}); err != nil {
		return nil, fmt.Errorf("server: config: %w", err)
	}
	s.history = lagcomp.NewHistory(s.tickDur, c.MaxUnlag, c.MaxClients)
	s.delay, err = delay.New(c.Delay, delay.Env{Slots: c.MaxClients, Grid: c.Map.Grid, Params: c.Movement, FOVDeg: c.Settings.FOVDeg}, s.tickDur)
	if err != nil {
		return nil, fmt.Errorf("server: config: %w", err)
	}
	s.delayView = make([]delay.Player, c.MaxClients)
	s.areEnemies = s.enemySlots
	s.sched = queued{s}
	if c.TimeWarp > 0 {
		s.warp = newTimeWarp(s, &c)
		s.sched, s.recorder = warpScheduler{s}, &warpRecorder{s}
	}
	if s.policy, err = lagcomp.New(c.Policy); err != nil {
		return nil, fmt.Errorf("server: config: %w", err)
	}
	env := RulesEnv{Map: c.Map, MaxClients: c.MaxClients, TickDuration: s.tickDur}
	s.rules = NoRules{}
	if c.Rules != nil {
		if s.rules, err = c.Rules(env); err != nil {
			return nil, fmt.Errorf("server: config: %w", err)
		}
		if s.rules == nil {
			return nil, errors.New("server: config: Rules made no rules")
		}
	}
	if n := s.rules.Name(); len(n) > 15 || !utf8.ValidString(n) {
		return nil, fmt.Errorf("server: config: rules name %q: at most 15 bytes of UTF-8", n)
	}
	if c.TimeWarp > 0 {
		if err := s.rules.WarpCheck(); err != nil {
			return nil, fmt.Errorf("server: config: time warp: %w", err)
		}
	}
	if c.Adjust != nil {
		if s.adjust, err = c.Adjust(env); err != nil {
			return nil, fmt.Errorf("server: config: %w", err)
		}
	}
	s.referee.s = s
	s.absorber, _ = c.Shots.(Absorber)
	s.stepView = &s.view
	s.tracer = lagcomp.Tracer{History: s.history, Grid: c.Map.Grid, Params: c.Movement, Hittable: s.hittable}
	s.humans = c.Body == nil && c.BodyOf == nil
	s.nextAppeal = 1
	if c.Body != nil || c.BodyOf != nil {
		if err := s.startRewind(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// TickDuration returns the server's tick duration.
func (s *Server) TickDuration() time.Duration { return s.tickDur }

// Tick returns the last simulated tick.
func (s *Server) Tick() uint32 { return s.tick }

// Time returns the server time of the last simulated tick.
func (s *Server) Time() time.Duration { return time.Duration(s.tick) * s.tickDur }

// NextTick returns when Advance next has work to do.
func (s *Server) NextTick() time.Duration { return time.Duration(s.tick+1) * s.tickDur }

// History returns the pose history for lag compensation queries.
func (s *Server) History() *lagcomp.History { return s.history }

// Stats returns server-wide counters.
func (s *Server) Stats() Stats { return s.stats }

// SessionChange is a session started or ended, or a Connect refused, as
// the server core decided it: the driver notes a seat taken, or closes
// the peer's connection once the datagrams to it have left. A session
// that ends without a word (its client restarted at its address, or its
// connection is gone) closes nothing.
type SessionChange struct {
	Peer Peer
	// Opened: a session started (its Accept is in the outbox) in Seat.
	// Else a session ended, or a Connect was refused (Seat -1).
	Opened bool
	Seat   int
	// Reason is why it ended, as a log says it: the reason the server
	// sent, the client's own as "client: ..." (ByClient), or
	// "rejected: ..." for a Connect refused.
	Reason   string
	Code     wire.DisconnectCode
	ByClient bool
}

// Counts are what the server refused or dropped over a span of its
// work: Stats' counters of those, for the span alone.
type Counts struct {
	Malformed int // datagrams that failed to decode
	// Tokens counts the connects refused for their connect token.
	Tokens int
	// Kicked counts the disconnects the server made, by code.
	Kicked [wire.NumDisconnectCodes]int
}

// Step processes one received datagram. An error describes a datagram that
// was malformed or not acceptable; the server state is unharmed by it. A
// datagram from a client counts against its Limits (its bytes, and a
// malformed one as such); one that takes it over a limit disconnects it,
// and Step returns an error wrapping ErrOverLimit.
func (s *Server) Step(now time.Duration, from Peer, data []byte) error {
	id, ok := s.byPeer[from]
	if !ok {
		return s.dispatch(now, from, data)
	}
	c := s.clients[id]
	if c.seal != nil {
		// A Connect is the handshake, which runs in the clear (a client
		// restarted at this address starts a new session with one, which
		// only one that receives here can prove); everything else of a
		// sealed session must open under its key. A Connect that is not a
		// well-formed one of this version is no client's restart either.
		if len(data) > 0 && data[0] == byte(wire.MsgConnect) {
			if m := &s.connectScratch; wire.DecodeConnect(data, m) != nil || m.Version != wire.Version {
				s.stats.Forged++
				return fmt.Errorf("client %d: %w", id, ErrForged)
			}
		} else {
			opened, err := c.seal.Open(s.opened[:0], data)
			if err != nil {
				s.stats.Forged++
				return fmt.Errorf("client %d: %w", id, ErrForged)
			}
			s.opened, data = opened, opened
		}
	}
	if !s.charge(now, c, limitBytes, len(data)) {
		return fmt.Errorf("client %d: %w", id, ErrOverLimit)
	}
	malformed := s.stats.Malformed
	s.overLimit = false
	err := s.dispatch(now, from, data)
	if s.stats.Malformed > malformed && s.clients[id] == c {
		s.charge(now, c, limitMalformed, 1)
	}
	if s.overLimit {
		return fmt.Errorf("client %d: %w", id, ErrOverLimit)
	}
	return err
}

// dispatch decodes and handles one received datagram.
func (s *Server) dispatch(now time.Duration, from Peer, data []byte) error {
	if len(data) > wire.MaxDatagram {
		return s.malformed(fmt.Errorf("server: datagram of %d bytes exceeds %d", len(data), wire.MaxDatagram))
	}
	typ, err := wire.PeekType(data)
	if err != nil {
		return s.malformed(err)
	}
	switch typ {
	case wire.MsgConnect:
		var m wire.Connect
		if err := wire.DecodeConnect(data, &m); err != nil {
			return s.malformed(err)
		}
		s.connect(now, from, &m, len(data))
		return nil
	case wire.MsgCommands:
		id, ok := s.byPeer[from]
		if !ok {
			return fmt.Errorf("server: commands: %w", ErrNoSession)
		}
		m := &s.cmdScratch
		m.Game, m.Parts = s.cfg.Cmd, s.cfg.Shape.Parts
		if err := wire.DecodeCommands(data, m); err != nil {
			return s.malformed(err)
		}
		s.commands(now, s.clients[id], m)
		return nil
	case wire.MsgAppeal:
		id, ok := s.byPeer[from]
		if !ok {
			return fmt.Errorf("server: appeal: %w", ErrNoSession)
		}
		m := &s.appealScratch
		if err := wire.DecodeAppeal(data, m); err != nil {
			return s.malformed(err)
		}
		c := s.clients[id]
		c.lastHeard = now
		if s.charge(now, c, limitAppeals, 1) {
			s.appeal(now, c, m)
		}
		return nil
	case wire.MsgReport:
		return s.reportDatagram(now, from, data)
	case wire.MsgGameEvents:
		return s.gameEventsDatagram(now, from, data)
	case wire.MsgSealed:
		// Only a sealed session's own datagrams open (see Step): this
		// one came from an address with no such session, perhaps from
		// a session just ended.
		return fmt.Errorf("server: sealed datagram: %w", ErrNoSession)
	case wire.MsgDisconnect:
		id, ok := s.byPeer[from]
		if !ok {
			return nil
		}
		var m wire.Disconnect
		if err := wire.DecodeDisconnect(data, &m); err != nil {
			return s.malformed(err)
		}
		if m.Nonce != s.clients[id].nonce {
			s.stats.ForeignGoodbyes++ // an earlier session's, or spoofed
			return nil
		}
		s.drop(id, wire.DisconnectUnspecified, "")
		s.ready.cur.Sessions = append(s.ready.cur.Sessions, SessionChange{Peer: from, Seat: id, Reason: "client: " + m.Reason, ByClient: true})
		return nil
	default:
		return s.malformed(fmt.Errorf("server: unexpected message type %d from a client", typ))
	}
}

// spawn places player c at a spawn of its team (any spawn in
// free-for-all) away from living enemies, with full health, the weapon it
// last held, loaded, and spawn protection, marking the move as a teleport
// so observers do not interpolate across it. The game's state and flags
// (game.GameFlags) stay as they were: Config.Spawn hands out what a
// spawn gives.
func (s *Server) spawn(c *client, teleport uint8, now time.Duration) {
	spawns := s.cfg.Map.Spawns
	if s.rules.Teams() {
		spawns = s.cfg.Map.SpawnsFor(c.team)
	}
	s.enemies = s.enemies[:0]
	for _, o := range s.clients {
		if o != nil && o != c && !o.state.Has(game.FlagDead) && s.rules.Enemies(c.id, c.team, o.id, o.team) {
			s.enemies = append(s.enemies, o.state.Pos)
		}
	}
	st := game.PlayerState{
		Flags:    game.FlagOnGround | game.FlagProtected | c.state.Flags&game.GameFlags,
		Teleport: teleport + 1,
	}
	if sp, ok := s.rules.Spawn(c.id, c.team, spawns, s.enemies, s.rng); ok {
		st.Pos = game.SnapPos(sp.Pos)
		st.Yaw = game.YawUnits(sp.Yaw)
	}
	st.Game = c.state.Game
	st.Health = s.maxHealth(c.id, &st)
	s.respawned(c, &st)
	c.state = st
	c.protectedUntil = now + s.cfg.SpawnProtection
	s.tellPlace(c)
}

// queue adds a datagram to the outbox, copied: the buffer it was built in
// may be reused at once.
// A datagram to the peer of a sealed session is sealed under its key;
// handshake replies that must reach a client starting a new session go
// through queuePlain.
func (s *Server) queue(to Peer, buf []byte) {
	if id, ok := s.byPeer[to]; ok {
		if c := s.clients[id]; c.seal != nil {
			s.outq.Commit(to, c.seal.Seal(s.outq.Tail(), buf))
			return
		}
	}
	s.outq.Add(to, buf)
}

// queuePlain adds a datagram to the outbox unsealed: a Challenge or a
// Reject, which answer a Connect before any session it starts exists.
func (s *Server) queuePlain(to Peer, buf []byte) { s.outq.Add(to, buf) }

// ErrMalformed is wrapped by the error Step returns for a datagram that
// does not decode (counted in Stats.Malformed, and charged to its
// client's Limits if it has a session).
var ErrMalformed = errors.New("server: malformed datagram")

// ErrNoSession is wrapped by the error Step returns for a well-formed
// datagram that only a session may send, from a peer with none (a
// session that just ended, or none ever).
var ErrNoSession = errors.New("server: not from a session")

// malformed counts a malformed datagram and returns err wrapping
// ErrMalformed.
func (s *Server) malformed(err error) error {
	s.stats.Malformed++
	s.ready.cur.Counts.Malformed++
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// ErrForged is wrapped by the error Step returns for a datagram from the
// address of a sealed session that does not open under its key.
var ErrForged = errors.New("server: datagram does not open under its session's key")

// Kick disconnects a client with a reason sent to it (code
// wire.DisconnectKicked); with no reason, nothing is sent (its
// connection is gone).
func (s *Server) Kick(id int, reason string) {
	if id >= 0 && id < len(s.clients) && s.clients[id] != nil {
		code := wire.DisconnectKicked
		if reason == "" {
			code = wire.DisconnectUnspecified
		}
		s.drop(id, code, reason)
	}
}

// drop ends the session in slot id, sending it a Disconnect with code
// and reason unless reason is empty (it left, or restarted).
func (s *Server) drop(id int, code wire.DisconnectCode, reason string) {
	c := s.clients[id]
	if reason != "" {
		if buf, err := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: c.nonce, Reason: reason, Code: code}); err == nil {
			s.queue(c.peer, buf)
		}
		s.ready.cur.Sessions = append(s.ready.cur.Sessions, SessionChange{Peer: c.peer, Seat: id, Reason: reason, Code: code})
	}
	if code != wire.DisconnectUnspecified {
		s.stats.Kicked[code]++
		s.ready.cur.Counts.Kicked[code]++
	}
	delete(s.byPeer, c.peer)
	for _, o := range s.clients {
		if o != nil && o.repSent != nil {
			o.repSent[id] = false // the slot's next player starts afresh
		}
	}
	s.dropAppeals(id)
	s.dropSights(c)
	s.keep(c)
	s.rules.Died(s.PlayTime(), id, c.state.Pos)
	s.clients[id] = nil
	s.stats.Disconnects++
	s.record(LogEntry{Kind: "disconnect", Player: id, Team: c.team, Pos: c.state.Pos, Code: code, Reason: reason})
}

func (s *Server) commands(now time.Duration, c *client, m *wire.Commands) {
	c.lastHeard = now
	s.sightings(c, m.Sightings)
	gap := now - c.cmdAt
	c.cmdAt = now
	if m.AckTick > c.ack && m.AckTick <= s.tick {
		slot := m.AckTick % snapRing
		if c.sent[slot] && c.snaps.Get(m.AckTick) != nil {
			c.rtt.Add(s.rttSample(now-c.sentAt[slot], m.AckDelay, gap))
			s.ackEvents(c, slot)
			c.acked(now)
		}
		c.ack = m.AckTick
		c.snaps.Forget(c.ack) // never acknowledged again: no baselines
	}
	if m.ClientTime > c.echoTime {
		c.echoTime, c.echoAt = m.ClientTime, now
	}
	newest := s.newestTick(now, c)
	ahead := 0
	for _, cmd := range m.Cmds {
		if cmd.Tick > c.lastRecv && cmd.Tick > newest {
			ahead++
		}
	}
	if !s.charge(now, c, limitOutOfWindow, ahead) {
		s.stats.CmdsDropped.OutOfWindow += ahead
		return
	}
	for _, cmd := range m.Cmds {
		switch {
		case cmd.Tick <= c.lastRecv:
			s.stats.CmdsDropped.Stale++ // a redundant copy, a duplicate or a replay
		case cmd.Tick > newest:
			s.stats.CmdsDropped.OutOfWindow++
		case s.pause.on:
			s.pausedCommand(c, cmd)
		default:
			s.sched.receive(now, c, cmd)
		}
	}
}

// Advance runs every tick due at or before now and hands over what
// happened since the previous handover (see Ready), valid until the next.
func (s *Server) Advance(now time.Duration) *Ready {
	for s.NextTick() <= now {
		s.step(now)
		s.ready.cur.Ticks++
	}
	return s.Ready()
}

func (s *Server) step(now time.Duration) {
	if s.pause.on {
		s.stepPaused(now)
		return
	}
	s.sched.begin()
	s.tick++
	s.beginView()
	tickTime := time.Duration(s.tick) * s.tickDur
	for _, c := range s.clients {
		if c != nil {
			s.refillAppealBudget(c)
			s.sched.execute(c)
		}
	}
	s.history.Begin(s.tick)
	for _, c := range s.clients {
		if c != nil {
			s.history.Set(c.id, c.state)
		}
	}
	s.recordBodies()
	s.sched.resolve(tickTime)
	s.expireAppeals(tickTime)
	s.expireSights(tickTime)
	s.lifecycle(tickTime)
	s.updateMatch(s.PlayTime())
	s.updateDelay(tickTime)
	s.sched.end()
	s.hashStates()
	s.sendSnapshots(now)
}

// sendSnapshots ends each client's tick: the tick's entity states are
// quantised once, a client gone silent too long is dropped, and the
// others get their snapshot when one is due.
func (s *Server) sendSnapshots(now time.Duration) {
	s.stampEntities()
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		if code, reason, ok := s.overdue(now, c); ok {
			s.drop(c.id, code, reason)
			continue
		}
		if s.dueSnapshot(now, c) {
			s.sendSnapshot(now, c)
		}
		s.releaseSnapshots(now, c)
	}
}

// run executes cmd for c through the shared movement code, collecting
// the shot it fires.
func (s *Server) run(c *client, cmd game.UserCmd) {
	before := c.state
	var fired bool
	c.state, fired = s.act(c.id, c.state, cmd)
	if fired {
		s.shots = append(s.shots, s.firedShot(c.id, cmd, c.state, s.shotEye(before, c.state, cmd)))
	}
}

func (s *Server) sendSnapshot(now time.Duration, c *client) {
	slot := s.tick % snapRing
	i, snap := c.snaps.Take(s.tick)
	snap.Tick = s.tick
	snap.Baseline = 0
	snap.LastCmd = c.lastExec
	snap.EchoClientTime = c.echoTime
	snap.EchoHold = 0
	if c.echoTime > 0 {
		snap.EchoHold = now - c.echoAt + s.outputHold(c)
	}
	snap.Self = c.state
	snap.SetSlots(s.cfg.Shape.Slots)
	snap.SetGame(s.cfg.Game)
	snap.HealthToAll = s.cfg.Shape.HealthToAll
	clear(snap.Present)
	for _, o := range s.clients {
		if o == nil || o == c {
			continue
		}
		e := s.entities[o.id]
		if c.senders != nil {
			e = s.replicate(c, o, e)
		}
		snap.Entities[o.id] = e
		snap.SetPresent(o.id, true)
		if snap.EntityGame != nil {
			snap.EntityGame[o.id] = o.state.Game
		}
	}
	if snap.Mates != nil {
		s.markMates(c, snap)
	}
	if len(s.objectIDs) > 0 {
		s.addObjects(snap)
	}
	s.fillEvents(now, c, snap)

	var base *wire.Snapshot
	if c.ack != 0 && s.tick-c.ack < snapRing {
		if b := c.snaps.Get(c.ack); c.sent[c.ack%snapRing] && b != nil {
			base = b
			snap.Baseline = c.ack
		}
	}
	out, err := s.encodeSnapshot(c, snap, base)
	c.snaps.Keep(i)
	if err != nil {
		// Cannot happen for states the server itself produced; dropping
		// the snapshot is the safe answer if it ever does.
		c.sent[slot] = false
		return
	}
	c.out = out
	s.eventsSent(now, c, snap)
	c.sent[slot] = true
	c.sentAt[slot] = now
	c.lastSnapAt = now
	c.bytesSent += len(out)
	c.packetsSent++
	c.snapshotBytes += len(out)
	c.snapshots++
	s.emitSnapshot(c, out)
}

// markMates marks in snap the players whose team fields (game.VisTeam)
// c is sent: those of its team when the rules play teams, none in
// free-for-all. Entities have no team.
func (s *Server) markMates(c *client, snap *wire.Snapshot) {
	clear(snap.Mates)
	if !s.rules.Teams() {
		return
	}
	for _, o := range s.clients {
		if o != nil && o != c && o.team == c.team {
			snap.SetMate(o.id, true)
		}
	}
}

// MaxClients returns the number of player slots.
func (s *Server) MaxClients() int { return len(s.clients) }

// ClientByPeer returns the slot of the client at peer.
func (s *Server) ClientByPeer(p Peer) (int, bool) {
	id, ok := s.byPeer[p]
	return id, ok
}

// Place moves player id to pos facing yaw (radians), alive, with full
// health and no spawn protection, keeping the game's state and flags
// (game.GameFlags) as the game's respawn rule (Config.Spawn) leaves
// them: an administrator's or a scenario's placement. It counts as a teleport, so nobody interpolates
// across it.
func (s *Server) Place(id int, pos geom.Vec3, yaw float64) {
	if id < 0 || id >= len(s.clients) || s.clients[id] == nil {
		return
	}
	c := s.clients[id]
	kept := c.state.Game
	c.state = game.PlayerState{
		Pos:      game.SnapPos(pos),
		Yaw:      game.YawUnits(yaw),
		Flags:    game.FlagOnGround | c.state.Flags&game.GameFlags,
		Teleport: c.state.Teleport + 1,
	}
	c.state.Game = kept
	c.state.Health = s.maxHealth(id, &c.state)
	s.respawned(c, &c.state)
	c.protectedUntil = 0
	s.tellPlace(c)
	s.record(LogEntry{Kind: "place", Player: id, Team: c.team, Pos: c.state.Pos})
}

// Policy returns the lag compensation policy in force.
func (s *Server) Policy() lagcomp.Policy { return s.policy }

// Config returns the server's configuration with defaults filled in.
func (s *Server) Config() Config { return s.cfg }

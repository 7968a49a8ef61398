// Package client is lagkit's client core: clock synchronisation, one user
// command per tick, prediction with reconciliation, and interpolation and
// extrapolation of remote players. Like the server core it is a
// deterministic state machine with no sockets, goroutines or clocks: the
// driver passes in received datagrams (Step) and the local input each tick
// (Tick), and sends what Outbox returns. Bots, native clients and the
// simulation driver all use it, so they see exactly what a player would.
package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/lagcomp"
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
	Name     string
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
	// Weapons must equal the server's loadout (default: the rifle alone,
	// game.Rifle()): firing, ammunition, reloads and weapon switches are
	// predicted with it.
	Weapons []game.Weapon
	// Appeals is how the client answers provisional hits (default
	// AppealHonest).
	Appeals AppealMode
	// Display is how remote players are drawn (default Interpolate).
	Display Display
	// Reckoning and ReckoningOrder are the dead reckoning policy and order
	// of DeadReckon (default first-order dead reckoning with its default
	// threshold), and ReckoningTeams the policy for the players of each
	// team, by team number, when set; they must match the server's
	// Replication (Policy, Order and Teams).
	Reckoning      reckoning.Policy
	ReckoningOrder reckoning.Order
	ReckoningTeams []reckoning.Policy
}

// Display is how a client draws remote players (SPEC section 4).
type Display uint8

// Display modes. Interpolate draws the past, between received states;
// the others draw the present, predicted from the newest state.
const (
	// Interpolate draws remote players InterpDelay behind the received
	// server time, between the two states that straddle that time, and
	// extrapolates (capped at ExtrapolateMax, then holds) only when the
	// buffer runs dry.
	Interpolate Display = iota
	// Extrapolate draws at the received server time, projecting the
	// newest state along its velocity for at most ExtrapolateMax, then
	// holding.
	Extrapolate
	// OpponentPredict keeps a remote player's last velocity until the
	// next update, then snaps to it (the simple opponent prediction of a
	// top-down study).
	OpponentPredict
	// DeadReckon draws at the received server time with dead (or led)
	// reckoning and projective velocity blending into each new state
	// (Config.Reckoning), the model a server's threshold replication
	// assumes.
	DeadReckon
)

var displayNames = [...]string{"interpolate", "extrapolate", "opponent-predict", "dead-reckon"}

// String returns the mode's name.
func (d Display) String() string {
	if int(d) < len(displayNames) {
		return displayNames[d]
	}
	return fmt.Sprintf("Display(%d)", d)
}

// ParseDisplay returns the display mode called name.
func ParseDisplay(name string) (Display, error) {
	for i, n := range displayNames {
		if n == name {
			return Display(i), nil
		}
	}
	return 0, fmt.Errorf("client: unknown display mode %q (known: %v)", name, displayNames)
}

// AppealMode is how a client answers the server's provisional hits.
type AppealMode uint8

// Appeal modes. Only AppealHonest is a real player's behaviour; the others
// stand in for a lying and a silent client in tests and scenarios.
const (
	// AppealHonest runs SBC detection on the current predicted pose and
	// denies exactly the hits it finds behind cover.
	AppealHonest AppealMode = iota
	// AppealDenyAll denies every provisional hit.
	AppealDenyAll
	// AppealSilent never answers.
	AppealSilent
)

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
	weapons, err := game.Loadout(out.Weapons)
	if err != nil {
		return out, fmt.Errorf("client: config: %w", err)
	}
	out.Weapons = weapons
	if int(out.Display) >= len(displayNames) {
		return out, fmt.Errorf("client: config: display mode %d unknown", out.Display)
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
	cmdRing  = 256 // pending commands kept for replay (4 s at 64 Hz)
	snapRing = 64  // received snapshots kept as delta baselines
	histLen  = 32  // interpolation samples kept per remote player
)

// Client is one player's client state machine.
type Client struct {
	cfg    Config
	phase  Phase
	reason string

	id       int
	tickRate int
	tickDur  time.Duration
	decay    float64 // per-tick factor on the smoothing offset

	connectAt time.Duration // last Connect sent
	outbox    [][]byte
	cmdBuf    []byte

	rtt       rtt.Estimator
	offset    time.Duration // estimated server time - local time
	hasOffset bool

	nextCmd   uint32
	cmds      [cmdRing]game.UserCmd
	cmdTime   [cmdRing]time.Duration // local time each command was issued
	predicted [cmdRing]game.PlayerState
	fired     bool   // the newest command fired (first prediction only)
	lastAck   uint32 // last command the server reported executed

	pred   game.PlayerState
	smooth geom.Vec3

	snaps     [snapRing]wire.Snapshot
	eventData [snapRing][]byte // backing store of each snapshot's event data
	scratch   wire.Snapshot
	newest    uint32
	newestAt  time.Duration
	hasNewest bool

	remotes [wire.MaxEntities]*remote

	nextEvent uint32 // sequence number of the next event not yet seen
	hits      []HitReport
	confirms  []ConfirmReport
	hitEv     wire.HitEvent // decode targets, reused
	confirmEv wire.ConfirmEvent
	scoreEv   wire.ScoreboardEvent

	settings    wire.SettingsEvent
	hasSettings bool
	board       Scoreboard
	flags       []FlagView
	points      []PointView

	predErrs []float64
	stats    Stats
}

// HitReport is a hit on the local player as its client saw it arrive.
type HitReport struct {
	Time     time.Duration // local time the hit arrived
	Shooter  int
	ShotTick uint32
	Part     game.PartKind
	Damage   int16
	// SBC reports whether SBC detection, run on the predicted pose when
	// the hit arrived against the shooter's eye, found the hit behind
	// cover.
	SBC bool
	// Appeal is the provisional hit's id (0: not appealable), and Denied
	// whether the client denied it.
	Appeal uint32
	Denied bool
}

// ConfirmReport is the server's word on one of the local player's hits.
type ConfirmReport struct {
	ShotTick uint32
	Victim   int
	Part     game.PartKind
	Damage   int16
	Outcome  wire.Outcome
	// Delay is the time from issuing the command that fired to this
	// report arriving.
	Delay time.Duration
}

// remote is the interpolation history of one remote player.
type remote struct {
	t     [histLen]time.Duration
	s     [histLen]game.PlayerState
	n     int // samples held
	head  int // index of the newest
	alive bool
	dr    reckoning.Model // DeadReckon's view of the player
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
	CommandsSent      int
	EncodeErrors      int // command packets that could not be encoded
}

// New returns a client for cfg. Call Connect to start a session.
func New(cfg Config) (*Client, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cl := &Client{cfg: c, nextCmd: 1, nextEvent: 1, cmdBuf: make([]byte, 0, wire.MaxDatagram)}
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

// ID returns the client's entity slot once connected.
func (c *Client) ID() int { return c.id }

// TickDuration returns the command interval (the server's tick), zero
// before the server accepted.
func (c *Client) TickDuration() time.Duration { return c.tickDur }

// RTT returns the smoothed round-trip time estimate.
func (c *Client) RTT() time.Duration { return c.rtt.Smoothed() }

// Stats returns the client's counters.
func (c *Client) Stats() Stats { return c.stats }

// Outbox returns the datagrams to send and forgets them. They stay valid
// until the next call to Step or Tick.
func (c *Client) Outbox() [][]byte {
	out := c.outbox
	c.outbox = c.outbox[:0]
	return out
}

// Connect starts a session; the Connect message repeats every ConnectRetry
// until the server answers.
func (c *Client) Connect(now time.Duration) {
	if c.phase != Idle {
		return
	}
	c.phase = Connecting
	c.sendConnect(now)
}

func (c *Client) sendConnect(now time.Duration) {
	buf, err := wire.AppendConnect(nil, &wire.Connect{
		Version:      wire.Version,
		Name:         c.cfg.Name,
		SnapshotRate: uint16(c.cfg.SnapshotRate),
		InterpDelay:  c.cfg.InterpDelay,
	})
	if err != nil {
		c.phase, c.reason = Closed, err.Error()
		return
	}
	c.connectAt = now
	c.outbox = append(c.outbox, buf)
}

// Disconnect ends the session, telling the server why.
func (c *Client) Disconnect(reason string) {
	if c.phase == Connected {
		if buf, err := wire.AppendDisconnect(nil, &wire.Disconnect{Reason: reason}); err == nil {
			c.outbox = append(c.outbox, buf)
		}
	}
	c.phase, c.reason = Closed, reason
}

// ServerTime returns the client's estimate of the server time it is
// receiving now: the server's clock seen through the one-way delay, which
// is the time of the newest snapshots as they arrive.
func (c *Client) ServerTime(now time.Duration) time.Duration { return now + c.offset }

// ViewTime returns the server time at which remote players are drawn now:
// the received server time, minus the interpolation delay when
// interpolating.
func (c *Client) ViewTime(now time.Duration) time.Duration {
	if c.cfg.Display != Interpolate {
		return max(0, c.ServerTime(now))
	}
	return max(0, c.ServerTime(now)-c.cfg.InterpDelay)
}

// Step processes one received datagram.
func (c *Client) Step(now time.Duration, data []byte) error {
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
		if m.TickRate < 20 || m.TickRate > 128 || int(m.ClientID) >= wire.MaxEntities {
			c.stats.Malformed++
			return fmt.Errorf("client: accept: tick rate %d or client id %d out of range", m.TickRate, m.ClientID)
		}
		c.phase = Connected
		c.id = int(m.ClientID)
		c.tickRate = int(m.TickRate)
		c.tickDur = game.TickDuration(c.tickRate)
		c.decay = max(0, 1-float64(c.tickDur)/float64(c.cfg.SmoothTime))
		c.rtt.Add(now - c.connectAt)
		c.offset = time.Duration(m.Tick)*c.tickDur - now
		c.hasOffset = true
		return nil
	case wire.MsgReject:
		var m wire.Reject
		if err := wire.DecodeReject(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		if c.phase == Connecting {
			c.phase, c.reason = Closed, "rejected: "+m.Reason
		}
		return nil
	case wire.MsgDisconnect:
		var m wire.Disconnect
		if err := wire.DecodeDisconnect(data, &m); err != nil {
			c.stats.Malformed++
			return err
		}
		c.phase, c.reason = Closed, "disconnected by server: "+m.Reason
		return nil
	case wire.MsgSnapshot:
		if c.phase != Connected {
			return nil
		}
		return c.snapshot(now, data)
	default:
		c.stats.Malformed++
		return fmt.Errorf("client: unexpected message type %d from the server", typ)
	}
}

func (c *Client) baseline(tick uint32) *wire.Snapshot {
	s := &c.snaps[tick%snapRing]
	if s.Tick != tick || tick == 0 {
		return nil
	}
	return s
}

func (c *Client) snapshot(now time.Duration, data []byte) error {
	if err := wire.DecodeSnapshot(data, &c.scratch, c.baseline); err != nil {
		c.stats.Malformed++
		return err
	}
	sn := &c.scratch
	if c.hasNewest && sn.Tick <= c.newest {
		c.stats.Stale++
		return nil
	}
	c.stats.SnapshotsReceived++
	c.stats.BytesReceived += len(data)
	slot := &c.snaps[sn.Tick%snapRing]
	events, data := slot.Events[:0], c.eventData[sn.Tick%snapRing][:0]
	*slot = *sn
	// Event data aliases the datagram, which the driver may reuse: copy it.
	for _, ev := range sn.Events {
		start := len(data)
		data = append(data, ev.Data...)
		events = append(events, wire.Event{Kind: ev.Kind, Data: data[start:len(data):len(data)]})
	}
	slot.Events = events
	c.eventData[sn.Tick%snapRing] = data
	sn = slot
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

	c.reconcile(sn)
	for id := range wire.MaxEntities {
		if id == c.id || !sn.Has(id) {
			if r := c.remotes[id]; r != nil {
				r.alive = false
			}
			continue
		}
		t := serverTime
		if stamp := sn.Entities[id].Stamp; stamp != 0 {
			t = time.Duration(stamp) * c.tickDur
		}
		c.addSample(id, t, sn.Entities[id].State())
	}
	c.events(now, sn)
	return nil
}

// events handles the snapshot's events not seen before: reliable
// delivery repeats each until acknowledged.
func (c *Client) events(now time.Duration, sn *wire.Snapshot) {
	for i, ev := range sn.Events {
		seq := sn.FirstEventSeq + uint32(i)
		if seq < c.nextEvent {
			continue
		}
		c.nextEvent = seq + 1
		switch ev.Kind {
		case wire.EventHit:
			h := &c.hitEv
			if wire.DecodeHitEvent(ev.Data, h) != nil {
				c.stats.Malformed++
				continue
			}
			c.hit(now, h)
		case wire.EventSettings:
			if wire.DecodeSettingsEvent(ev.Data, &c.settings) != nil {
				c.stats.Malformed++
				continue
			}
			c.hasSettings = true
		case wire.EventScoreboard:
			if wire.DecodeScoreboardEvent(ev.Data, &c.scoreEv) != nil {
				c.stats.Malformed++
				continue
			}
			c.board.merge(&c.scoreEv)
		case wire.EventObjective:
			var o wire.ObjectiveEvent
			if wire.DecodeObjectiveEvent(ev.Data, &o) != nil {
				c.stats.Malformed++
				continue
			}
			c.objective(&o)
		case wire.EventConfirm:
			e := &c.confirmEv
			if wire.DecodeConfirmEvent(ev.Data, e) != nil {
				c.stats.Malformed++
				continue
			}
			r := ConfirmReport{ShotTick: e.ShotTick, Victim: int(e.Victim), Part: e.Part, Damage: e.Damage, Outcome: e.Outcome}
			if e.ShotTick < c.nextCmd && e.ShotTick+cmdRing > c.nextCmd {
				r.Delay = now - c.cmdTime[e.ShotTick%cmdRing]
			}
			c.confirms = append(c.confirms, r)
		}
	}
}

// hit runs SBC detection for a hit on the local player, on its current
// predicted pose against the shooter's eye as the server sent it (the
// point the server's own check of a denial uses), and answers a
// provisional hit.
func (c *Client) hit(now time.Duration, h *wire.HitEvent) {
	sbc := lagcomp.BehindCover(c.pred, h.Part, h.Local, h.ShooterEye, c.cfg.Map.Grid, c.cfg.Movement)
	r := HitReport{
		Time: now, Shooter: int(h.Shooter), ShotTick: h.ShotTick, Part: h.Part,
		Damage: h.Damage, SBC: sbc, Appeal: h.Appeal,
	}
	if h.Appeal != 0 && c.cfg.Appeals != AppealSilent {
		r.Denied = sbc || c.cfg.Appeals == AppealDenyAll
		buf, err := wire.AppendAppeal(nil, &wire.Appeal{ID: h.Appeal, Deny: r.Denied, State: c.pred})
		if err == nil {
			c.outbox = append(c.outbox, buf)
			c.stats.Appeals++
		}
	}
	c.hits = append(c.hits, r)
}

// Hits returns the hits on the local player reported since the last call
// and forgets them.
func (c *Client) Hits() []HitReport {
	out := c.hits
	c.hits = c.hits[:0]
	return out
}

// Confirms returns the server's reports on the local player's hits since
// the last call and forgets them.
func (c *Client) Confirms() []ConfirmReport {
	out := c.confirms
	c.confirms = c.confirms[:0]
	return out
}

// Fired reports whether the newest command fired a shot. It is true only
// on the tick the shot is first predicted, so sounds and effects play once
// however often reconciliation replays the command.
func (c *Client) Fired() bool { return c.fired }

// reconcile restarts prediction from the server's state after the last
// command it executed and replays the commands it has not executed yet.
func (c *Client) reconcile(sn *wire.Snapshot) {
	if sn.LastCmd < c.lastAck {
		return // reordered: we already reconciled past it
	}
	if sn.LastCmd > c.lastAck && sn.LastCmd+cmdRing > c.nextCmd && sn.LastCmd < c.nextCmd {
		p := c.predicted[sn.LastCmd%cmdRing]
		c.predErrs = append(c.predErrs, p.Pos.Dist(sn.Self.Pos))
	}
	c.lastAck = sn.LastCmd
	before := c.pred
	st := sn.Self
	first := max(sn.LastCmd+1, c.nextCmd-min(c.nextCmd, cmdRing-1))
	for t := first; t < c.nextCmd; t++ {
		st, _ = game.Step(st, c.cmds[t%cmdRing], c.cfg.Map.Grid, c.cfg.Movement, c.cfg.Weapons)
		c.predicted[t%cmdRing] = st
	}
	c.pred = st
	delta := before.Pos.Sub(st.Pos)
	d := delta.Len()
	if d > 0.001 {
		c.stats.Corrections++
	}
	if d > c.cfg.SnapDistance || before.Teleport != st.Teleport {
		c.smooth = geom.Vec3{}
	} else {
		c.smooth = c.smooth.Add(delta)
	}
}

func (c *Client) addSample(id int, t time.Duration, st game.PlayerState) {
	r := c.remotes[id]
	if r == nil {
		r = &remote{}
		c.remotes[id] = r
	}
	if r.alive && r.n > 0 && r.t[r.head] >= t {
		return // a state already held (threshold replication repeats it)
	}
	jump := !r.alive || (r.n > 0 && r.s[r.head].Teleport != st.Teleport)
	if jump {
		r.n = 0 // appeared or teleported: do not slide from the old place
	}
	if c.cfg.Display == DeadReckon {
		// Blend as the sender's copy of this model does: over the blend
		// time of the threshold at this state, or not at all after a jump.
		u := reckoning.State{T: t, Pos: st.Pos, Vel: st.Vel}
		var blend time.Duration
		if !jump {
			p := c.reckoning(id)
			blend = p.BlendTime(p.Eta(u.Pos, r.dr.BlendedVelocity(t)))
		}
		r.dr.Order = c.cfg.ReckoningOrder
		r.dr.Update(u, blend)
	}
	r.alive = true
	r.head = (r.head + 1) % histLen
	r.t[r.head], r.s[r.head] = t, st
	r.n = min(r.n+1, histLen)
}

// Tick issues this tick's user command from the local input (view angles,
// move intents, buttons and weapon; the client fills in Tick, Duration and
// ViewTime), predicts its effect and queues the command packet. It also
// retries a pending Connect.
func (c *Client) Tick(now time.Duration, input game.UserCmd) {
	switch c.phase {
	case Connecting:
		if now-c.connectAt >= c.cfg.ConnectRetry {
			c.sendConnect(now)
		}
		return
	case Connected:
	default:
		return
	}
	cmd := input
	cmd.Tick = c.nextCmd
	cmd.Duration = c.tickDur
	cmd.ViewTime = c.ViewTime(now)
	c.nextCmd++
	c.cmds[cmd.Tick%cmdRing] = cmd
	c.cmdTime[cmd.Tick%cmdRing] = now
	c.pred, c.fired = game.Step(c.pred, cmd, c.cfg.Map.Grid, c.cfg.Movement, c.cfg.Weapons)
	if c.fired {
		c.stats.Shots++
	}
	c.predicted[cmd.Tick%cmdRing] = c.pred
	c.smooth = c.smooth.Scale(c.decay)

	first := cmd.Tick - min(cmd.Tick-1, uint32(c.cfg.Redundancy))
	first = max(first, c.lastAck+1)
	m := wire.Commands{ClientTime: now}
	if c.hasNewest {
		m.AckTick, m.AckDelay = c.newest, min(now-c.newestAt, wire.MaxDelay)
	}
	var batch [wire.MaxCmdsPerPacket]game.UserCmd
	n := 0
	for t := first; t <= cmd.Tick; t++ {
		batch[n] = c.cmds[t%cmdRing]
		n++
	}
	m.Cmds = batch[:n]
	buf, err := wire.AppendCommands(c.cmdBuf[:0], &m)
	if err != nil {
		// Only a caller's out-of-range input (say, a pitch beyond
		// MaxPitch) gets here; the command is still predicted and kept,
		// and the next packet repeats it.
		c.stats.EncodeErrors++
		return
	}
	c.cmdBuf = buf
	c.outbox = append(c.outbox, buf)
	c.stats.CommandsSent++
}

// Predicted returns the predicted present state of the local player.
func (c *Client) Predicted() game.PlayerState { return c.pred }

// DisplayPos returns where to draw the local player: the predicted
// position plus what remains of recent corrections being smoothed out.
func (c *Client) DisplayPos() geom.Vec3 { return c.pred.Pos.Add(c.smooth) }

// PredictionErrors returns the prediction errors measured since the last
// call and forgets them: for each command the server reported executed, the
// distance between the position predicted for it and the server's. The
// slice is valid until the next call to Step.
func (c *Client) PredictionErrors() []float64 {
	out := c.predErrs
	c.predErrs = c.predErrs[:0]
	return out
}

// Remote returns where remote player id is drawn at server time t:
// interpolated between the two received samples that straddle t,
// extrapolated from the last two for at most ExtrapolateMax when t is past
// the newest, then held. It reports false for players not in the world.
func (c *Client) Remote(id int, t time.Duration) (game.PlayerState, bool) {
	if id < 0 || id >= wire.MaxEntities {
		return game.PlayerState{}, false
	}
	r := c.remotes[id]
	if r == nil || !r.alive || r.n == 0 {
		return game.PlayerState{}, false
	}
	newest := r.head
	if c.cfg.Display == DeadReckon {
		st := r.s[newest]
		st.Pos = r.dr.At(t)
		return st, true
	}
	if t >= r.t[newest] {
		// Past the newest state: project it along its velocity, capped
		// unless predicting opponents, who keep going until the next
		// update.
		st := r.s[newest]
		ahead := t - r.t[newest]
		if c.cfg.Display != OpponentPredict {
			ahead = min(ahead, c.cfg.ExtrapolateMax)
		}
		st.Pos = st.Pos.AddScaled(st.Vel, ahead.Seconds())
		return st, true
	}
	// Walk back to the newest sample at or before t.
	i := newest
	for k := 1; k < r.n; k++ {
		j := (newest + histLen - k) % histLen
		if r.t[j] <= t {
			frac := float64(t-r.t[j]) / float64(r.t[i]-r.t[j])
			return game.Interpolate(r.s[j], r.s[i], frac), true
		}
		i = j
	}
	return r.s[i], true // older than everything held: the oldest sample
}

// reckoning returns the DeadReckon policy for remote player id.
func (c *Client) reckoning(id int) reckoning.Policy {
	if len(c.cfg.ReckoningTeams) > 0 {
		if t := c.TeamOf(id); t >= 0 && t < len(c.cfg.ReckoningTeams) && c.cfg.ReckoningTeams[t] != nil {
			return c.cfg.ReckoningTeams[t]
		}
	}
	if c.cfg.Reckoning == nil {
		return reckoning.Dead{}
	}
	return c.cfg.Reckoning
}

// RemoteIDs appends the slots of remote players currently in the world.
func (c *Client) RemoteIDs(dst []int) []int {
	for id, r := range c.remotes {
		if r != nil && r.alive && r.n > 0 {
			dst = append(dst, id)
		}
	}
	return dst
}

package server

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Delay modes: Delay.Mode.
const (
	DelayNone     = "none"
	DelayRegular  = "delay"
	DelayAdaptive = "adaptive"
)

// Adaptive delay triggers: Delay.Trigger.
const (
	TriggerProximity = "proximity"
	TriggerFOV       = "fov"
)

// DefaultAdaptation is the adaptation time the adaptive time delay study
// found best: 1 s, a moving average of 50 readings (SPEC section 6). The
// match driver and the command line use it when told nothing else; a zero
// Delay.Adaptation means instant adaptation.
const DefaultAdaptation = time.Second

// DelayReading is how often the target delay is read into the moving
// average, as the adaptive time delay study did: N readings make an
// adaptation time of N x 20 ms (SPEC section 6).
const DelayReading = 20 * time.Millisecond

// Delay configures time delay and adaptive time delay (SPEC section 6):
// the server holds lower-latency players' inputs and the snapshots it
// sends them, so that every player's commands take effect, and every
// player sees the world, about as late as the highest-latency player's.
//
// The added delay of client i is one way, and applies twice: to its
// inputs and to its snapshots. Its target is L_max - L_i, where L is a
// client's server-measured smoothed round trip halved. Under DelayRegular
// L_max is the highest L among the connected clients. Under DelayAdaptive
// it is the highest among the enemies i currently interacts with (and i
// itself), so the target is 0 while i interacts with nobody; with two
// players this is the study's rule, and with more it matches, for each
// player, the slowest opponent in play with it. Team mates never count:
// they do not shoot each other, so there is no fairness to restore. The
// applied delay is the moving average of the last N readings of the target
// taken every DelayReading of server time (N = Adaptation / DelayReading,
// rounded; N = 0 applies the target at once), starting from zeros, and is
// never more than Max.
//
// Interaction (DelayAdaptive): with TriggerProximity two living enemies
// interact from when they come within On metres until they part beyond Off
// metres (hysteresis per pair, so a pair at the edge does not flicker);
// with TriggerFOV they interact while either has the other within the
// server-mandated horizontal field of view (Settings.FOVDeg) with a clear
// line of sight from eye to eye through the map (occlusion respected).
//
// Inputs (the three rules of SPEC section 6): when a command arrives the
// server decides its hold. A new input (a button pressed or released, a
// movement key pressed or released, a weapon switch; see newInput) gets
// min(D, time since the previous new input arrived), D being the added
// delay then: after an idle gap of at least D that is the full D (rule 1),
// and a new press within the window of the previous one gets only the time
// since that press (rule 3). A command that continues a held input gets no
// hold (rule 2), but commands always execute in order, so it runs no
// earlier than its predecessor. A command runs at the first tick at or
// after its arrival plus its hold, and only as the movement budget allows,
// as always.
//
// The movement budget is left as it is, so no delay lets a client move
// further than elapsed time plus MoveSlack. While a held command waits,
// the commands that continue it queue behind it and the budget banks up
// to MoveSlack; when it is released, the banked budget runs the queued
// ones in the same tick. So with D <= MoveSlack (the defaults: Max =
// MoveSlack = 100 ms, enough for a 200 ms round-trip gap) a held input is
// back on time at once, as rule 2 asks, and the player's movement catches
// up by D in one tick; a larger D leaves the held stream D - MoveSlack late
// for as long as commands keep coming without a hold. Raise MoveSlack
// with Max to equalise larger gaps.
//
// Snapshots to client i wait in a small queue for its added delay,
// rounded to whole ticks (the server sends only at ticks), and go out in
// the order they were built. The round-trip estimates keep measuring the
// network alone: the server takes a held snapshot's release as its send
// time, and the snapshot's echo hold includes its wait, so the client's
// estimate leaves it out too.
//
// Each client's added delay is recorded per tick (ClientInfo.Delay): how
// long it was above zero and its time-weighted mean, and, for new inputs,
// the mean wait from arrival to execution; a driver that knows the uplink
// latency adds it to get the input-to-effect time.
//
// Delay works with every lag compensation policy. The server's estimate
// of a client's view time subtracts its snapshot hold (see targetTime); a
// shot's command may also have waited up to D for its input hold, so the
// client's own view time lies within about D plus two ticks of the
// estimate and, while that is within ViewTimeTolerance (200 ms by
// default), is trusted: rewinding policies test shots against what the
// client saw.
//
// Delay and time warp are alternatives (time warp runs each command at
// its client's tick): a configuration with both is refused.
type Delay struct {
	// Mode is DelayNone ("" too), DelayRegular or DelayAdaptive.
	Mode string
	// Trigger is what makes players interact under DelayAdaptive:
	// TriggerProximity (default) or TriggerFOV.
	Trigger string
	// On and Off are the proximity radii in metres: a pair starts
	// interacting within On (default 20) and stops beyond Off (default
	// On + 5: 25 with the default On), as in the study.
	On, Off float64
	// Adaptation is the length of the moving average, 0 to 10 s: 0 adapts
	// at once (see DefaultAdaptation).
	Adaptation time.Duration
	// Max caps the added one-way delay, 0 to 1 s (default 100 ms, the
	// default MoveSlack; see above).
	Max time.Duration
}

// withDefaults fills in d's defaults and checks it; timeWarp is the
// server's Config.TimeWarp.
func (d Delay) withDefaults(timeWarp time.Duration) (Delay, error) {
	switch d.Mode {
	case "", DelayNone:
		d.Mode = DelayNone
		return d, nil
	case DelayRegular, DelayAdaptive:
	default:
		return d, fmt.Errorf("server: config: delay mode %q unknown (want none, delay or adaptive)", d.Mode)
	}
	if timeWarp > 0 {
		// Time warp runs each command at the tick its client issued it;
		// delay runs commands later on purpose. They are alternatives.
		return d, fmt.Errorf("server: config: delay mode %q and time warp cannot be combined", d.Mode)
	}
	if d.Trigger == "" {
		d.Trigger = TriggerProximity
	}
	if d.Trigger != TriggerProximity && d.Trigger != TriggerFOV {
		return d, fmt.Errorf("server: config: delay trigger %q unknown (want proximity or fov)", d.Trigger)
	}
	if d.On == 0 {
		d.On = 20
	}
	if d.Off == 0 {
		d.Off = d.On + 5
	}
	if !(d.On > 0 && d.On <= 10000) {
		return d, fmt.Errorf("server: config: delay on radius %v m outside (0, 10000]", d.On)
	}
	if !(d.Off >= d.On && d.Off <= 10000) {
		return d, fmt.Errorf("server: config: delay off radius %v m below the on radius %v m or above 10000", d.Off, d.On)
	}
	if d.Adaptation < 0 || d.Adaptation > 10*time.Second {
		return d, fmt.Errorf("server: config: delay adaptation %v outside 0..10s", d.Adaptation)
	}
	if d.Max == 0 {
		d.Max = 100 * time.Millisecond
	}
	if d.Max < 0 || d.Max > time.Second {
		return d, fmt.Errorf("server: config: delay max %v outside 0..1s", d.Max)
	}
	return d, nil
}

// DelayStats describes the time delay applied to one client.
type DelayStats struct {
	// Added is the one-way delay added now.
	Added time.Duration
	// Observed is the time the client was connected, counted in ticks;
	// Active how much of it the added delay was above zero; Mean the
	// added delay's time-weighted mean over Observed.
	Observed, Active, Mean time.Duration
	// NewInputs counts the new inputs executed, and InputWait is their
	// mean time from arrival at the server to execution (hold, tick
	// alignment and any wait for the movement budget).
	NewInputs int
	InputWait time.Duration
}

// delayer is the server's time delay state.
type delayer struct {
	readings int           // N, the moving average's length
	next     time.Duration // when the next reading is due
	maxTicks int           // Max in ticks, rounded up
	cosHalf  float64       // cosine of half the field of view
	lat      []time.Duration
	// pairs holds, per ordered pair of slots, whether they interact
	// (symmetric).
	pairs []bool
}

func (d *delayer) init(c *Config, tick time.Duration) {
	d.next = DelayReading
	if c.Delay.Mode == DelayNone {
		return
	}
	d.readings = int((c.Delay.Adaptation + DelayReading/2) / DelayReading)
	d.maxTicks = int((c.Delay.Max + tick - 1) / tick)
	d.cosHalf = math.Cos(float64(c.Settings.FOVDeg) / 2 * math.Pi / 180)
	d.lat = make([]time.Duration, c.MaxClients)
	if c.Delay.Mode == DelayAdaptive {
		d.pairs = make([]bool, c.MaxClients*c.MaxClients)
	}
}

// clientDelay is one client's time delay state.
type clientDelay struct {
	// Per queued command, at its index in client.queue: when it arrived,
	// when it may run (0: at once), and whether it is a new input.
	arrive, release []time.Duration
	fresh           []bool
	last            game.UserCmd // the previous command received
	lastNew         time.Duration
	hasNew          bool

	added  time.Duration   // the one-way delay applied now
	window []time.Duration // the last readings of the target, a ring
	at     int
	sum    time.Duration // the readings' sum

	held       []heldSnapshot // ring of snapshots waiting to go out
	head, n    int
	ticks      int
	active     int
	addedSum   time.Duration
	newInputs  int
	inputWaits time.Duration
}

// heldSnapshot is an encoded snapshot waiting for its due tick.
type heldSnapshot struct {
	tick, due uint32
	data      []byte
}

// delayConnect sets up a new client's delay state. Under a delay mode the
// command queue grows by Max of commands, so holding inputs does not eat
// into the flooding allowance.
func (s *Server) delayConnect(c *client) {
	d := &c.delay
	if s.cfg.Delay.Mode != DelayNone {
		c.queue = make([]game.UserCmd, len(c.queue)+s.delay.maxTicks)
		d.window = make([]time.Duration, s.delay.readings)
		d.held = make([]heldSnapshot, s.delay.maxTicks+2)
	}
	d.arrive = make([]time.Duration, len(c.queue))
	d.release = make([]time.Duration, len(c.queue))
	d.fresh = make([]bool, len(c.queue))
}

// newInput reports whether cmd is a new input after prev: a button
// pressed or released, a weapon switch, or a movement key pressed or
// released. Move intents compare by direction (the sign of each axis: the
// keys a keyboard player holds, as in the study's game), so an analogue
// stick's drift or a bot's steering is no new press; aim alone never is.
func newInput(prev, cmd *game.UserCmd) bool {
	sign := func(v int8) int8 { return max(-1, min(1, v)) }
	return cmd.Buttons != prev.Buttons || cmd.Weapon != prev.Weapon ||
		sign(cmd.Forward) != sign(prev.Forward) || sign(cmd.Side) != sign(prev.Side) || sign(cmd.Up) != sign(prev.Up)
}

// delayArrive decides the hold of the command just queued at index i,
// received at now.
func (s *Server) delayArrive(now time.Duration, c *client, i int) {
	d := &c.delay
	cmd := &c.queue[i]
	d.arrive[i], d.release[i] = now, 0
	d.fresh[i] = newInput(&d.last, cmd)
	d.last = *cmd
	if !d.fresh[i] {
		return // rule 2: a held input continues without a hold of its own
	}
	hold := d.added // rule 1: the full delay after an idle gap
	if d.hasNew {
		hold = min(hold, now-d.lastNew) // rule 3: only the time since the previous press
	}
	d.lastNew, d.hasNew = now, true
	if hold > 0 {
		d.release[i] = now + hold
	}
}

// delayHeld reports whether the client's next command must wait.
func (s *Server) delayHeld(c *client) bool {
	return c.delay.release[c.qHead] > s.Time()
}

// delayExecuted records the execution of the client's next command.
func (s *Server) delayExecuted(c *client) {
	d := &c.delay
	if i := c.qHead; d.fresh[i] {
		d.newInputs++
		d.inputWaits += max(0, s.Time()-d.arrive[i])
	}
}

// updateDelay takes the readings due by the tick at now and records every
// client's added delay for the tick.
func (s *Server) updateDelay(now time.Duration) {
	for s.delay.next <= now {
		s.delay.next += DelayReading
		if s.cfg.Delay.Mode != DelayNone {
			s.readDelay()
		}
	}
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		d := &c.delay
		d.ticks++
		d.addedSum += d.added
		if d.added > 0 {
			d.active++
		}
	}
}

// readDelay takes one reading of every client's target delay into its
// moving average.
func (s *Server) readDelay() {
	dl := &s.delay
	var top time.Duration
	for i, c := range s.clients {
		if c != nil {
			dl.lat[i] = c.rtt.Smoothed() / 2
			top = max(top, dl.lat[i])
		}
	}
	adaptive := s.cfg.Delay.Mode == DelayAdaptive
	if adaptive {
		s.updatePairs()
	}
	n := len(s.clients)
	for i, c := range s.clients {
		if c == nil {
			continue
		}
		hi := top
		if adaptive {
			hi = dl.lat[i]
			for j, o := range s.clients {
				if o != nil && dl.pairs[i*n+j] {
					hi = max(hi, dl.lat[j])
				}
			}
		}
		c.delay.read(min(hi-dl.lat[i], s.cfg.Delay.Max))
	}
}

// read adds one reading of the target to the moving average.
func (d *clientDelay) read(target time.Duration) {
	if len(d.window) == 0 {
		d.added = target
		return
	}
	d.sum += target - d.window[d.at]
	d.window[d.at] = target
	d.at = (d.at + 1) % len(d.window)
	d.added = d.sum / time.Duration(len(d.window))
}

// updatePairs decides which pairs of players interact now.
func (s *Server) updatePairs() {
	n := len(s.clients)
	for i, a := range s.clients {
		for j := i + 1; j < n; j++ {
			b := s.clients[j]
			on := a != nil && b != nil && !a.state.Has(game.FlagDead) && !b.state.Has(game.FlagDead) &&
				s.match.Enemies(a.id, a.team, b.id, b.team) && s.interact(a, b, s.delay.pairs[i*n+j])
			s.delay.pairs[i*n+j], s.delay.pairs[j*n+i] = on, on
		}
	}
}

// interact reports whether living enemies a and b interact, given
// whether they did at the last reading.
func (s *Server) interact(a, b *client, was bool) bool {
	if s.cfg.Delay.Trigger == TriggerProximity {
		d := a.state.Pos.Dist(b.state.Pos)
		if was {
			return d <= s.cfg.Delay.Off
		}
		return d <= s.cfg.Delay.On
	}
	ea, eb := game.EyePos(a.state, s.cfg.Movement), game.EyePos(b.state, s.cfg.Movement)
	return (s.facing(a, ea, eb) || s.facing(b, eb, ea)) && !s.cfg.Map.Grid.SegmentBlocked(ea, eb)
}

// facing reports whether the point to lies within the horizontal field of
// view of player c, whose eye is at eye.
func (s *Server) facing(c *client, eye, to geom.Vec3) bool {
	dx, dy := to.X-eye.X, to.Y-eye.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return true
	}
	yaw := game.AngleToRad(int32(c.state.Yaw))
	return (dx*math.Cos(yaw)+dy*math.Sin(yaw))/l >= s.delay.cosHalf
}

// snapshotDue returns the tick the snapshot being built for c may go out
// at: its added delay rounded to whole ticks, and never before the
// snapshots already waiting.
func (s *Server) snapshotDue(c *client) uint32 {
	d := &c.delay
	due := s.tick + uint32((d.added+s.tickDur/2)/s.tickDur)
	if d.n > 0 {
		due = max(due, d.held[(d.head+d.n-1)%len(d.held)].due)
	}
	return due
}

// outputHold returns how long the snapshot being built for c will wait.
func (s *Server) outputHold(c *client) time.Duration {
	return time.Duration(s.snapshotDue(c)-s.tick) * s.tickDur
}

// emitSnapshot sends the snapshot just built for c, or holds it.
func (s *Server) emitSnapshot(c *client, out []byte) {
	d := &c.delay
	due := s.snapshotDue(c)
	if due == s.tick && d.n == 0 {
		s.outbox = append(s.outbox, Datagram{To: c.peer, Data: out})
		return
	}
	if d.n == len(d.held) {
		// Cannot happen: a snapshot waits at most Max, and the ring has
		// room for a snapshot from every tick of that. Dropping it is the
		// safe answer if it ever does.
		c.sent[s.tick%snapRing] = false
		return
	}
	h := &d.held[(d.head+d.n)%len(d.held)]
	h.tick, h.due, h.data = s.tick, due, append(h.data[:0], out...)
	d.n++
}

// releaseSnapshots sends c's held snapshots that are due, taking now as
// their send time for the round-trip estimate.
func (s *Server) releaseSnapshots(now time.Duration, c *client) {
	d := &c.delay
	for d.n > 0 {
		h := &d.held[d.head]
		if h.due > s.tick {
			return
		}
		s.outbox = append(s.outbox, Datagram{To: c.peer, Data: h.data})
		if slot := h.tick % snapRing; c.snaps[slot].Tick == h.tick {
			c.sentAt[slot] = now
		}
		d.head = (d.head + 1) % len(d.held)
		d.n--
	}
}

// delayStats returns c's delay measurements.
func (s *Server) delayStats(c *client) DelayStats {
	d := &c.delay
	st := DelayStats{
		Added:     d.added,
		Observed:  time.Duration(d.ticks) * s.tickDur,
		Active:    time.Duration(d.active) * s.tickDur,
		NewInputs: d.newInputs,
	}
	if d.ticks > 0 {
		st.Mean = d.addedSum / time.Duration(d.ticks)
	}
	if d.newInputs > 0 {
		st.InputWait = d.inputWaits / time.Duration(d.newInputs)
	}
	return st
}

// Package bridge is the browser client's Go side without the browser: it
// runs lagkit's client core (prediction, reconciliation, interpolation,
// appeal answers) for one player and turns its view of the match into the
// plain values a page draws. The WebAssembly entry point (web/wasm) only
// moves these values across syscall/js, so everything here is tested with
// an ordinary go test against the real server core.
package bridge

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/outbox"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// Config is what a page knows when it creates a session: the map the
// server plays (as the map file's JSON, from /lagkit/map/NAME) and how it
// wants remote players drawn.
type Config struct {
	// MapJSON is the map file; required.
	MapJSON []byte
	// Name is the player's name (at most 32 bytes).
	Name string
	// Display names the display mode (default interpolate; see
	// client.DisplayNames).
	Display string
	// InterpDelay is the interpolation delay (0: the client's default).
	InterpDelay time.Duration
	// Token is the connect token for a server that requires one (from
	// the server's token URL; empty: none).
	Token []byte
	// Rejoin asks for the seat and team the page had on a server it lost
	// (wire.Rejoin; zero: none).
	Rejoin wire.Rejoin
}

// maxEvents bounds the events kept between two calls to State, so a page
// that stops asking (a hidden tab) cannot grow them without end.
const maxEvents = 64

// Session is one browser player's client.
type Session struct {
	c *client.Client
	// outq holds the datagrams the client core handed over since the
	// last Outbox, each keyed by whether it is a command packet; out
	// holds the datagrams Outbox returns, pending those it drained,
	// both reused.
	outq    outbox.Queue[bool]
	out     [][]byte
	pending []client.Datagram
	m       *world.Map
	params  game.Params
	weapons []weapon.Weapon

	events []Event

	rate    rateMeter
	graph   graph
	placed  int           // corrections that were placements (spawn, teleport)
	predErr float64       // the latest prediction error, in metres
	ticks   int           // ticks since the last Outbox
	last    time.Duration // the latest Tick's time, when Outbox sends
	ids     []int

	// What the rewind view, tracers and effects draw (show.go), kept
	// until the next State.
	rewinds    []Rewind
	tracers    []Tracer
	explosions []Explosion
	flights    []inFlight
	killer     int // the latest killer of the local player, -1: none

	// place is the newest placement of the local player (spawn,
	// respawn, teleport) and the view it hands the page.
	place Placement
	// teleport is the local player's Teleport count as predicted before
	// the datagram being stepped; aim is the newest tick's command,
	// whose aim the tracer of a shot it fired follows.
	teleport uint8
	aim      game.UserCmd
	// shots are the local player's shots not yet known to have hit.
	shots []ownShot
	// hurt reports that a hit on the local player was heard of: only
	// then can the player report one as shot behind cover.
	hurt bool
}

// Placement is the local player's newest placement by the server (its
// first spawn, a respawn, a teleport): the page turns its view to Yaw and
// Pitch when Count changes, since the player's view is the page's own
// until then. The server tells the way it turned the player (a place
// event): a snapshot cannot, since a command sent before the page heard
// of the placement may have turned the server's player back.
type Placement struct {
	Count int     `json:"count"`
	Yaw   float64 `json:"yaw"`
	Pitch float64 `json:"pitch"`
	// aim is the placement's view as a command carries it.
	aim struct {
		yaw   uint16
		pitch int16
	}
}

// New returns a session for cfg; call Connect to start it.
func New(cfg Config) (*Session, error) {
	m, err := world.Parse("map.json", cfg.MapJSON)
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	// A page's ticks come in bursts when it draws slower than the tick
	// rate (see Outbox), so each packet repeats every unacknowledged
	// command it can hold.
	cc := client.Config{Map: m, Name: cfg.Name, InterpDelay: cfg.InterpDelay, Redundancy: Redundancy, Nonce: client.RandomNonce(), Token: cfg.Token, Rejoin: cfg.Rejoin}
	if cfg.InterpDelay < 0 || cfg.InterpDelay > time.Second {
		return nil, fmt.Errorf("bridge: interpolation delay %v outside 0..1s", cfg.InterpDelay)
	}
	if cfg.Display != "" {
		d, err := client.Displays.Lookup(cfg.Display)
		if err != nil {
			return nil, fmt.Errorf("bridge: %w", err)
		}
		cc.Display = d
	}
	if len(cfg.Name) > 32 {
		return nil, errors.New("bridge: name longer than 32 bytes")
	}
	weapons, err := weapon.Loadout(nil)
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	// lagkit's shooter's weapons, as its server arms them (shooter.Arm;
	// the page links no server, so it sets the client's fields itself).
	cc.Step, cc.Game, cc.ShotRays = weapon.StepFunc(weapons), weapon.Layout, weapon.ShotRays(weapons)
	c, err := client.New(cc)
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	return &Session{c: c, m: m, params: game.DefaultParams(), weapons: weapons, killer: -1}, nil
}

// Client returns the client core the session runs.
func (s *Session) Client() *client.Client { return s.c }

// Connect starts the session at local time now.
func (s *Session) Connect(now time.Duration) {
	s.c.Connect(now)
	s.take(now, s.c.Ready())
}

// Disconnect ends the session, telling the server why.
func (s *Session) Disconnect(reason string) {
	s.c.Disconnect(reason)
	s.take(s.last, s.c.Ready())
}

// Step hands one received datagram to the client core. An Accept that
// names another map than the session's closes the session: prediction
// against the wrong map would be corrected on every tick. State then
// reports the server's map, so the page can load it and start again.
func (s *Session) Step(now time.Duration, data []byte) error {
	s.graph.in.add(now, len(data))
	s.teleport = s.c.Predicted().Teleport
	err := s.c.Step(now, data)
	s.take(now, s.c.Ready())
	return err
}

// take takes what the client core handed over: its datagrams wait for
// Outbox, and what its snapshots brought is kept for the page.
func (s *Session) take(now time.Duration, r *client.Ready) {
	for _, d := range r.Messages {
		s.outq.Add(d.Commands, d.Data)
	}
	if errs := r.PredictionErrors; len(errs) > 0 {
		s.predErr = errs[len(errs)-1]
	}
	if n := len(r.Placements); n > 0 {
		s.placed0(r.Placements[n-1])
	}
	for _, st := range r.Snapshots {
		// The first snapshot places the player at its spawn, and a
		// respawn or teleport moves it on purpose: the client core
		// counts both as corrections, but neither is a misprediction.
		if st.First || s.c.Predicted().Teleport != s.teleport {
			s.placed += st.Corrections
		}
		s.rate.add(now, 1)
		s.graph.snapshot(now, st.Tick, s.c.RTT())
	}
	s.collect(r)
	s.collectShown(r)
	for _, sh := range r.Shots {
		s.tickShown(sh)
	}
	if len(r.Snapshots) > 0 {
		s.misses(now)
	}
}

// placed0 notes the newest placement of the local player the server
// told of (its place events: the spawn, each respawn and teleport).
func (s *Session) placed0(pl wire.PlaceEvent) {
	s.place.Count++
	s.place.Yaw, s.place.Pitch = game.AngleToRad(int32(pl.Yaw)), game.AngleToRad(int32(pl.Pitch))
	s.place.aim.yaw, s.place.aim.pitch = pl.Yaw, pl.Pitch
}

// cmd returns the command for in: aimed the way the newest placement
// faces while in follows placements and has not turned to it yet. The
// page turns its view when it draws the frame that tells of a
// placement, but the client core ticks in its Web Worker with the
// input the page sent last: without this, every command between the
// place event and the page's next input aimed where the page looked
// before, and turned the server's player there (a page seated among 17
// bots faced yaw 0, its spawn's back wall, for its first frames).
func (s *Session) cmd(in Input) game.UserCmd {
	cmd := in.Cmd()
	if in.Follows && in.Placed < s.place.Count {
		cmd.Yaw, cmd.Pitch = s.place.aim.yaw, s.place.aim.pitch
	}
	return cmd
}

// Tick issues this tick's command from in, at local time now.
func (s *Session) Tick(now time.Duration, in Input) {
	s.aim = s.cmd(in)
	s.take(now, s.c.Tick(now, s.aim))
	s.ticks++
	s.last = now
}

// Frame reports the input at a display frame drawn at now, between ticks
// (client.Client.Frame): the page calls it every frame, so that a fire
// press carries its own instant and aim to the server (sub-tick input).
func (s *Session) Frame(now time.Duration, in Input) {
	cmd := s.cmd(in)
	s.c.Frame(now, cmd.Yaw, cmd.Pitch, in.Fire)
}

// TickDuration is the server's tick (0 until accepted): the page calls
// Tick once per tick.
func (s *Session) TickDuration() time.Duration { return s.c.TickDuration() }

// Redundancy is how many earlier unacknowledged commands each command
// packet repeats: as many as a packet holds.
const Redundancy = wire.MaxCmdsPerPacket - 1

// Outbox returns the datagrams to send. When several ticks ran since the
// last call (a page catching up after a slow frame), their command
// packets are coalesced into the newest one, which repeats every command
// of the burst: a burst of datagrams on one socket is what a bounded
// queue on the way drops, and a dropped run longer than the redundancy
// loses commands, which the server then never executes.
func (s *Session) Outbox() [][]byte {
	out := s.outbox()
	for _, b := range out {
		s.graph.out.add(s.last, len(b))
	}
	return out
}

func (s *Session) outbox() [][]byte {
	s.pending = s.pending[:0]
	s.outq.Drain(s.collectOut)
	out := s.pending
	coalesce := s.ticks <= Redundancy+1
	s.ticks = 0
	last := -1
	for i, d := range out {
		if d.Commands {
			last = i
		}
	}
	keep := s.out[:0]
	for i, d := range out {
		if coalesce && d.Commands && i != last {
			continue
		}
		keep = append(keep, d.Data)
	}
	s.out = keep
	return keep
}

// collectOut appends one drained datagram to the pending ones.
func (s *Session) collectOut(cmds bool, b []byte) {
	s.pending = append(s.pending, client.Datagram{Data: b, Commands: cmds})
}

// Input is the input a page holds: move intents in [-1, 1], view angles in
// radians, buttons, and the weapon slot.
type Input struct {
	// Forward is positive forwards, Side positive to the right, Up
	// positive upwards (swimming and ladders; unused on foot).
	Forward, Side, Up float64
	// Yaw is 0 along +X, rising counter-clockwise seen from above; Pitch
	// is positive up.
	Yaw, Pitch                              float64
	Fire, Jump, Crouch, Reload, Sprint, Alt bool
	// Weapon is the loadout slot, from 0.
	Weapon int
	// Follows says that Yaw and Pitch follow the server's placements,
	// and Placed how many of them (State.Place.Count) they have turned
	// to: while Placed is below the session's count, the command aims
	// the way the newest placement faces (see Session.cmd). Without
	// Follows the input aims on its own.
	Follows bool
	Placed  int
}

// Cmd returns the user command for in, quantised as the wire carries it.
// Out-of-range values are clamped, and a weapon slot outside 0..255 keeps
// the current weapon, as a slot outside the loadout does.
func (in Input) Cmd() game.UserCmd {
	cmd := game.UserCmd{
		Yaw:     game.YawUnits(finite(in.Yaw)),
		Pitch:   game.PitchUnits(finite(in.Pitch)),
		Forward: intent(in.Forward),
		Side:    intent(in.Side),
		Up:      intent(in.Up),
		Weapon:  255,
	}
	if in.Weapon >= 0 && in.Weapon < 255 {
		cmd.Weapon = uint8(in.Weapon)
	}
	for _, b := range []struct {
		on  bool
		btn game.Buttons
	}{{in.Fire, game.BtnFire}, {in.Alt, game.BtnAltFire}, {in.Jump, game.BtnJump}, {in.Crouch, game.BtnCrouch}, {in.Reload, game.BtnReload}, {in.Sprint, game.BtnSprint}} {
		if b.on {
			cmd.Buttons |= b.btn
		}
	}
	return cmd
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func intent(v float64) int8 {
	return int8(math.Round(math.Max(-1, math.Min(1, finite(v))) * 127))
}

// rateMeter sums weighted arrivals (snapshots, bytes) over the last
// second.
type rateMeter struct {
	times [256]time.Duration
	sizes [256]int
	n     int // arrivals recorded, the newest at (n-1)%len
}

func (r *rateMeter) add(now time.Duration, size int) {
	r.times[r.n%len(r.times)] = now
	r.sizes[r.n%len(r.times)] = size
	r.n++
}

// perSecond is the weight of the arrivals within the second before now.
func (r *rateMeter) perSecond(now time.Duration) int {
	k := 0
	for i := 1; i <= min(r.n, len(r.times)); i++ {
		j := (r.n - i) % len(r.times)
		if now-r.times[j] > time.Second {
			break
		}
		k += r.sizes[j]
	}
	return k
}

// Package delay is lagkit's time delay and adaptive time delay: which
// players' inputs and updates are held back, by how much, and for how
// long each command waits ([atd]). Like reckoning it is sans-IO: the
// server reports the players at each tick and asks how long to hold each
// command and snapshot; the package owns no queues, sockets or clocks.
//
// The added delay of player i is one way and applies twice: to its
// inputs and to its snapshots (to its inputs only under InputsOnly, as
// the study did). Its target is L_max - L_i, where L is a
// player's server-measured smoothed round trip halved and L_max what the
// mode chooses to match (see Mode): under "delay" the highest L among
// the connected players, under "adaptive" the highest among the enemies
// i currently interacts with (and i itself), so the target is 0 while i
// interacts with nobody; with two players this is the study's rule, and
// with more it matches, for each player, the slowest opponent in play
// with it ([atd], generalised to more than two players). Team mates never
// count: they do not shoot each other, so there is no fairness to
// restore. The applied delay is the moving average of the last N
// readings of the target taken every Reading of server time
// (N = Adaptation / Reading, rounded; N = 0 applies the target at once),
// starting from zeros, and is never more than Max.
//
// Interaction ("adaptive"): with the proximity trigger two living enemies
// interact from when they come within On metres until they part beyond
// Off metres (hysteresis per pair, so a pair at the edge does not
// flicker); with the fov trigger they interact while either has the other
// within the server-mandated horizontal field of view with a clear line
// of sight from eye to eye through the map (occlusion respected).
//
// Inputs (the study's three input-delay rules, [atd]): when a command
// arrives its hold is decided. A new input (a button pressed or released,
// a movement key pressed or released, a weapon switch; see NewInput) gets
// min(D, time since the previous new input arrived), D being the added
// delay then: after an idle gap of at least D that is the full D (rule
// 1), and a new press within the window of the previous one gets only the
// time since that press (rule 3). A command that continues a held input
// gets no hold (rule 2); the server runs commands in order, so it runs no
// earlier than its predecessor.
package delay

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// DefaultAdaptation is the adaptation time the adaptive time delay study
// found best: 1 s, a moving average of 50 readings ([atd]). A zero
// Config.Adaptation means instant adaptation.
const DefaultAdaptation = time.Second

// Reading is how often the target delay is read into the moving average,
// as the adaptive time delay study did: N readings make an adaptation
// time of N x 20 ms ([atd]).
const Reading = 20 * time.Millisecond

// Config configures time delay. The zero value is no delay.
type Config struct {
	// Mode names the mode (see Modes): "none" ("" too), "delay" or
	// "adaptive".
	Mode string
	// Trigger names what makes players interact under an adaptive mode
	// (see Triggers): "proximity" (default) or "fov".
	Trigger string
	// On and Off are the proximity radii in metres: a pair starts
	// interacting within On (default 20) and stops beyond Off (default
	// On + 5: 25 with the default On), as in the study.
	On, Off float64
	// Adaptation is the length of the moving average, 0 to 10 s: 0 adapts
	// at once (see DefaultAdaptation).
	Adaptation time.Duration
	// Max caps the added one-way delay, 0 to 1 s (default 100 ms, the
	// server's default movement slack, which lets a held input catch up
	// at once).
	Max time.Duration
	// InputsOnly holds the players' inputs only and sends their snapshots
	// at once, as the adaptive time delay study did ([atd], section
	// 3.2.1); by default both are held (see SnapshotHold).
	InputsOnly bool
}

// WithDefaults returns c with its defaults filled in, or an error naming
// what is wrong with it.
func (c Config) WithDefaults() (Config, error) {
	if c.Mode == "" {
		c.Mode = None
	}
	if _, err := Modes.Lookup(c.Mode); err != nil {
		return c, fmt.Errorf("delay: %w", err)
	}
	if c.Mode == None {
		return c, nil
	}
	if c.Trigger == "" {
		c.Trigger = Proximity
	}
	if _, err := Triggers.Lookup(c.Trigger); err != nil {
		return c, fmt.Errorf("delay: %w", err)
	}
	if c.On == 0 {
		c.On = 20
	}
	if c.Off == 0 {
		c.Off = c.On + 5
	}
	if !(c.On > 0 && c.On <= 10000) {
		return c, fmt.Errorf("delay: on radius %v m outside (0, 10000]", c.On)
	}
	if !(c.Off >= c.On && c.Off <= 10000) {
		return c, fmt.Errorf("delay: off radius %v m below the on radius %v m or above 10000", c.Off, c.On)
	}
	if c.Adaptation < 0 || c.Adaptation > 10*time.Second {
		return c, fmt.Errorf("delay: adaptation %v outside 0..10s", c.Adaptation)
	}
	if c.Max == 0 {
		c.Max = 100 * time.Millisecond
	}
	if c.Max < 0 || c.Max > time.Second {
		return c, fmt.Errorf("delay: max %v outside 0..1s", c.Max)
	}
	return c, nil
}

// Env is what the delay knows of the game: the number of player slots,
// the map for lines of sight, the movement rules for eye heights and the
// mandated horizontal field of view.
type Env struct {
	Slots  int
	Grid   *geom.Grid
	Params *game.Params
	FOVDeg int
}

// Player is what a mode sees of one player slot at a reading.
type Player struct {
	// Present reports a player in the slot; the rest is its state.
	Present bool
	// Latency is the player's one-way latency: its server-measured
	// smoothed round trip halved.
	Latency time.Duration
	State   game.PlayerState
}

// Stats describe the delay applied to one player.
type Stats struct {
	// Added is the one-way delay added now.
	Added time.Duration
	// Observed is the time the player was connected, counted in ticks;
	// Active how much of it the added delay was above zero; Mean the
	// added delay's time-weighted mean over Observed.
	Observed, Active, Mean time.Duration
	// NewInputs counts the new inputs executed, and InputWait is their
	// mean time from arrival at the server to execution (hold, tick
	// alignment and any wait for the movement budget).
	NewInputs int
	InputWait time.Duration
	// FirePresses counts the commands that pressed the trigger, and
	// FireHold is the mean hold the input rules gave them on arrival:
	// the added delay a shot's aim and timing suffered.
	FirePresses int
	FireHold    time.Duration
}

// Delayer is the time delay of one server: every slot's moving average,
// input rules and measurements, and the mode deciding the targets.
type Delayer struct {
	cfg      Config
	mode     Mode
	tick     time.Duration
	readings int           // N, the moving average's length
	next     time.Duration // when the next reading is due
	targets  []time.Duration
	slots    []slot
}

// slot is one player's delay state.
type slot struct {
	added  time.Duration   // the one-way delay applied now
	window []time.Duration // the last readings of the target, a ring
	at     int
	sum    time.Duration // the readings' sum
	inputs Inputs

	ticks      int
	active     int
	addedSum   time.Duration
	newInputs  int
	inputWaits time.Duration
	presses    int
	pressHolds time.Duration
}

// New returns the time delay cfg describes for a server with tick
// duration tick; cfg's defaults are filled in.
func New(cfg Config, env Env, tick time.Duration) (*Delayer, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	mk, err := Modes.Lookup(cfg.Mode)
	if err != nil {
		return nil, err
	}
	mode, err := mk(cfg, env)
	if err != nil {
		return nil, err
	}
	d := &Delayer{cfg: cfg, mode: mode, tick: tick, next: Reading, targets: make([]time.Duration, env.Slots), slots: make([]slot, env.Slots)}
	if cfg.Mode != None {
		d.readings = int((cfg.Adaptation + Reading/2) / Reading)
	}
	return d, nil
}

// Config returns the configuration with its defaults filled in.
func (d *Delayer) Config() Config { return d.cfg }

// MaxTicks returns the longest hold in whole ticks, rounded up: what a
// server must have room for to hold a player's commands and snapshots.
func (d *Delayer) MaxTicks() int {
	if d.cfg.Mode == None {
		return 0
	}
	return int((d.cfg.Max + d.tick - 1) / d.tick)
}

// Join starts slot i afresh for a new player: no delay, no readings, no
// measurements.
func (d *Delayer) Join(i int) {
	s := &d.slots[i]
	w := s.window
	*s = slot{}
	if d.readings > 0 {
		if len(w) != d.readings {
			w = make([]time.Duration, d.readings)
		}
		clear(w)
		s.window = w
	}
}

// Added returns the one-way delay added to slot i now.
func (d *Delayer) Added(i int) time.Duration { return d.slots[i].added }

// SnapshotHold returns how long slot i's snapshots are held now: its
// added delay, or 0 under InputsOnly.
func (d *Delayer) SnapshotHold(i int) time.Duration {
	if d.cfg.InputsOnly {
		return 0
	}
	return d.slots[i].added
}

// Tick takes the readings due by the tick at now and records every
// present player's added delay for the tick. enemies reports whether two
// slots' players are enemies.
func (d *Delayer) Tick(now time.Duration, players []Player, enemies func(i, j int) bool) {
	for d.next <= now {
		d.next += Reading
		if d.cfg.Mode != None {
			d.read(players, enemies)
		}
	}
	for i := range players {
		if !players[i].Present {
			continue
		}
		s := &d.slots[i]
		s.ticks++
		s.addedSum += s.added
		if s.added > 0 {
			s.active++
		}
	}
}

// read takes one reading of every player's target into its moving
// average.
func (d *Delayer) read(players []Player, enemies func(i, j int) bool) {
	d.mode.Targets(players, enemies, d.targets)
	for i := range players {
		if players[i].Present {
			d.slots[i].read(min(d.targets[i], d.cfg.Max))
		}
	}
}

// read adds one reading of the target to the moving average.
func (s *slot) read(target time.Duration) {
	if len(s.window) == 0 {
		s.added = target
		return
	}
	s.sum += target - s.window[s.at]
	s.window[s.at] = target
	s.at = (s.at + 1) % len(s.window)
	s.added = s.sum / time.Duration(len(s.window))
}

// Arrive decides the hold of slot i's command cmd, received at now, by
// the input-delay rules: it returns when the command may run (0: at once)
// and whether it is a new input.
func (d *Delayer) Arrive(i int, now time.Duration, cmd *game.UserCmd) (release time.Duration, fresh bool) {
	s := &d.slots[i]
	wasFiring := s.inputs.last.Buttons.Has(game.BtnFire)
	hold, fresh := s.inputs.Arrive(now, s.added, cmd)
	if fresh && !wasFiring && cmd.Buttons.Has(game.BtnFire) {
		s.presses++
		s.pressHolds += hold
	}
	if hold > 0 {
		release = now + hold
	}
	return release, fresh
}

// Executed records that slot i executed a new input wait after its
// arrival.
func (d *Delayer) Executed(i int, wait time.Duration) {
	s := &d.slots[i]
	s.newInputs++
	s.inputWaits += max(0, wait)
}

// Stats returns slot i's measurements.
func (d *Delayer) Stats(i int) Stats {
	s := &d.slots[i]
	st := Stats{
		Added:     s.added,
		Observed:  time.Duration(s.ticks) * d.tick,
		Active:    time.Duration(s.active) * d.tick,
		NewInputs: s.newInputs,
	}
	if s.ticks > 0 {
		st.Mean = s.addedSum / time.Duration(s.ticks)
	}
	if s.newInputs > 0 {
		st.InputWait = s.inputWaits / time.Duration(s.newInputs)
	}
	st.FirePresses = s.presses
	if s.presses > 0 {
		st.FireHold = s.pressHolds / time.Duration(s.presses)
	}
	return st
}

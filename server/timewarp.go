package server

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/wire"
)

// Time warp (SPEC section 7). With Config.TimeWarp set, a command takes
// effect at the tick its client issued it, even when it reaches the
// server later: the server reverts to the state at that tick, inserts the
// command there and re-simulates to the present, so that everything the
// command did (its movement, its hitscan shots, its projectiles and
// whatever they hit) is judged in the world as it was when the player
// acted. The window is the time a command may be late and still be
// inserted in the past.
//
// Effective tick. Each command gets an effective tick E when it arrives:
// the tick it would run in without time warp (the next one), less the
// client's one-way latency in ticks, round(smoothed RTT / 2 / tick),
// measured by the server from acknowledgements. The server estimates E
// itself, so a client cannot claim older times by numbering its commands
// or stamping them. Commands are one tick each (their duration is clamped
// to the tick), executed in order: E is at least the previous command's
// E + 1. The one exception is catching up: when the estimate falls behind
// the previous command's tick (the measured RTT grew, or a burst arrived),
// a command may share that tick with it (at most two a tick), as many
// times as the client has credit; credit is earned by ticks the client
// left without commands and capped at MoveSlack, so, as with the movement
// budget of the ordinary server, no client moves further than elapsed time
// plus MoveSlack allows. A command whose E is still ahead waits for its
// tick. One whose E is the next tick runs as usual. One whose E has
// passed but lies within the window is inserted at E by a warp at the
// start of the next tick: every late command that arrived between two
// ticks shares one warp. One whose E is older than the window is applied
// at the next tick, as without time warp, and counted
// (TimeWarpStats.TooOld): the past it needs is gone, and a command is
// never dropped for being late.
//
// What is kept. A fixed ring of window + 1 ticks (so its memory does not
// depend on what clients send) holds for every tick each slot's state
// after its commands and after the tick, the commands each player
// executed in it, the shots fired and each pellet's ray and outcome, each
// projectile's flight and contact, every hit (victim, part, damage), and
// the projectiles in flight after the tick. States the server set outside
// the simulation (a join or placement between ticks, a respawn) are marked
// as facts, taken as recorded by every re-simulation.
//
// What is re-simulated. Players do not collide with one another, so a
// late command changes its own player's chain of states and reaches the
// others only through shots, projectiles and damage. A re-simulation
// therefore tracks an affected set, starting with the late players from
// their commands' ticks. Affected players are stepped again with their
// recorded commands. Every shot of an affected player, and every
// projectile whose path changed, is traced against every player again.
// A shot or projectile of an unaffected player has the same ray or
// segment as before and every unaffected player the same pose and
// health, so it is tested against the affected players only: its
// recorded first contact stands unless an affected player now lies
// nearer on the ray; only when its recorded victim is affected is it
// traced against everyone. A player whose damage changes (a new hit, a
// hit gone, a kill) joins the affected set from then on. An unaffected
// player's states are copied from the ring.
//
// Cost. A warp n ticks deep over m players re-runs n ticks; each costs
// O(m) to copy states, O(a) movement steps for the a affected players,
// O(a) per shot or projectile of the others, O(m) per shot or projectile
// of the affected players, and O(m) per explosion of a blast weapon. With
// each player firing at most a bounded number of shots a tick and a small
// affected set that is O(n x m) per warp: linear in both, where a
// re-simulation that traced every shot against every player again would
// cost n x m^2, the scaling a JavaScript time warp showed (saturating near
// 45 players). BenchmarkTimeWarp and lagkit experiment timewarp measure it.
//
// Committed facts. Deaths already announced stay: a re-simulation never
// revives a player whose death was processed, which would make a player
// fall, get up and fall again on the screens that were told. A player
// whose death lies within the re-simulated span is settled for that warp:
// its recorded health stands, every recorded shot or contact that
// damaged it keeps its recorded outcome, and no re-judged shot can newly
// hit it (its own late commands are still inserted: its movement and
// shots before it died are re-simulated). Hits and kills a re-simulation
// finds anew are processed at once like any: events, log, kill credit and
// score, with the warped tick (a ShotRecord's Time is its tick's time,
// Warped set; a new death respawns after RespawnDelay from its tick). A
// hit a re-simulation takes away gives its health back and leaves the
// counters (ClientInfo Shots, Hits, HitsTaken) as the re-simulation has
// them; the events already sent about it are not taken back. Positions,
// velocities, health, ammunition, weapon state and projectiles are
// re-simulated.
//
// Time warp and rewind-based hit registration. The two answer the same
// question, which world a shot is judged in, in different ways, so
// exactly one of them decides. Under time warp the policy must be none:
// a shot is tested in the re-simulated world at its own tick, against
// everyone's re-simulated states there, and lagcomp's rewind is not used;
// a rewinding policy would move the victims back a second time. The pose
// history is still kept, and re-recorded for the warped ticks, so that
// it holds the states the server settled on. Time warp compensates the
// client's upstream latency (the command's trip to the server), and
// projectiles with it, which rewinding does not; rewinding (tlc)
// compensates the whole round trip plus the interpolation delay for
// hitscan shots. A client that draws opponents extrapolated to the
// present (client.Extrapolate) makes up much of the rest under time warp.
//
// Objective modes (ctf, dom) are not supported: a flag picked up or a
// point captured would have to be re-simulated too, so Config rejects
// them with time warp.

// MaxTimeWarp bounds Config.TimeWarp.
const MaxTimeWarp = time.Second

// maxWarpCmds is how many commands of one player a tick holds under time
// warp: one, or two while the player catches up.
const maxWarpCmds = 2

// TimeWarpStats count what time warp did.
type TimeWarpStats struct {
	// Late counts commands inserted in the past, Warps the re-simulations
	// they caused, Resimulated the ticks re-run, and MaxDepth the most
	// ticks one warp re-ran.
	Late, Warps, Resimulated, MaxDepth int
	// TooOld counts commands whose effective tick lay beyond the window,
	// applied at the next tick instead.
	TooOld int
	// Rejudged counts pellets and projectile contacts whose outcome a
	// re-simulation changed.
	Rejudged int
}

// checkTimeWarp validates the time warp settings of a config whose other
// fields have their defaults.
func (c *Config) checkTimeWarp() error {
	tw := c.TimeWarp
	switch {
	case tw == 0:
		return nil
	case tw < 0 || tw > MaxTimeWarp:
		return fmt.Errorf("server: config: time warp %v outside 0..%v", tw, MaxTimeWarp)
	case tw > c.MaxUnlag:
		return fmt.Errorf("server: config: time warp %v exceeds max unlag %v: the pose history must cover the window", tw, c.MaxUnlag)
	case tw >= c.RespawnDelay:
		return fmt.Errorf("server: config: time warp %v must be shorter than the respawn delay %v, so no death a re-simulation finds respawns within the window", tw, c.RespawnDelay)
	case c.Mode.Mode != "" && c.Mode.Mode != mode.FFA && c.Mode.Mode != mode.TDM:
		return fmt.Errorf("server: config: time warp supports modes ffa and tdm, not %s: objectives (flags, points) are not re-simulated", c.Mode.Mode)
	}
	p, err := lagcomp.New(c.Policy)
	if err != nil {
		return fmt.Errorf("server: config: %w", err)
	}
	switch tr := p.Traits(); {
	case tr.Rewinds:
		return fmt.Errorf("server: config: time warp needs a lag compensation policy that never rewinds (such as policy none), not %q: a warp judges each shot in the re-simulated world at its own tick, and rewinding would move the victims back a second time", c.Policy.Name)
	case tr.AppealWindow > 0:
		return fmt.Errorf("server: config: time warp needs a lag compensation policy that never appeals, not %q: a re-simulation cannot take back an appeal already answered", c.Policy.Name)
	}
	return nil
}

// warpScheduler runs commands under time warp: the server's scheduler
// when Config.TimeWarp is set.
type warpScheduler struct{ s *Server }

func (w warpScheduler) receive(_ time.Duration, c *client, cmd game.UserCmd) { w.s.warpCommand(c, cmd) }
func (w warpScheduler) begin()                                               { w.s.warpLate() }
func (w warpScheduler) execute(c *client)                                    { w.s.warpExecute(c) }
func (w warpScheduler) resolve(now time.Duration)                            { w.s.warpResolve(now) }
func (w warpScheduler) end()                                                 { w.s.warpRecord() }

// timeWarp is the server's time warp state.
type timeWarp struct {
	window int // ticks a command may be late and be inserted
	slack  int // most catch-up credit, in ticks
	ring   []*warpTick
	spare  warpLists // a re-simulated tick's lists, swapped into the ring
	slots  []warpSlot

	// Re-simulation scratch.
	work     []game.PlayerState
	inA      []bool
	aList    []int  // the affected slots, ascending
	stepped  []bool // stepped again in the tick being re-simulated
	outside  []bool // set by the server since the last tick (a join, a placement)
	settled  []bool
	lateFrom []uint32 // per slot: the first tick a late command was inserted at
	fly      []projectile
	flyNew   []bool // fly[i] differs from the recorded projectile
	fly2     []projectile
	flyNew2  []bool
	hits     []warpHit
	idBase   uint32 // projectile ids above this were launched by the current warp

	stats TimeWarpStats
}

// warpSlot is one slot's command schedule.
type warpSlot struct {
	owner   *client
	pend    []warpCmd // ring of commands waiting for their tick
	head, n int
	base    uint32 // the tick the client joined after
	lastE   uint32 // the effective tick of the newest command
	lastN   int    // commands scheduled at lastE
	credit  int

	// The newest death announced in the slot, and whose.
	died      *client
	deathTick uint32
}

// warpCmd is a command waiting for its effective tick.
type warpCmd struct {
	cmd game.UserCmd
	e   uint32
}

// warpTick is the ring's record of one tick.
type warpTick struct {
	tick uint32
	// Per slot: who played in the slot during the tick; the state it
	// started with when the server set it between ticks (fixedStart);
	// whether its state after the tick was set by the server (a respawn:
	// fixedEnd); its state after its commands and after the tick; its
	// commands.
	owner      []*client
	start      []game.PlayerState
	fixedStart []bool
	fixedEnd   []bool
	moved      []game.PlayerState
	state      []game.PlayerState
	ncmd       []uint8
	cmds       []game.UserCmd // maxWarpCmds per slot
	warpLists
}

// warpLists are what happened in a tick, in the order it happened.
type warpLists struct {
	shots   []warpShot
	pellets []warpPellet
	flights []warpFlight
	hits    []warpHit
	flying  []projectile // in flight after the tick, in launch order
}

// warpShot is a shot fired in a tick.
type warpShot struct {
	shooter int
	cmd     game.UserCmd
	st      game.PlayerState // the shooter's state after the command
	void    bool             // the shooter was dead when it was resolved
	p0, p1  int              // its pellets
}

// warpPellet is one pellet of a shot: a hitscan ray and what it hit, or
// a projectile's launch.
type warpPellet struct {
	ray    geom.Ray
	reach  float64 // the range, cut short by the first box on the ray
	victim int     // -1: a miss
	dist   float64
	id     uint32    // the projectile launched (0: hitscan, or not launched)
	vel    geom.Vec3 // the projectile's velocity
	h0, h1 int       // its hits
}

// warpFlight is one projectile's flight through a tick.
type warpFlight struct {
	id    uint32
	owner *client
	contact
	ended  bool // it hit something, expired or lost its owner
	h0, h1 int
}

// warpHit is damage a shot or projectile dealt.
type warpHit struct {
	hitInfo
	kill bool
}

func newTimeWarp(cfg *Config, tickDur time.Duration) *timeWarp {
	window := int((cfg.TimeWarp + tickDur - 1) / tickDur)
	n := cfg.MaxClients
	w := &timeWarp{
		window:   window,
		slack:    max(1, int(cfg.MoveSlack/tickDur)),
		ring:     make([]*warpTick, window+1),
		slots:    make([]warpSlot, n),
		work:     make([]game.PlayerState, n),
		inA:      make([]bool, n),
		stepped:  make([]bool, n),
		outside:  make([]bool, n),
		settled:  make([]bool, n),
		lateFrom: make([]uint32, n),
	}
	for i := range w.ring {
		w.ring[i] = &warpTick{
			owner: make([]*client, n), start: make([]game.PlayerState, n),
			fixedStart: make([]bool, n), fixedEnd: make([]bool, n),
			moved: make([]game.PlayerState, n), state: make([]game.PlayerState, n),
			ncmd: make([]uint8, n), cmds: make([]game.UserCmd, n*maxWarpCmds),
		}
	}
	for i := range w.slots {
		w.slots[i].pend = make([]warpCmd, cfg.CmdQueue)
	}
	for i := range w.lateFrom {
		w.lateFrom[i] = math.MaxUint32
	}
	return w
}

// entry returns the ring's record of tick t, if it still holds it.
func (w *timeWarp) entry(t uint32) (*warpTick, bool) {
	e := w.ring[t%uint32(len(w.ring))]
	return e, e.tick == t
}

// TimeWarpStats returns what time warp did so far (all zero when it is
// off).
func (s *Server) TimeWarpStats() TimeWarpStats {
	if s.warp == nil {
		return TimeWarpStats{}
	}
	return s.warp.stats
}

// slot returns c's schedule, starting it afresh when c is new in the slot.
func (w *timeWarp) slot(s *Server, c *client) *warpSlot {
	sl := &w.slots[c.id]
	if sl.owner != c {
		// The client joined after the newest tick the ring has without
		// it, or before the ring's oldest.
		base := s.tick
		for base > 0 {
			if e, ok := w.entry(base); !ok || e.owner[c.id] != c {
				break
			}
			base--
		}
		*sl = warpSlot{owner: c, pend: sl.pend, base: base, lastE: base, credit: w.slack, died: sl.died, deathTick: sl.deathTick}
	}
	return sl
}

// warpCommand schedules a command received from c under time warp (see
// the effective tick above).
func (s *Server) warpCommand(c *client, cmd game.UserCmd) {
	w := s.warp
	sl := w.slot(s, c)
	if sl.n == len(sl.pend) {
		c.cmdsDropped++
		return // flooding: the queue is full
	}
	c.lastRecv = cmd.Tick
	cmd.Duration = min(max(cmd.Duration, 0), s.tickDur)
	next := s.tick + 1
	lead := uint32((c.rtt.Smoothed()/2 + s.tickDur/2) / s.tickDur)
	e := next - min(lead, next)
	// The oldest tick a command can be inserted at: the ring must hold
	// the state before it, and the player must have been there.
	low := max(next-min(uint32(w.window), next), sl.base+1)
	if e < low {
		e = next
		w.stats.TooOld++
	}
	switch {
	case e > sl.lastE:
		sl.credit = min(sl.credit+int(e-sl.lastE-1), w.slack)
		sl.lastN = 0
	case sl.credit > 0 && sl.lastN < maxWarpCmds:
		e = sl.lastE
		sl.credit--
	default:
		e = sl.lastE + 1
		sl.lastN = 0
	}
	sl.lastE = e
	sl.lastN++
	sl.pend[(sl.head+sl.n)%len(sl.pend)] = warpCmd{cmd: cmd, e: e}
	sl.n++
}

// pop returns the slot's next command if its effective tick is at or
// before t.
func (sl *warpSlot) pop(t uint32) (warpCmd, bool) {
	if sl.n == 0 || sl.pend[sl.head].e > t {
		return warpCmd{}, false
	}
	wc := sl.pend[sl.head]
	sl.head = (sl.head + 1) % len(sl.pend)
	sl.n--
	return wc, true
}

// warpExecute runs c's commands due at the current tick and records them.
func (s *Server) warpExecute(c *client) {
	w := s.warp
	sl := &w.slots[c.id]
	if sl.owner != c {
		return
	}
	e, _ := w.entry(s.tick)
	for e.ncmd[c.id] < maxWarpCmds {
		wc, ok := sl.pop(s.tick)
		if !ok {
			return
		}
		cmd := wc.cmd
		noteExecuted(c, &cmd)
		e.cmds[c.id*maxWarpCmds+int(e.ncmd[c.id])] = cmd
		e.ncmd[c.id]++
		var fired bool
		c.state, fired = s.act(c.state, cmd)
		if fired {
			e.shots = append(e.shots, warpShot{shooter: c.id, cmd: cmd, st: c.state})
		}
	}
}

// warpLate runs at the start of every tick under time warp: it inserts
// the commands that arrived late at their ticks, re-simulates from the
// oldest of them to the present, and prepares the record of the tick
// about to run.
func (s *Server) warpLate() {
	w := s.warp
	from := uint32(math.MaxUint32)
	for _, c := range s.clients {
		if c == nil || w.slots[c.id].owner != c {
			continue
		}
		sl := &w.slots[c.id]
		for sl.n > 0 && sl.pend[sl.head].e <= s.tick {
			wc := &sl.pend[sl.head]
			e, ok := w.entry(wc.e)
			if !ok || e.owner[c.id] != c || e.ncmd[c.id] == maxWarpCmds {
				// Scheduling keeps effective ticks within the window,
				// after the join and two a tick at most, so this does not
				// happen; applying the command at the next tick is the
				// safe answer if it ever does.
				wc.e = s.tick + 1
				w.stats.TooOld++
				break
			}
			sl.pop(s.tick)
			noteExecuted(c, &wc.cmd)
			e.cmds[c.id*maxWarpCmds+int(e.ncmd[c.id])] = wc.cmd
			e.ncmd[c.id]++
			w.lateFrom[c.id] = min(w.lateFrom[c.id], wc.e)
			from = min(from, wc.e)
			w.stats.Late++
		}
	}
	if from <= s.tick {
		s.resimulate(from)
	}
	w.prepare(s)
}

// prepare starts the record of the next tick: who is in each slot, and
// which states the server set since the last tick (joins, placements).
func (w *timeWarp) prepare(s *Server) {
	t := s.tick + 1
	prev, _ := w.entry(s.tick)
	e := w.ring[t%uint32(len(w.ring))]
	e.tick = t
	for i, c := range s.clients {
		e.owner[i] = c
		e.fixedEnd[i] = false
		e.ncmd[i] = 0
		e.fixedStart[i] = c != nil && (prev.owner[i] != c || prev.state[i] != c.state)
		if c != nil {
			e.start[i] = c.state
		}
	}
	e.warpLists = warpLists{
		shots: e.shots[:0], pellets: e.pellets[:0], flights: e.flights[:0],
		hits: e.hits[:0], flying: e.flying[:0],
	}
}

// warpResolve is the damage phase of a live tick under time warp:
// projectiles fly, then shots are resolved, as moveProjectiles and
// resolveShots do, and everything is recorded for later warps.
func (s *Server) warpResolve(now time.Duration) {
	w := s.warp
	e, _ := w.entry(s.tick)
	for i, c := range s.clients {
		if c != nil {
			w.work[i] = c.state
			e.moved[i] = c.state
		}
	}
	clear(w.settled)
	w.fly = append(w.fly[:0], s.projectiles...)
	w.flyNew = w.flyNew[:0]
	for range w.fly {
		w.flyNew = append(w.flyNew, true)
	}
	r := warpRun{s: s, w: w, t: s.tick, now: now, rec: e, out: &e.warpLists, live: true}
	r.run()
	for i, c := range s.clients {
		if c != nil {
			c.state = w.work[i]
		}
	}
	s.projectiles = append(s.projectiles[:0], w.fly...)
}

// warpRecord completes the record of the tick just run: the states after
// it (a respawn marked as the server's fact) and the projectiles in
// flight.
func (s *Server) warpRecord() {
	w := s.warp
	e, _ := w.entry(s.tick)
	for i, c := range s.clients {
		if c != nil && e.owner[i] == c {
			e.state[i] = c.state
			// Only the server changes Teleport (spawn, placement).
			e.fixedEnd[i] = c.state.Teleport != e.moved[i].Teleport
		}
	}
	e.flying = append(e.flying[:0], s.projectiles...)
}

// Resimulate re-runs the last ticks ticks as a warp for a late command of
// player id at the first of them does, with the commands the server
// holds, and returns how many ticks it re-ran (at most the window). As
// the inputs are those the ticks ran with, it ends in the state it
// started from: it measures what a warp of that depth costs (lagkit
// experiment timewarp, BenchmarkTimeWarp) and checks that re-simulation
// reproduces the record.
func (s *Server) Resimulate(id, ticks int) (int, error) {
	w := s.warp
	switch {
	case w == nil:
		return 0, errors.New("server: resimulate: time warp is off")
	case id < 0 || id >= len(s.clients) || s.clients[id] == nil:
		return 0, fmt.Errorf("server: resimulate: no player in slot %d", id)
	case ticks < 0:
		return 0, fmt.Errorf("server: resimulate: %d ticks", ticks)
	}
	ticks = min(ticks, w.window, int(s.tick))
	from := s.tick + 1 - uint32(ticks)
	if e, ok := w.entry(from); ticks == 0 || !ok || e.owner[id] != s.clients[id] {
		return 0, nil
	}
	w.lateFrom[id] = from
	s.resimulate(from)
	return ticks, nil
}

// resimulate re-runs ticks from to the present: the affected set starts
// with the slots whose lateFrom is set.
func (s *Server) resimulate(from uint32) {
	w := s.warp
	last, _ := w.entry(s.tick)
	for i, c := range s.clients {
		w.outside[i] = c != nil && (last.owner[i] != c || last.state[i] != c.state)
	}
	prev, _ := w.entry(from - 1)
	copy(w.work, prev.state)
	clear(w.inA)
	w.aList = w.aList[:0]
	for i, c := range s.clients {
		sl := &w.slots[i]
		w.settled[i] = c != nil && sl.died == c && sl.deathTick >= from
	}
	w.fly = append(w.fly[:0], prev.flying...)
	w.flyNew = w.flyNew[:0]
	for range w.fly {
		w.flyNew = append(w.flyNew, false)
	}
	w.idBase = s.nextProjectile
	for t := from; t <= s.tick; t++ {
		e, _ := w.entry(t)
		r := warpRun{s: s, w: w, t: t, now: time.Duration(t) * s.tickDur, rec: e, orig: &e.warpLists, out: &w.spare}
		r.move()
		r.run()
		r.finish()
		e.warpLists, w.spare = w.spare, e.warpLists
	}
	for i, c := range s.clients {
		// What the server set since the last tick stands on top of the
		// re-simulated past (the next tick's record takes it as a fact).
		if c != nil && !w.outside[i] {
			c.state = w.work[i]
		}
		w.lateFrom[i] = math.MaxUint32
	}
	s.projectiles = append(s.projectiles[:0], w.fly...)
	// Re-record the warped ticks' poses, in increasing order, so that the
	// history holds the states the server settled on.
	for t := from; t <= s.tick; t++ {
		e, _ := w.entry(t)
		s.history.Begin(t)
		for i, o := range e.owner {
			if o != nil {
				s.history.Set(i, e.moved[i])
			}
		}
	}
	depth := int(s.tick - from + 1)
	w.stats.Warps++
	w.stats.Resimulated += depth
	w.stats.MaxDepth = max(w.stats.MaxDepth, depth)
}

// warpRun is the resolution of one tick, live or re-simulated.
type warpRun struct {
	s    *Server
	w    *timeWarp
	t    uint32
	now  time.Duration // the tick's time
	rec  *warpTick     // the tick's record (its per-slot arrays)
	orig *warpLists    // what the tick recorded before (nil: a live tick)
	out  *warpLists    // what it records now
	live bool
}

// join adds slot i to the affected set.
func (r *warpRun) join(i int) {
	w := r.w
	if r.live || w.inA[i] || w.settled[i] {
		return
	}
	w.inA[i] = true
	k := len(w.aList)
	w.aList = append(w.aList, i)
	for k > 0 && w.aList[k-1] > i {
		w.aList[k], k = w.aList[k-1], k-1
	}
	w.aList[k] = i
}

// move re-runs the tick's commands: affected and late players are
// stepped again, the others take their recorded states and shots.
func (r *warpRun) move() {
	w, e, s := r.w, r.rec, r.s
	r.out.shots = r.out.shots[:0]
	next := 0 // the recorded shots not yet passed
	for i, o := range e.owner {
		first := next
		for next < len(r.orig.shots) && r.orig.shots[next].shooter == i {
			next++
		}
		w.stepped[i] = false
		if o == nil {
			continue
		}
		late := w.lateFrom[i] <= r.t
		if late {
			r.join(i)
		}
		if !w.inA[i] && !late {
			w.work[i] = e.moved[i]
			r.out.shots = append(r.out.shots, r.orig.shots[first:next]...)
			continue
		}
		w.stepped[i] = true
		if e.fixedStart[i] {
			w.work[i] = e.start[i]
		}
		st := w.work[i]
		for k := range int(e.ncmd[i]) {
			cmd := e.cmds[i*maxWarpCmds+k]
			var fired bool
			st, fired = s.act(st, cmd)
			if fired {
				r.out.shots = append(r.out.shots, warpShot{shooter: i, cmd: cmd, st: st})
			}
		}
		w.work[i] = st
		e.moved[i] = st
	}
}

// finish ends a re-simulated tick: the server's own changes to the
// players re-simulated (end of spawn protection; a respawn, taken as
// recorded), the others' states from the record, and the record updated.
func (r *warpRun) finish() {
	w, e := r.w, r.rec
	for i, o := range e.owner {
		switch {
		case o == nil:
			continue
		case !w.inA[i] && !w.stepped[i] || e.fixedEnd[i]:
			w.work[i] = e.state[i]
		case w.work[i].Has(game.FlagProtected) && r.now >= o.protectedUntil:
			w.work[i].Flags &^= game.FlagProtected
		}
		e.state[i] = w.work[i]
	}
	r.out.flying = append(r.out.flying[:0], w.fly...)
}

// run resolves the tick's projectiles and shots.
func (r *warpRun) run() {
	r.out.pellets = r.out.pellets[:0]
	r.out.flights = r.out.flights[:0]
	r.out.hits = r.out.hits[:0]
	r.flights()
	r.shots()
}

// hittable reports whether shooter can hit player id in the tick: there,
// alive, not spawn protected, an enemy, and not settled.
func (r *warpRun) hittable(shooter, id int) bool {
	o := r.rec.owner[id]
	if o == nil || r.w.settled[id] {
		return false
	}
	st := &r.w.work[id]
	if st.Has(game.FlagDead) || st.Has(game.FlagProtected) {
		return false
	}
	sh := r.rec.owner[shooter]
	return sh == nil || r.s.match.Enemies(sh.id, sh.team, o.id, o.team)
}

// player returns the state of the player in slot id at the tick.
func (r *warpRun) player(id int) *game.PlayerState {
	if r.rec.owner[id] == nil {
		return nil
	}
	return &r.w.work[id]
}

// trace returns the first player other than shooter that a hitscan ray
// (or a projectile's segment) hits within maxDist, testing the players in
// ids (nil: everyone) in the tick's states.
func (r *warpRun) trace(ray geom.Ray, maxDist float64, shooter int, ids []int) (lagcomp.Hit, bool) {
	return r.s.firstPlayer(r, ray, maxDist, shooter, ids)
}

// keeps reports whether recorded hits damaged a settled player: the
// outcome then stands as recorded.
func (r *warpRun) keeps(hits []warpHit) bool {
	for i := range hits {
		if r.w.settled[hits[i].victim] {
			return true
		}
	}
	return false
}

// replay applies recorded hits again, as they were, telling nobody.
func (r *warpRun) replay(hits []warpHit) {
	for i := range hits {
		h := hits[i]
		r.hurt(&h)
	}
}

func same(a, b *warpHit) bool {
	return a.victim == b.victim && a.part == b.part && a.damage == b.damage
}

// settle applies the hits of one pellet or projectile contact, now, to
// the tick's states, and tells and counts those that differ from its
// recorded hits old (all of them in a live tick). Hits on the same
// victim and part for the same damage are the same hit, told before. A
// victim whose damage changed joins the affected set. It reports whether
// anything differed.
func (r *warpRun) settle(shooter *client, old, now []warpHit) bool {
	differ := len(old) != len(now)
	for i := range now {
		if i < len(old) && same(&old[i], &now[i]) {
			r.hurt(&now[i])
		} else {
			differ = true
		}
	}
	if !differ {
		return false
	}
	for i := range old {
		if i < len(now) && same(&old[i], &now[i]) {
			continue
		}
		r.join(old[i].victim)
		if v := r.rec.owner[old[i].victim]; v != nil {
			v.hitsTaken--
		}
	}
	for i := range now {
		if i < len(old) && same(&old[i], &now[i]) {
			continue
		}
		h := &now[i]
		r.join(h.victim)
		if v := r.rec.owner[h.victim]; v != nil {
			v.hitsTaken++
			if r.s.clients[h.victim] == v {
				r.s.sendHit(v, &h.hitInfo, 0, 0)
			}
		}
		r.hurt(h)
		if shooter != nil && r.s.clients[shooter.id] == shooter {
			r.s.confirm(shooter, &h.hitInfo, h.damage, wire.OutcomeRegistered)
		}
	}
	return true
}

// hurt takes h's damage from its victim's state in the tick. A kill of a
// connected player who is not settled is announced (in a re-simulation
// such a death is always news: a death announced before would have
// settled the player) and becomes the slot's newest death.
func (r *warpRun) hurt(h *warpHit) {
	st := &r.w.work[h.victim]
	h.kill = false
	if st.Has(game.FlagDead) {
		return
	}
	st.Health -= h.damage
	if st.Health > 0 {
		return
	}
	h.kill = true
	v := r.rec.owner[h.victim]
	if v == nil || r.s.clients[h.victim] != v || r.w.settled[h.victim] {
		st.Health = 0
		st.Flags |= game.FlagDead
		st.Flags &^= game.FlagReloading
		return
	}
	// kill works on the live state: lend it the tick's.
	live := v.state
	v.state = *st
	r.s.kill(r.now, h.shooter, h.victim)
	*st, v.state = v.state, live
	sl := &r.w.slots[h.victim]
	sl.died, sl.deathTick = v, r.t
}

// flights flies every projectile in flight through the tick, in launch
// order, as moveProjectiles does; recorded flights no projectile flies
// any more are undone.
func (r *warpRun) flights() {
	w := r.w
	w.fly2, w.flyNew2 = w.fly2[:0], w.flyNew2[:0]
	var orig []warpFlight
	if r.orig != nil {
		orig = r.orig.flights
	}
	cursor := 0
	for i := range w.fly {
		p := w.fly[i]
		changed := w.flyNew[i]
		var f *warpFlight
		if p.id <= w.idBase {
			// Projectiles keep their launch order, so the record's
			// flights are met in order; those passed are gone.
			for k := cursor; k < len(orig); k++ {
				if orig[k].id == p.id {
					for j := cursor; j < k; j++ {
						r.vanish(&orig[j])
					}
					f, cursor = &orig[k], k+1
					break
				}
			}
		}
		if r.flight(&p, f, changed) {
			w.fly2 = append(w.fly2, p)
			w.flyNew2 = append(w.flyNew2, changed || f == nil || f.ended)
		}
	}
	for k := cursor; k < len(orig); k++ {
		r.vanish(&orig[k])
	}
	w.fly, w.fly2 = w.fly2, w.fly
	w.flyNew, w.flyNew2 = w.flyNew2, w.flyNew
}

// vanish undoes a recorded flight that no projectile flies any more.
func (r *warpRun) vanish(f *warpFlight) {
	if r.settle(nil, r.orig.hits[f.h0:f.h1], nil) && f.owner != nil {
		f.owner.hitsLanded--
	}
	r.rejudged(f, nil)
}

// rejudged reports whether a flight's outcome is news: any in a live
// tick, or one that differs from the recorded flight f (counted).
func (r *warpRun) rejudged(f, now *warpFlight) bool {
	if r.live {
		return true
	}
	if f != nil && now != nil && f.ended == now.ended && f.hit == now.hit &&
		f.direct.Victim == now.direct.Victim && f.direct.Part == now.direct.Part && f.dist == now.dist {
		return false
	}
	if f != nil {
		r.w.stats.Rejudged++
	}
	return true
}

// flight flies p through the tick; f is its recorded flight (nil: none)
// and changed whether p differs from the recorded projectile. It reports
// whether p flies on.
func (r *warpRun) flight(p *projectile, f *warpFlight, changed bool) bool {
	s := r.s
	var old []warpHit
	if f != nil {
		old = r.orig.hits[f.h0:f.h1]
		if r.keeps(old) {
			r.replay(old)
			r.add(*f, old)
			return false
		}
	}
	fl := warpFlight{id: p.id, owner: p.owner, contact: contact{direct: lagcomp.Hit{Victim: -1}}, ended: true}
	if r.rec.owner[p.shooter] != p.owner {
		r.miss(p, f, &fl, old)
		return false
	}
	ray, seg := s.segment(p)
	cheap := f != nil && !changed && (f.direct.Victim < 0 || !r.w.inA[f.direct.Victim])
	if cheap {
		// The same segment as recorded: only the affected players can
		// have come in its way.
		fl.contact = f.contact
		if !f.hit {
			fl.dist = seg
		}
		if h, ok := r.trace(ray, fl.dist, p.shooter, r.w.aList); ok {
			fl.meet(h)
		}
	} else {
		fl.contact = s.worldContact(p, ray, seg)
		if h, ok := r.trace(ray, fl.dist, p.shooter, nil); ok {
			fl.meet(h)
		}
	}
	if !fl.hit {
		if s.advance(p, ray, seg) {
			fl.ended = false
			r.landed(p.owner, old, r.add(fl, nil))
			return true
		}
		r.miss(p, f, &fl, old)
		return false
	}
	centre := fl.centre(ray)
	unmoved := cheap && f.hit && fl.direct.Victim == f.direct.Victim && fl.dist == f.dist
	hits := r.add(fl, r.explosion(p, centre, &fl.direct, unmoved, old))
	differ := r.landed(p.owner, old, hits)
	if !r.rejudged(f, &fl) && !differ {
		return false
	}
	rec := s.projectileRecord(r.now, p)
	rec.Warped = !r.live
	rec.struck(&fl.direct)
	for i := range hits {
		rec.damaged(&fl.direct, hits[i].victim, hits[i].damage, hits[i].kill)
	}
	s.records = append(s.records, rec)
	s.announceExplosion(p, r.t, centre)
	return false
}

// miss settles p as a miss (its owner left, or it expired).
func (r *warpRun) miss(p *projectile, f, fl *warpFlight, old []warpHit) {
	r.landed(p.owner, old, r.add(*fl, nil))
	if r.rejudged(f, fl) {
		rec := r.s.projectileRecord(r.now, p)
		rec.Warped = !r.live
		r.s.records = append(r.s.records, rec)
	}
}

// add records flight fl with its hits and returns the recorded hits.
func (r *warpRun) add(fl warpFlight, hits []warpHit) []warpHit {
	fl.h0 = len(r.out.hits)
	r.out.hits = append(r.out.hits, hits...)
	fl.h1 = len(r.out.hits)
	r.out.flights = append(r.out.flights, fl)
	return r.out.hits[fl.h0:fl.h1]
}

// landed settles a projectile contact's hits against the recorded ones
// and keeps its owner's hit count (a projectile lands once, however many
// it damages). It reports whether the hits differ from the record's.
func (r *warpRun) landed(owner *client, old, now []warpHit) bool {
	differ := r.settle(owner, old, now)
	if differ {
		if len(old) > 0 {
			owner.hitsLanded--
		}
		if len(now) > 0 {
			owner.hitsLanded++
		}
	}
	return differ
}

// explosion returns the hits of p's contact at centre with direct victim
// direct (Victim -1: none), in slot order, as explode deals them. When
// unmoved, the contact is the recorded one, whose hits old stand for the
// players not affected: only the affected are computed again.
func (r *warpRun) explosion(p *projectile, centre geom.Vec3, direct *lagcomp.Hit, unmoved bool, old []warpHit) []warpHit {
	hits := r.w.hits[:0]
	k := 0
	for id := range r.rec.owner {
		if unmoved && !r.w.inA[id] {
			for k < len(old) && old[k].victim < id {
				k++
			}
			if k < len(old) && old[k].victim == id {
				hits = append(hits, old[k])
			}
			continue
		}
		if !r.hittable(p.shooter, id) {
			continue
		}
		h := warpHit{hitInfo: r.s.blastHit(p, centre, direct, id, &r.w.work[id])}
		if h.damage > 0 {
			hits = append(hits, h)
		}
	}
	r.w.hits = hits
	return hits
}

// shots resolves the tick's shots in the order fired, as resolveShots
// does: hitscan pellets are traced, projectiles launched. Recorded shots
// no longer fired (the shooter's chain changed) are undone.
func (r *warpRun) shots() {
	s := r.s
	oi := 0 // the recorded shots not yet passed
	for k := range r.out.shots {
		sh := &r.out.shots[k]
		var os *warpShot
		if r.orig != nil {
			for oi < len(r.orig.shots) && before(&r.orig.shots[oi], sh) {
				r.undoShot(&r.orig.shots[oi])
				oi++
			}
			if oi < len(r.orig.shots) && r.orig.shots[oi].shooter == sh.shooter && r.orig.shots[oi].cmd.Tick == sh.cmd.Tick {
				os = &r.orig.shots[oi]
				oi++
			}
		}
		owner := r.rec.owner[sh.shooter]
		var old []warpPellet
		if os != nil && !os.void {
			old = r.orig.pellets[os.p0:os.p1]
			owner.shotsFired -= len(old)
		}
		sh.p0 = len(r.out.pellets)
		sh.p1 = sh.p0
		// No kill trading: a shooter killed earlier in the tick does not
		// fire.
		sh.void = r.w.work[sh.shooter].Has(game.FlagDead)
		if sh.void {
			for i := range old {
				r.undoPellet(owner, &old[i])
			}
			continue
		}
		wp := &s.cfg.Weapons[sh.st.Weapon]
		owner.shotsFired += wp.Pellets
		for pellet := range wp.Pellets {
			var op *warpPellet
			if pellet < len(old) {
				op = &old[pellet]
			}
			if wp.Kind == game.Projectile {
				r.launch(sh, pellet, wp, op)
			} else {
				r.pellet(sh, pellet, wp, op, os != nil && !r.w.stepped[sh.shooter])
			}
		}
		for i := wp.Pellets; i < len(old); i++ {
			r.undoPellet(owner, &old[i])
		}
		sh.p1 = len(r.out.pellets)
	}
	if r.orig != nil {
		for ; oi < len(r.orig.shots); oi++ {
			r.undoShot(&r.orig.shots[oi])
		}
	}
}

// before reports whether shot a was fired before shot b in a tick: by
// slot, then command.
func before(a, b *warpShot) bool {
	return a.shooter < b.shooter || a.shooter == b.shooter && a.cmd.Tick < b.cmd.Tick
}

// undoShot takes back a recorded shot no longer fired.
func (r *warpRun) undoShot(os *warpShot) {
	if os.void {
		return
	}
	owner := r.rec.owner[os.shooter]
	owner.shotsFired -= os.p1 - os.p0
	for i := os.p0; i < os.p1; i++ {
		r.undoPellet(owner, &r.orig.pellets[i])
	}
}

// undoPellet takes back a recorded pellet no longer fired.
func (r *warpRun) undoPellet(owner *client, op *warpPellet) {
	if op.id != 0 {
		return // a projectile: its flights are undone as they vanish
	}
	if r.settle(nil, r.orig.hits[op.h0:op.h1], nil) {
		owner.hitsLanded--
	}
	r.w.stats.Rejudged++
}

// pellet resolves one hitscan pellet of shot sh; op is its recorded
// outcome (nil: none) and unmoved whether the shooter's chain is the
// recorded one, so that the ray is too.
func (r *warpRun) pellet(sh *warpShot, pellet int, wp *game.Weapon, op *warpPellet, unmoved bool) {
	s := r.s
	var old []warpHit
	if op != nil {
		old = r.orig.hits[op.h0:op.h1]
		if r.keeps(old) {
			r.replay(old)
			np := *op
			np.h0 = len(r.out.hits)
			r.out.hits = append(r.out.hits, old...)
			np.h1 = len(r.out.hits)
			r.out.pellets = append(r.out.pellets, np)
			return
		}
	}
	var np warpPellet
	var h lagcomp.Hit
	var ok bool
	if op != nil && unmoved && (op.victim < 0 || !r.w.inA[op.victim]) {
		// The same ray as recorded: its recorded first contact stands
		// unless an affected player now lies nearer.
		np = *op
		limit := op.reach
		if op.victim >= 0 {
			limit = op.dist
		}
		if h, ok = r.trace(op.ray, limit, sh.shooter, r.w.aList); ok {
			np.victim, np.dist = h.Victim, h.Dist
		} else if op.victim >= 0 {
			oh := &old[0]
			h, ok = lagcomp.Hit{Victim: op.victim, Part: oh.part, Dist: op.dist, Local: oh.local}, true
		}
	} else {
		ray := game.ShotRay(sh.st, sh.cmd, sh.shooter, pellet, wp, s.cfg.Movement)
		reach := wp.Range
		if wall, hit := s.cfg.Map.Grid.Raycast(ray, reach); hit {
			reach = wall.Dist
		}
		np = warpPellet{ray: ray, reach: reach, victim: -1}
		if h, ok = r.trace(ray, reach, sh.shooter, nil); ok {
			np.victim, np.dist = h.Victim, h.Dist
		}
	}
	np.h0 = len(r.out.hits)
	if ok {
		r.out.hits = append(r.out.hits, warpHit{hitInfo: pelletHit(sh.shooter, sh.cmd.Tick, game.EyePos(sh.st, s.cfg.Movement), &h, wp)})
	}
	np.h1 = len(r.out.hits)
	r.out.pellets = append(r.out.pellets, np)
	owner := r.rec.owner[sh.shooter]
	now := r.out.hits[np.h0:np.h1]
	differ := r.settle(owner, old, now)
	if differ {
		if len(old) > 0 {
			owner.hitsLanded--
		}
		if ok {
			owner.hitsLanded++
		}
	}
	if !r.live && !differ && op != nil {
		return
	}
	if !r.live && op != nil {
		r.w.stats.Rejudged++
	}
	rec := s.shotRecord(r.now, sh.shooter, sh.cmd.Tick, pellet, sh.st.Weapon)
	rec.Outcome, rec.Warped = wire.OutcomeRegistered, !r.live
	if ok {
		rec.Hit, rec.Registered, rec.Victim, rec.Part, rec.Damage, rec.Kill = true, true, h.Victim, h.Part, now[0].damage, now[0].kill
	}
	s.records = append(s.records, rec)
}

// launch fires pellet of shot sh as a projectile, as launch does; op is
// the recorded launch (nil: none).
func (r *warpRun) launch(sh *warpShot, pellet int, wp *game.Weapon, op *warpPellet) {
	s, w := r.s, r.w
	p := s.projectileFor(sh.shooter, r.rec.owner[sh.shooter], &sh.st, &sh.cmd, pellet, wp, 0)
	np := warpPellet{ray: geom.Ray{Origin: p.pos, Dir: p.dir}, victim: -1, vel: p.vel}
	np.h0, np.h1 = len(r.out.hits), len(r.out.hits)
	if len(w.fly) >= MaxProjectiles {
		if r.live || op == nil || op.id != 0 {
			s.dropProjectile(r.now, sh.shooter, sh.cmd.Tick, pellet, sh.st.Weapon, !r.live)
		}
		r.out.pellets = append(r.out.pellets, np)
		return
	}
	fresh := op == nil || op.id == 0
	if fresh {
		s.nextProjectile++
		np.id = s.nextProjectile
	} else {
		np.id = op.id
	}
	p.id = np.id
	w.fly = append(w.fly, p)
	w.flyNew = append(w.flyNew, fresh || op.ray.Origin != p.pos || op.vel != p.vel)
	r.out.pellets = append(r.out.pellets, np)
	if fresh {
		s.announceLaunch(&p, r.t)
	}
}

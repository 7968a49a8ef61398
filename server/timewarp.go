package server

import (
	"fmt"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/timewarp"
)

// Time warp ([timewarp]). With Config.TimeWarp set, a command takes
// effect at the tick its client issued it, even when it reaches the
// server later: the server reverts to the state at that tick, inserts the
// command there and re-simulates to the present, so that everything the
// command did (its movement, its hitscan shots, its projectiles and
// whatever they hit) is judged in the world as it was when the player
// acted. The window is the time a command may be late and still be
// inserted in the past.
//
// Effective tick. When each command takes effect is package timewarp's
// rule (timewarp.Schedule): at the tick its client issued it, as the
// server estimates it from the measured latency, within the window, in
// order, at most timewarp.CmdsPerTick a tick; one whose tick has passed
// is inserted there by a warp at the start of the next tick (every late
// command that arrived between two ticks shares one warp), and one older
// than the window is applied at the next tick and counted too old. The
// server's side of the seam is warpScheduler (timewarp_schedule.go),
// the server's scheduler while Config.TimeWarp is set, which hands each
// command to the Warp (timewarp.Warp.Receive, Next, InsertLate).
//
// What is kept. A fixed ring of window + 1 ticks (timewarp.Ring, so
// its memory does not depend on what clients send) holds for every tick
// each slot's state after its commands and after the tick, the commands
// each player executed in it, and in the server's lists (warpLists) the
// shots fired and each pellet's ray and outcome, each
// projectile's flight and contact (and the box around its path), every
// hit (victim, part, damage), and the projectiles in flight after the
// tick. States the server set outside the simulation (a join or
// placement between ticks, a respawn) are marked as facts, taken as
// recorded by every re-simulation. A round restart (Server.Restart) is
// the limit of the past: no warp reaches back before it.
//
// A game's own changes. What a game does to a player between ticks
// (Damage, Edit) is not taken as a fact of the state: that would undo
// what a late command of the player changed. It is recorded as a change
// of the tick just run (timewarp.Change, warpChange), and every
// re-simulation that re-runs the player through that tick applies it
// again to the re-simulated state at the tick's end (timewarp.Warp):
// damage as the health it took, an edit as the fields it wrote.
//
// Shot resolution. A re-simulation hands the shots of a re-run tick to
// the server's resolver (Config.Shots), as the live tick does, in a
// ShotWorld of that tick: its Trace tests the bodies the history keeps,
// re-recorded for the players the re-simulation stepped (amendBody)
// before the tick's shots are resolved, and its Hit judges a hit by the
// policy and settles it against the pellet's record, reporting only
// what is news (ShotWorld.Rejudged). lagkit's humanoid players are
// traced in their re-simulated states, and lagkit's projectiles fly
// again (timewarp_judge.go). A resolver, lagkit's shooter's weapons
// (shooter.Weapons) as any game's, chooses its rays itself from the shot
// and the world, so a
// recorded shot of a player the re-simulation did not step again, whose
// recorded rays no changed player's body could reach, stands as
// recorded without being handed to the resolver again (Stats.Stood,
// timewarp_prune.go); the others are fired again.
//
// What is re-simulated. Players do not collide with one another, so a
// late command changes its own player's chain of states and reaches the
// others only through shots, projectiles and damage. A re-simulation
// therefore tracks an affected set, starting with the late players from
// their commands' ticks (timewarp.Span keeps it). Affected players are
// stepped again with their recorded commands. Every shot of an affected player, and every
// projectile whose path changed, is traced against every player again.
// A shot or projectile of an unaffected player has the same ray or
// segment as before and every unaffected player the same pose and
// health, so it is tested against the affected players only: its
// recorded first contact stands unless an affected player now lies
// nearer on the ray; only when its recorded victim is affected is it
// traced against everyone. A player whose damage changes (a new hit, a
// hit gone, a kill) joins the affected set from then on. An unaffected
// player's states are read in place from the ring (copied only in a tick
// where re-dealt damage changes them), and a tick whose shots and
// projectiles all stand keeps its recorded lists (timewarp_prune.go).
//
// One implementation. A live tick under time warp is the ordinary tick:
// its commands run through Server.run, its projectiles and shots through
// moveProjectiles and resolveShots, and a recorder (warpRecorder) keeps
// what they did in the ring. A re-simulation resolves a tick by the same
// rules (fire.go: movement and firing, pellet damage, launch, flight,
// blast, records and events) and differs only in what it does with an
// outcome: it compares it with the record and settles the difference.
// A shot has one resolver, the game's (lagkit's shooter's weapons are
// shooter.Weapons), handed a ShotWorld of the live tick or of the re-run
// one, whose Trace and Hit differ only in that, and every shot's record,
// live or re-simulated, a pellet's or a projectile's, is completed in
// emit.
//
// Where the code is. What is game-independent is package timewarp's
// Warp: scheduling each command, the ring of past ticks, inserting late
// commands, the re-simulation's loop over the ticks (which players each
// steps again, from which state; ending each tick; the deaths that
// stand; the game's changes applied again) and the box pruning tests
// against. The server is its host (timewarp.Host) and keeps the glue:
// scheduling (timewarp_schedule.go: the server's counters around the
// Warp's), the host (timewarp_resim.go: stepping a player through a
// tick's commands with the server's step, recording a live tick's
// shots), judging (timewarp_judge.go: what of a re-run tick's shots and
// projectiles is news) and pruning (timewarp_prune.go: what of them
// stands as recorded without judging it again).
//
// Cost. A warp n ticks deep over m players re-runs n ticks; each costs
// O(a) movement steps for the a affected players, one box test per shot
// or projectile of the others (O(a) exact tests for those that come
// near the affected players), O(m) per shot or projectile of the
// affected players, and O(m) per explosion of a blast weapon; nothing
// per unaffected player. With each player firing at most a bounded
// number of shots a tick and a small affected set that is O(n x m) per
// warp at most: linear in both, where a re-simulation that traced every
// shot against every player again would cost n x m^2, the scaling a
// JavaScript time warp showed (saturating near 45 players).
// BenchmarkTimeWarp, BenchmarkTimeWarpTurned (the late player's commands
// changed), lagkit bench and lagkit experiment timewarp measure it.
//
// Committed facts. Deaths already announced stay: a re-simulation never
// revives a player whose death was processed, which would make a player
// fall, get up and fall again on the screens that were told
// (timewarp.Deaths). A player whose death lies within the re-simulated
// span is settled for that warp:
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
// exactly one of them decides. Under time warp the policy must declare
// that it never rewinds and never appeals (lagcomp.Traits; policy none
// does): a shot is tested in the re-simulated world at its own tick,
// against everyone's re-simulated states there, and lagcomp's rewind is
// not used; a rewinding policy would move the victims back a second time,
// and an appeal answered cannot be taken back by a re-simulation. The pose
// history is still kept, and re-recorded for the warped ticks, so that
// it holds the states the server settled on. Time warp compensates the
// client's upstream latency (the command's trip to the server), and
// projectiles with it, which rewinding does not; rewinding (tlc)
// compensates the whole round trip plus the interpolation delay for
// hitscan shots. A client that draws opponents extrapolated to the
// present (client.Extrapolate) makes up much of the rest under time warp.
//
// Hitscan shots only (Config.TimeWarpHitscanOnly; see package
// timewarp): commands run on arrival, and resolveShots hands each
// hitscan shot to deferShot, which the next tick's warp inserts at its
// issue tick (insertShots) and judges as a late command's shot; a
// re-simulation that steps its shooter keeps it (warpShot.deferred) and
// does not fire it again at the tick its command ran
// (warpTick.deferred).
//
// Rules with objectives (lagkit's ctf, dom) are not supported: a flag
// picked up or a point captured would have to be re-simulated too, so
// New asks the rules (Rules.WarpCheck) and rejects those with time warp.
// Nor is time warp of hitscan shots only with a game's own shots: it
// defers lagkit's hitscan, which such a game does not fire. A game's
// entities are the game's: a hit on one that a re-simulation no longer
// finds is not taken back.

// MaxTimeWarp bounds Config.TimeWarp.
const MaxTimeWarp = timewarp.Max

// TimeWarpStats count what time warp did (see timewarp.Stats).
type TimeWarpStats = timewarp.Stats

// checkTimeWarp validates the time warp settings of a config whose other
// fields have their defaults.
func (c *Config) checkTimeWarp() error {
	tw := c.TimeWarp
	switch {
	case tw == 0 && c.TimeWarpHitscanOnly:
		return fmt.Errorf("server: config: time warp of hitscan shots only needs a time warp window")
	case tw == 0:
		return nil
	case tw < 0 || tw > MaxTimeWarp:
		return fmt.Errorf("server: config: time warp %v outside 0..%v", tw, MaxTimeWarp)
	case tw > c.MaxUnlag:
		return fmt.Errorf("server: config: time warp %v exceeds max unlag %v: the pose history must cover the window", tw, c.MaxUnlag)
	case tw >= c.RespawnDelay:
		return fmt.Errorf("server: config: time warp %v must be shorter than the respawn delay %v, so no death a re-simulation finds respawns within the window", tw, c.RespawnDelay)
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

// timeWarp is the server's time warp: package timewarp's re-simulation
// (timewarp.Warp), and the server's side of it, the host
// (timewarp.Host): its record of a tick's shots and projectiles, and
// what it needs to judge them again.
type timeWarp struct {
	s     *Server
	d     *timewarp.Warp[*client, warpLists]
	spare warpLists // a re-simulated tick's lists, swapped into the ring

	fly    []projectile
	flyNew []bool // fly[i] differs from the recorded projectile
	// flyRec: the projectiles in flight are the ones the previous tick's
	// record holds (fly is not filled in).
	flyRec  bool
	fly2    []projectile
	flyNew2 []bool
	hits    []warpHit
	idBase  uint32 // projectile ids above this were launched by the current warp

	// standSkip (bound once) tells the players a recorded ray of a
	// game's shot by standShooter passes (warpRun.rayStands).
	standSkip    func(id int) bool
	standShooter int

	// unhitShot is the shot an Unhitter is handed (warpRun.unhit).
	unhitShot FiredShot

	run warpRun // the tick being re-simulated
	// shotWorld is the world each shot of a re-simulated tick is
	// resolved in (warpRun.shots), rewritten for each.
	shotWorld ShotWorld

	// views are the steps' views of the match each tick of the window
	// began with, by tick modulo their number, for its re-runs.
	views []game.MatchView

	// lastFlight tells whether a live tick's latest record is a flight
	// (else a pellet), which the damage it deals belongs to.
	lastFlight bool

	// shotsLate are the hitscan shots of the last tick to insert at
	// their issue ticks (timewarp.Rules.HitscanOnly).
	shotsLate []lateShot
}

// warpTick is the ring's record of one tick: the players' states and
// commands (timewarp.Tick), and the server's lists of what its shots
// and projectiles did (Lists).
type warpTick = timewarp.Tick[*client, warpLists]

// warpLists are what happened in a tick, in the order it happened.
type warpLists struct {
	shots   []warpShot
	pellets []warpPellet
	flights []warpFlight
	paths   []timewarp.Path // per flight, for pruning
	hits    []warpHit
	flying  []projectile // in flight after the tick, in launch order
}

// warpShot is a shot fired in a tick: the live tick's pending shot,
// and what became of it.
type warpShot struct {
	pendingShot
	void   bool // the shooter was dead when it was resolved
	p0, p1 int  // its pellets
	// deferred: a hitscan shot inserted at its command's issue tick
	// under timewarp.Rules.HitscanOnly, fired from the shooter's state
	// when its command ran (later): it stands when the shooter is
	// stepped again in this tick.
	deferred bool
}

// unjudged reports a late shot inserted at its issue tick that no
// re-simulation has judged yet: it has no pellets to stand as recorded.
func (sh *warpShot) unjudged() bool { return sh.deferred && sh.p0 == sh.p1 }

// lateShot is a hitscan shot to insert at tick e under
// timewarp.Rules.HitscanOnly.
type lateShot struct {
	pendingShot
	e uint32
}

// warpPellet is one pellet of a shot: a hitscan ray and what it hit, or
// a projectile's launch.
type warpPellet struct {
	ray    geom.Ray
	reach  float64 // the range, cut short by the first box on the ray
	victim int     // -1: a miss
	dist   float64
	entity int   // the game's entity a game's shot registered a hit on (0: none)
	edmg   int16 // the damage of that hit
	kind   pelletKind
	id     uint32    // the projectile launched (0: hitscan, or not launched)
	vel    geom.Vec3 // the projectile's velocity
	h0, h1 int       // its hits
}

// pelletKind tells how a pellet was resolved, which says how a
// re-simulation may see that it stands (timewarp_prune.go).
type pelletKind uint8

const (
	// pelletHitscan: a ray traced against lagkit's humanoid hitboxes
	// (ShotWorld.Trace where the players have no body of the game's).
	pelletHitscan pelletKind = iota
	// pelletBody: a ray of a game's shot traced through the bodies
	// (ShotWorld.Trace).
	pelletBody
	// pelletLaunch: a projectile of lagkit's weapons launched (or
	// dropped at MaxProjectiles).
	pelletLaunch
)

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

func newTimeWarp(s *Server, cfg *Config) *timeWarp {
	rules := timewarp.NewRules(cfg.TimeWarp, s.tickDur, cfg.MoveSlack)
	rules.HitscanOnly = cfg.TimeWarpHitscanOnly
	w := &timeWarp{s: s, views: make([]game.MatchView, rules.Window+2)}
	w.d = timewarp.NewWarp[*client, warpLists](w, rules, cfg.MaxClients, cfg.CmdQueue, cfg.Game)
	w.d.Died = cfg.Died
	w.standSkip = w.passes
	return w
}

// warpChange records a change the game made to c's state between ticks
// (Damage, Edit), now applied, as a fact of the tick just run
// (timewarp.Warp.Change): every re-simulation that re-runs c through the
// tick applies it again. A player who joined since the tick ran starts
// the next one from its state as the server set it anyway.
func (s *Server) warpChange(c *client, ch timewarp.Change) {
	s.warp.d.Change(c.id, c, s.tick, ch, c.state)
}

// entry returns the ring's record of tick t, if it still holds it.
func (w *timeWarp) entry(t uint32) (*warpTick, bool) {
	return w.d.Ring.Entry(t)
}

// TimeWarpStats returns what time warp did so far (all zero when it is
// off).
func (s *Server) TimeWarpStats() TimeWarpStats {
	if s.warp == nil {
		return TimeWarpStats{}
	}
	return s.warp.d.Stats
}

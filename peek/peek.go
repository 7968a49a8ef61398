// Package peek measures the peeker's advantage: when two players first
// come into each other's view, which client drew the other first, which
// fired at the other first, and whose shot hit first. The advantage of a
// duel is the difference between the two clients' first-sight instants;
// beside it, Expected gives the advantage Riot's account of Valorant's
// netcode predicts from the players' latencies ([valorant] in
// docs/references.md).
//
// The package is sans-IO: a driver (a match, the peek experiment) tells a
// Tracker what each client drew, when each fired and what the server
// judged, all on one clock, and reads the duels back.
package peek

import (
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Never marks an instant that did not happen: a client that never drew
// the other, never fired at it.
const Never time.Duration = -1

// Duel is one encounter of two players, from the instant either client
// first drew the other until one of them died or neither had drawn the
// other for the tracker's Gap.
type Duel struct {
	// A and B are the two players' ids, A < B.
	A int `json:"a"`
	B int `json:"b"`
	// Start is the first instant either client drew the other, End the
	// instant the duel closed.
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	// SightA is the instant A's client first drew B in its view with a
	// clear line of sight, SightB the same for B (Never: not drawn).
	SightA time.Duration `json:"sight_a"`
	SightB time.Duration `json:"sight_b"`
	// ShotA and ShotB are each client's first shot at the other (Never:
	// none).
	ShotA time.Duration `json:"shot_a"`
	ShotB time.Duration `json:"shot_b"`
	// FirstHit is the player whose shot the server registered on the
	// other first (-1: neither hit), at FirstHitAt (server time).
	FirstHit   int           `json:"first_hit"`
	FirstHitAt time.Duration `json:"first_hit_at"`
	// Killer is the player who killed the other in the duel (-1: nobody
	// died).
	Killer int `json:"killer"`
}

// Advantage returns A's advantage over B: how much earlier A's client
// drew B than B's client drew A (negative when B saw first), and whether
// both clients drew the other at all.
func (d Duel) Advantage() (time.Duration, bool) {
	if d.SightA == Never || d.SightB == Never {
		return 0, false
	}
	return d.SightB - d.SightA, true
}

// AdvantageOf returns player id's advantage in the duel (A's advantage
// or its negation), and whether both clients drew the other.
func (d Duel) AdvantageOf(id int) (time.Duration, bool) {
	a, ok := d.Advantage()
	if id == d.B {
		a = -a
	}
	return a, ok
}

// Path is what lies between a peeker's move and the defender's screen in
// Riot's account of the peeker's advantage: the peeker's client frame,
// the peeker's one-way latency to the server, the server's frame, the
// defender's one-way latency from the server and the defender's
// interpolation delay.
type Path struct {
	PeekerFrame    time.Duration `json:"peeker_frame"`
	PeekerOneWay   time.Duration `json:"peeker_one_way"`
	ServerFrame    time.Duration `json:"server_frame"`
	DefenderOneWay time.Duration `json:"defender_one_way"`
	DefenderInterp time.Duration `json:"defender_interp"`
}

// Expected is the peeker's advantage Riot's account predicts: the sum
// of the path's five parts, the time by which the defender's screen
// shows the peeker later than the peeker's own (client-predicted) screen
// shows the peeker's move.
func Expected(p Path) time.Duration {
	return p.PeekerFrame + p.PeekerOneWay + p.ServerFrame + p.DefenderOneWay + p.DefenderInterp
}

// DefaultGap is how long neither client may draw the other before their
// duel closes and a later sighting opens a new one.
const DefaultGap = time.Second

// pair keys a duel by its two players, lower id first.
type pair struct{ a, b int }

func keyOf(x, y int) pair {
	if x > y {
		x, y = y, x
	}
	return pair{x, y}
}

// open is a duel under way and when either client last drew the other.
type open struct {
	d    Duel
	last time.Duration
}

// Tracker follows duels as a driver reports what clients draw, fire and
// what the server registers, on one clock, in time order.
type Tracker struct {
	// Gap is how long neither client may draw the other before their
	// duel closes (0: DefaultGap).
	Gap  time.Duration
	open map[pair]*open
	done []Duel
}

func (t *Tracker) gap() time.Duration {
	if t.Gap > 0 {
		return t.Gap
	}
	return DefaultGap
}

// Sight reports that viewer's client drew other in its view with a clear
// line of sight at now. The first such report of a pair opens a duel.
func (t *Tracker) Sight(now time.Duration, viewer, other int) {
	if viewer == other || viewer < 0 || other < 0 {
		return
	}
	k := keyOf(viewer, other)
	o := t.open[k]
	if o != nil && now-o.last > t.gap() {
		t.close(k, o.last)
		o = nil
	}
	if o == nil {
		if t.open == nil {
			t.open = map[pair]*open{}
		}
		o = &open{d: Duel{A: k.a, B: k.b, Start: now, SightA: Never, SightB: Never, ShotA: Never, ShotB: Never,
			FirstHit: -1, FirstHitAt: Never, Killer: -1}}
		t.open[k] = o
	}
	o.last = now
	if viewer == k.a && o.d.SightA == Never {
		o.d.SightA = now
	}
	if viewer == k.b && o.d.SightB == Never {
		o.d.SightB = now
	}
}

// Shot reports that shooter's client fired at target at now. It counts
// only within a duel of the two.
func (t *Tracker) Shot(now time.Duration, shooter, target int) {
	o := t.open[keyOf(shooter, target)]
	if o == nil || shooter == target {
		return
	}
	if shooter == o.d.A && o.d.ShotA == Never {
		o.d.ShotA = now
	}
	if shooter == o.d.B && o.d.ShotB == Never {
		o.d.ShotB = now
	}
}

// Hit reports that the server registered a hit of shooter's on victim
// at now.
func (t *Tracker) Hit(now time.Duration, shooter, victim int) {
	o := t.open[keyOf(shooter, victim)]
	if o == nil || shooter == victim || o.d.FirstHit >= 0 {
		return
	}
	o.d.FirstHit, o.d.FirstHitAt = shooter, now
}

// Killed reports that victim died at now (by killer's hand, -1 for
// none): every duel of victim's closes.
func (t *Tracker) Killed(now time.Duration, victim, killer int) {
	for _, k := range t.keys() {
		if k.a != victim && k.b != victim {
			continue
		}
		o := t.open[k]
		if killer == k.a || killer == k.b {
			o.d.Killer = killer
		}
		t.close(k, now)
	}
}

// Close closes every duel still open at now, as at the end of a match.
func (t *Tracker) Close(now time.Duration) {
	for _, k := range t.keys() {
		t.close(k, now)
	}
}

// Expire closes the duels neither client has drawn for Gap by now.
func (t *Tracker) Expire(now time.Duration) {
	for _, k := range t.keys() {
		if o := t.open[k]; now-o.last > t.gap() {
			t.close(k, o.last)
		}
	}
}

// Duels returns the closed duels in the order they closed, and forgets
// them.
func (t *Tracker) Duels() []Duel {
	out := t.done
	t.done = nil
	return out
}

func (t *Tracker) close(k pair, at time.Duration) {
	o := t.open[k]
	o.d.End = at
	t.done = append(t.done, o.d)
	delete(t.open, k)
}

// keys returns the open duels' pairs in a fixed order, so closing many
// at once gives the same order every run.
func (t *Tracker) keys() []pair {
	ks := make([]pair, 0, len(t.open))
	for k := range t.open {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(x, y pair) int {
		if x.a != y.a {
			return x.a - y.a
		}
		return x.b - y.b
	})
	return ks
}

// Drawn reports whether a viewer whose eye is at eye, looking along yaw
// (radians) with a horizontal field of view of fov (radians), draws a
// player in state st on its screen with a clear line of sight to its
// torso or its eyes through grid. A dead player is not drawn.
func Drawn(grid *geom.Grid, eye geom.Vec3, yaw, fov float64, st game.PlayerState, params *game.Params) bool {
	if st.Has(game.FlagDead) {
		return false
	}
	torso := game.TorsoOrigin(st, params)
	if !inView(eye, yaw, fov, torso) {
		return false
	}
	return !grid.SegmentBlocked(eye, torso) || !grid.SegmentBlocked(eye, game.EyePos(st, params))
}

// inView reports whether p lies within a horizontal field of view of fov
// radians about yaw, seen from eye.
func inView(eye geom.Vec3, yaw, fov float64, p geom.Vec3) bool {
	to := p.Sub(eye)
	return math.Abs(math.Remainder(math.Atan2(to.Y, to.X)-yaw, 2*math.Pi)) <= fov/2
}

// AimedAt returns the angle (radians) between a view along yaw and
// pitch from eye and the direction to st's torso.
func AimedAt(eye geom.Vec3, yaw, pitch float64, st game.PlayerState, params *game.Params) float64 {
	to := game.TorsoOrigin(st, params).Sub(eye)
	n := to.Len()
	if n == 0 {
		return 0
	}
	view := geom.V(math.Cos(pitch)*math.Cos(yaw), math.Cos(pitch)*math.Sin(yaw), math.Sin(pitch))
	c := view.Dot(to) / n
	return math.Acos(math.Max(-1, math.Min(1, c)))
}

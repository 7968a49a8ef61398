package client

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/registry"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/wire"
)

// Display is how a client draws remote players: at which server time
// (ViewTime) and where each one is at that time, from the states
// received. Interpolate draws the past, between received states; the
// other modes draw the present, predicted from the newest state. Modes
// are chosen by name (ParseDisplay); adding one takes one file and one
// line in the registry.
type Display interface {
	// Name is the mode's name on command lines.
	Name() string
	// delay returns how far behind the received server time the mode
	// draws remote players.
	delay(cfg *Config) time.Duration
	// received takes the state just added to r as its newest; reset
	// reports that r's history started again with it (the player
	// appeared, or teleported), so there is nothing to move on from.
	received(c *Client, id int, r *remote, reset bool)
	// draw sets *out to r as drawn at server time t; r holds at least
	// one state.
	draw(cfg *Config, r *remote, t time.Duration, out *game.PlayerState)
}

// Displays is the registry of display modes, by name, the default first.
var Displays = registry.New("display mode",
	registry.Entry[Display]{Name: Interpolate.Name(), Item: Interpolate},
	registry.Entry[Display]{Name: Extrapolate.Name(), Item: Extrapolate},
	registry.Entry[Display]{Name: OpponentPredict.Name(), Item: OpponentPredict},
	registry.Entry[Display]{Name: DeadReckon.Name(), Item: DeadReckon},
)

// posDrawer is a display mode that can draw a remote player's position
// and teleport counter alone, as draw would set them.
type posDrawer interface {
	drawPos(cfg *Config, r *remote, t time.Duration) (geom.Vec3, uint8)
}

// historyOnly is a display mode that draws from the received states
// alone and keeps no model of its own.
type historyOnly struct{}

func (historyOnly) received(*Client, int, *remote, bool) {}

// remote is what a client holds of one remote player: its received
// states, a ring with the newest at head, and the display mode's model.
// What each received state and each drawing reads and writes lies
// together: the bookkeeping first, then each state beside its time.
type remote struct {
	n     int // samples held
	head  int // index of the newest
	alive bool
	// hasDrawn reports that drawn is the player as last drawn, at server
	// time drawnAt: a bot and the display error measured on its screen
	// ask for the same player at the same time, and the states held have
	// not changed in between. A new state forgets it.
	hasDrawn bool
	drawnAt  time.Duration
	// at is the index of the sample along last interpolated from: the
	// view time moves forward a little each frame, so the next search
	// starts there instead of at the newest.
	at    int
	drawn game.PlayerState
	h     [histLen]sample
	dr    reckoning.Model // DeadReckon's view of the player
	// lerp is the game's declared state, whose lerp fields are
	// interpolated (Config.Game).
	lerp *game.Layout
}

// sample is a remote player's state s at server time t.
type sample struct {
	t time.Duration
	s game.PlayerState
}

// along sets *out to r at server time t from its received states: between
// the two that straddle t, the oldest held when t is older than all of
// them, and past the newest that state projected along its own velocity
// for at most limit, then held.
//
// The projection uses the velocity the newest state carries, not the
// difference of the last two positions: the snapshot sends the server's
// velocity at that instant, while the difference is the mean velocity
// over the interval before it, half an interval stale on a clean link,
// and across lost snapshots or threshold replication's long gaps the
// mean over a path that may have turned or stopped since.
func (r *remote) along(out *game.PlayerState, t, limit time.Duration) {
	switch kind, j, i := r.find(t); kind {
	case pastNewest:
		*out = r.h[i].s
		ahead := min(t-r.h[i].t, limit)
		out.Pos = out.Pos.AddScaled(out.Vel, ahead.Seconds())
	case straddled:
		r.between(out, j, i, t)
	default:
		*out = r.h[i].s // older than everything held: the oldest sample
	}
}

// alongPos returns where along puts r at server time t and its teleport
// counter, with along's arithmetic, for callers that need only those.
func (r *remote) alongPos(t, limit time.Duration) (geom.Vec3, uint8) {
	switch kind, j, i := r.find(t); kind {
	case pastNewest:
		s := &r.h[i].s
		ahead := min(t-r.h[i].t, limit)
		return s.Pos.AddScaled(s.Vel, ahead.Seconds()), s.Teleport
	case straddled:
		a, b := &r.h[j].s, &r.h[i].s
		frac := float64(t-r.h[j].t) / float64(r.h[i].t-r.h[j].t)
		if a.Teleport != b.Teleport { // game.InterpolateInto keeps the nearer state
			if frac < 0.5 {
				return a.Pos, a.Teleport
			}
			return b.Pos, b.Teleport
		}
		return a.Pos.Lerp(b.Pos, frac), a.Teleport
	default:
		return r.h[i].s.Pos, r.h[i].s.Teleport
	}
}

// Where server time t lies among a remote's held samples (find).
const (
	pastNewest = iota // at or after the newest, sample i
	straddled         // between samples j and i
	beforeAll         // before the oldest, sample i
)

// find returns where server time t lies among r's samples, for along.
func (r *remote) find(t time.Duration) (kind, j, i int) {
	newest := r.head
	if t >= r.h[newest].t {
		return pastNewest, 0, newest
	}
	// The held samples' times increase from the oldest to the newest:
	// find the newest at or before t, forward from the one found last
	// time when that one is still held and not after t, else back from
	// the newest.
	if age := (newest - r.at + histLen) % histLen; age < r.n && r.h[r.at].t <= t {
		j := r.at
		for {
			i := (j + 1) % histLen
			if r.h[i].t > t {
				r.at = j
				return straddled, j, i
			}
			j = i // never the newest, which is after t
		}
	}
	i = newest
	for k := 1; k < r.n; k++ {
		j := (newest + histLen - k) % histLen
		if r.h[j].t <= t {
			r.at = j
			return straddled, j, i
		}
		i = j
	}
	return beforeAll, 0, i
}

// between sets *out to r at time t, interpolated between its samples j
// and i, the next after j, which straddle t.
func (r *remote) between(out *game.PlayerState, j, i int, t time.Duration) {
	frac := float64(t-r.h[j].t) / float64(r.h[i].t-r.h[j].t)
	game.InterpolateInto(out, &r.h[j].s, &r.h[i].s, frac)
	if a, b := &r.h[j].s, &r.h[i].s; r.lerp != nil && a.Teleport == b.Teleport {
		r.lerp.Lerp(&out.Game, &a.Game, &b.Game, frac)
	}
}

// ViewTime returns the server time at which remote players are drawn
// now: the received server time, less the display mode's delay (the
// interpolation delay when interpolating).
func (c *Client) ViewTime(now time.Duration) time.Duration {
	return max(0, c.ServerTime(now)-c.cfg.Display.delay(&c.cfg))
}

// jumpMargin is how much further than its speed allows a player may move
// between two states and still be moving, not teleported: a step up or
// down a ledge (Params.StepHeight) moves the feet without any velocity,
// and a quarter metre covers the speed a movement step gains before its
// velocity is capped, settling onto the ground and the position quantum.
func jumpMargin(p *game.Params) float64 { return p.StepHeight + 0.25 }

// implausibleJump reports whether a player moved from a to b in gap
// faster than movement allows: each velocity component is capped at
// MaxVelocity, which falling reaches before any other movement does, so
// no player covers more than √3 MaxVelocity per second, plus the margin.
// Source's lag compensation likewise ends a player's track when two
// consecutive records lie more than 64 units apart (the Source SDK's
// teleport distance), just above the 53 units its 3500 units/s
// sv_maxvelocity allows in a 66 Hz tick: such a jump is a teleport
// without the flag, say a respawn the teleport counter missed.
func implausibleJump(p *game.Params, a, b geom.Vec3, gap time.Duration) bool {
	limit := math.Sqrt(3)*p.MaxVelocity*gap.Seconds() + jumpMargin(p)
	// Nearly every move is well within the limit: the squares tell
	// without a square root, with a margin far above their rounding.
	if d2 := a.Sub(b).Len2(); limit >= 0 && d2 <= limit*limit*(1-1e-9) {
		return false
	}
	return a.Dist(b) > limit
}

// addSample adds remote player id's state at server time t. Its history
// starts again when the player appears, teleports (its teleport counter
// moved) or jumps further than it could have moved, so it is never drawn
// sliding across the map.
//
// gs, when not nil, is the game's own state of the entity (Config.Game).
func (c *Client) addSample(id int, t time.Duration, e *wire.EntityState, gs *game.State) {
	r := c.remotes[id]
	if r == nil {
		r = &remote{lerp: c.cfg.Game}
		c.remotes[id] = r
	}
	if r.alive && r.n > 0 && r.h[r.head].t >= t {
		return // a state already held (threshold replication repeats it)
	}
	// The state is written where it is kept, in place: only the newest
	// held is compared with it, and that is another slot.
	next := (r.head + 1) % histLen
	r.h[next].t = t
	e.StateInto(&r.h[next].s)
	if gs != nil {
		r.h[next].s.Game = *gs
	}
	st, last := &r.h[next].s, &r.h[r.head].s
	reset := !r.alive || (r.n > 0 && (last.Teleport != st.Teleport ||
		implausibleJump(c.cfg.Movement, last.Pos, st.Pos, t-r.h[r.head].t)))
	if reset {
		r.n = 0 // appeared or teleported: do not slide from the old place
	}
	r.alive, r.hasDrawn = true, false
	r.head = next
	r.n = min(r.n+1, histLen)
	c.cfg.Display.received(c, id, r, reset)
}

// Remote returns remote player id as drawn at server time t (see
// Display). It reports false for players not in the world.
func (c *Client) Remote(id int, t time.Duration) (game.PlayerState, bool) {
	st := c.drawn(id, t)
	if st == nil {
		return game.PlayerState{}, false
	}
	return *st, true
}

// RemotePos returns where remote player id is drawn at server time t and
// its teleport counter, as Remote draws it, for callers that need only
// those: the display error measured on a screen, say.
func (c *Client) RemotePos(id int, t time.Duration) (pos geom.Vec3, teleport uint8, ok bool) {
	if pd, ok := c.cfg.Display.(posDrawer); ok && id >= 0 && id < len(c.remotes) {
		// Drawn at t already (a bot looked), or only the position drawn.
		r := c.remotes[id]
		switch {
		case r == nil || !r.alive || r.n == 0:
			return geom.Vec3{}, 0, false
		case r.hasDrawn && r.drawnAt == t:
			return r.drawn.Pos, r.drawn.Teleport, true
		}
		pos, teleport = pd.drawPos(&c.cfg, r, t)
		return pos, teleport, true
	}
	st := c.drawn(id, t)
	if st == nil {
		return geom.Vec3{}, 0, false
	}
	return st.Pos, st.Teleport, true
}

// drawn returns remote player id as drawn at server time t, nil for
// players not in the world. It stays valid until the player is drawn
// again or a state of it arrives.
func (c *Client) drawn(id int, t time.Duration) *game.PlayerState {
	if id < 0 || id >= len(c.remotes) {
		return nil
	}
	r := c.remotes[id]
	if r == nil || !r.alive || r.n == 0 {
		return nil
	}
	if !r.hasDrawn || r.drawnAt != t {
		c.cfg.Display.draw(&c.cfg, r, t, &r.drawn)
		r.drawnAt, r.hasDrawn = t, true
	}
	return &r.drawn
}

// RemoteIDs appends the slots of remote players currently in the world,
// in increasing order.
func (c *Client) RemoteIDs(dst []int) []int {
	for _, id := range c.present {
		if r := c.remotes[id]; r != nil && r.alive && r.n > 0 {
			dst = append(dst, id)
		}
	}
	return dst
}

package peek

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
)

// aimCone is how far (radians) a shot's aim may lie from an enemy's torso
// as the shooter's client draws it to count as a shot at that enemy.
const aimCone = 10 * math.Pi / 180

// Watcher feeds a Tracker from what each client draws and fires and what
// the server registers, on one clock: a driver calls Client after each
// client tick and Server after each server tick.
type Watcher struct {
	Tracker Tracker
	// Grid is the map's, for lines of sight; Params the players'
	// movement parameters, for their eyes and torsos.
	Grid   *geom.Grid
	Params *game.Params
	ids    []int
	// blockers holds, per viewer and player, the box (plus one) that
	// last blocked both lines of sight between them: walls stay put and
	// players move little between ticks, so it usually still does, and
	// one box test spares a walk of the grid (as the bots do).
	blockers map[[2]int]int
	// records and log count the server's records already fed.
	records, log int
}

// Client looks at what c's client draws at now: every enemy in
// its view with a clear line of sight is a sighting, and a shot fired
// this tick is a shot at the drawn enemy nearest its aim.
func (o *Watcher) Client(now time.Duration, c *client.Client) {
	if c.Phase() != client.Connected {
		return
	}
	st := c.Predicted()
	if st.Has(game.FlagDead) {
		return
	}
	settings, _ := c.Settings()
	ffa := settings.Mode == "ffa"
	fov := float64(max(settings.FOVDeg, 60)) * math.Pi / 180
	eye := game.EyePos(st, o.Params)
	yaw, pitch := game.AngleToRad(int32(st.Yaw)), game.AngleToRad(int32(st.Pitch))
	vt := c.ViewTime(now)
	fired := c.Fired()
	target, best := -1, aimCone
	o.ids = c.RemoteIDs(o.ids[:0])
	for _, id := range o.ids {
		if !ffa {
			if t := c.TeamOf(id); t < 0 || t == c.Team() {
				continue
			}
		}
		rs, ok := c.Remote(id, vt)
		if !ok || !o.drawn(c.ID(), id, eye, yaw, fov, rs) {
			continue
		}
		o.Tracker.Sight(now, c.ID(), id)
		if fired {
			if a := AimedAt(eye, yaw, pitch, rs, o.Params); a <= best {
				target, best = id, a
			}
		}
	}
	if target >= 0 {
		o.Tracker.Shot(now, c.ID(), target)
	}
}

// Server feeds the server's registered hits and deaths: records and log
// are all the server's shot records and log entries so far (Server reads
// those it has not read before). It then closes the duels nobody has
// drawn for the tracker's Gap.
func (o *Watcher) Server(now time.Duration, records []server.ShotRecord, log []server.LogEntry) {
	for _, r := range records[o.records:] {
		if r.Registered && r.Victim >= 0 {
			o.Tracker.Hit(r.Time, r.Shooter, r.Victim)
		}
	}
	o.records = len(records)
	for _, e := range log[o.log:] {
		if e.Kind == "kill" {
			o.Tracker.Killed(e.Time, e.Other, e.Player)
		}
	}
	o.log = len(log)
	o.Tracker.Expire(now)
}

// drawn is Drawn, testing first the box that last blocked viewer's lines
// of sight to other.
func (o *Watcher) drawn(viewer, other int, eye geom.Vec3, yaw, fov float64, st game.PlayerState) bool {
	if st.Has(game.FlagDead) {
		return false
	}
	torso := game.TorsoOrigin(st, o.Params)
	if !inView(eye, yaw, fov, torso) {
		return false
	}
	head := game.EyePos(st, o.Params)
	k := [2]int{viewer, other}
	if box := o.blockers[k] - 1; box >= 0 {
		if b := o.Grid.Boxes()[box]; geom.SegmentAABB(eye, torso, b) && geom.SegmentAABB(eye, head, b) {
			return false
		}
	}
	box, blocked := o.Grid.SegmentBlocker(eye, torso)
	if !blocked {
		return true
	}
	if b := o.Grid.Boxes()[box]; !geom.SegmentAABB(eye, head, b) && !o.Grid.SegmentBlocked(eye, head) {
		return true
	}
	if o.blockers == nil {
		o.blockers = map[[2]int]int{}
	}
	o.blockers[k] = box + 1
	return false
}

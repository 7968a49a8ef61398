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
		if !ok || !Drawn(o.Grid, eye, yaw, fov, rs, o.Params) {
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

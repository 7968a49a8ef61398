package bots

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// Perception limits.
const (
	sightRange  = 60.0                   // metres
	rememberFor = 500 * time.Millisecond // a target out of sight this long is forgotten
	tick        = time.Second / 64       // decision granularity for turn rates
)

// perceive picks the enemy to fight: the current target while it stays
// in sight, else the nearest enemy this client draws that lies in the
// field of view (or that just shot the bot) with a clear line of sight.
// The enemies in range are ranked by distance first (the current
// target's halved), and lines of sight are walked nearest first, up to
// the first clear one: the farther ones could not win.
func (b *Bot) perceive(now time.Duration, c *client.Client, eye geom.Vec3) (int, geom.Vec3, bool) {
	settings, _ := c.Settings()
	ffa := settings.Mode == "ffa"
	fov := float64(max(settings.FOVDeg, 60)) * math.Pi / 180
	vt := c.ViewTime(now)
	b.ids = c.RemoteIDs(b.ids[:0])
	b.seen = b.seen[:0]
	for _, id := range b.ids {
		if !ffa {
			t := c.TeamOf(id)
			if t < 0 || t == c.Team() {
				continue
			}
		}
		rs, ok := c.Remote(id, vt)
		if !ok || rs.Flags&(game.FlagDead|game.FlagProtected) != 0 {
			continue
		}
		torso := game.TorsoOrigin(rs, b.params)
		to := torso.Sub(eye)
		dist := to.Len()
		if !(dist <= sightRange) {
			continue // out of range (or not a number: never the nearest)
		}
		inView := math.Abs(math.Remainder(math.Atan2(to.Y, to.X)-b.yaw, 2*math.Pi)) <= fov/2
		if !inView && id != b.target {
			continue
		}
		if id == b.target {
			dist *= 0.5 // stick with the current target
		}
		b.seen = append(b.seen, sighting{id: id, dist: dist, torso: torso, eye: game.EyePos(rs, b.params)})
	}
	// Nearest first; of equal distances the earlier slot, as a scan that
	// keeps the first strictly nearer one would pick (insertion sort is
	// stable, and there are at most a few dozen).
	for i := 1; i < len(b.seen); i++ {
		for j := i; j > 0 && b.seen[j].dist < b.seen[j-1].dist; j-- {
			b.seen[j], b.seen[j-1] = b.seen[j-1], b.seen[j]
		}
	}
	best := -1
	var bestPos geom.Vec3
	for _, s := range b.seen {
		if !b.blocked(s.id, eye, s.torso) || !b.blocked(s.id, eye, s.eye) {
			best, bestPos = s.id, s.torso
			break
		}
	}
	if best < 0 {
		if b.target >= 0 && now-b.seenAt > rememberFor {
			b.target = -1
		}
		return -1, geom.Vec3{}, false
	}
	if best != b.target {
		// A new enemy: a human needs a moment to react.
		if b.target < 0 || now-b.seenAt > rememberFor {
			r := float64(b.cfg.Reaction) + b.rng.NormFloat64()*float64(b.cfg.ReactionSpread)
			b.reactAt = now + time.Duration(math.Max(r, float64(80*time.Millisecond)))
			b.standFire = b.rng.Float64() < 0.75
		}
		b.target, b.aimErrAt = best, 0
	}
	b.seenAt = now
	return best, bestPos, true
}

// blocked reports whether a box of the map blocks the line of sight from
// eye to p on enemy id, as the map's grid.SegmentBlocked does. It first
// tests the box that blocked the last line to that enemy: walls stay put
// and players move little between ticks, so that one box usually still
// blocks, and a box of the grid that meets the segment blocks it. Only
// when it does not is the grid walked, and the box it finds kept.
func (b *Bot) blocked(id int, eye, p geom.Vec3) bool {
	if id < len(b.blocker) {
		if box := b.blocker[id] - 1; box >= 0 && geom.SegmentAABB(eye, p, b.m.Grid.Boxes()[box]) {
			return true
		}
	}
	box, blocked := b.m.Grid.SegmentBlocker(eye, p)
	if blocked {
		if id >= len(b.blocker) {
			b.blocker = append(b.blocker, make([]int32, id+1-len(b.blocker))...)
		}
		b.blocker[id] = int32(box) + 1
	}
	return blocked
}

// sighting is an enemy perceive may pick: its slot, its distance from
// the bot's eye (halved for the current target) and where its torso and
// eyes are drawn.
type sighting struct {
	id         int
	dist       float64
	torso, eye geom.Vec3
}

// fight aims at the target with the bot's aim error and fires in bursts,
// reloading when empty or, out of a fight, when low.
func (b *Bot) fight(now time.Duration, st *game.PlayerState, eye geom.Vec3, at geom.Vec3, visible bool, cmd *game.UserCmd) {
	dt := tick.Seconds()
	reloading := st.Flags&weapon.FlagReloading != 0
	if !visible {
		if look := b.moveDir; look.Len2() > 0 {
			b.turnToward(geom.V(look.X, look.Y, 0), dt)
		}
		if !reloading && int(weapon.ArmsOf(st).Ammo) < int(b.weapon.Magazine)/3 {
			cmd.Buttons |= game.BtnReload
		}
		return
	}
	b.drawAimErr(now, at.Sub(eye).Len())
	left := b.turnToward(at.Add(b.aimErr).Sub(eye), dt)
	if reloading || now < b.reactAt {
		return
	}
	if weapon.ArmsOf(st).Ammo == 0 {
		cmd.Buttons |= game.BtnReload
		return
	}
	if left > 4*math.Pi/180 || now < b.pauseTil {
		return
	}
	if b.burstLeft == 0 {
		b.burstLeft = 2 + b.rng.IntN(4)
	}
	cmd.Buttons |= game.BtnFire
	if weapon.ArmsOf(st).Wait <= tick {
		b.burstLeft--
		if b.burstLeft == 0 {
			b.pauseTil = now + time.Duration(200+b.rng.IntN(300))*time.Millisecond
		}
	}
}

// drawAimErr re-draws the aim error when it is due, for a target dist
// metres away: an angular offset whose spread shrinks with skill,
// re-drawn every few hundred milliseconds as a person corrects.
func (b *Bot) drawAimErr(now time.Duration, dist float64) {
	if now < b.aimErrAt {
		return
	}
	sigma := (0.4 + 3.2*(1-b.cfg.Skill)) * math.Pi / 180 * dist
	b.aimErr = geom.V(b.rng.NormFloat64()*sigma, b.rng.NormFloat64()*sigma, b.rng.NormFloat64()*sigma*0.6)
	b.aimErrAt = now + time.Duration(250+b.rng.IntN(350))*time.Millisecond
}

package bots

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// steer chooses where to go (the mode's objective, or cover when
// reloading in a fight), follows the path there, strafes while fighting
// and crouches behind low cover. It leaves the world direction to walk in
// b.moveDir and converts it to move intents once the view is set.
func (b *Bot) steer(now time.Duration, c *client.Client, st *game.PlayerState, enemyPos geom.Vec3, fighting bool, cmd *game.UserCmd) {
	// Threatened: in a fight, or in the session's first second, before
	// it has looked around.
	threatened := fighting || now < time.Second
	needCover := threatened && (st.Flags&weapon.FlagReloading != 0 || weapon.ArmsOf(st).Ammo == 0) && st.Flags&mode.FlagCarrier == 0
	switch {
	case b.inCover && (now >= b.coverTil || !needCover && st.Flags&weapon.FlagReloading == 0):
		b.inCover, b.crouch, b.hasGoal = false, false, false // peek out and carry on
	case !b.inCover && needCover:
		threat := enemyPos
		if !fighting {
			threat = st.Pos.Add(geom.V(math.Cos(b.yaw)*10, math.Sin(b.yaw)*10, 1.5))
		}
		b.spots = b.nav.Cover(st.Pos, threat, 12, b.spots[:0])
		if len(b.spots) > 0 {
			s := b.spots[0]
			b.inCover, b.cover, b.crouch = true, s.Pos, s.Crouch
			b.coverTil = now + time.Duration(1500+b.rng.IntN(2000))*time.Millisecond
			b.setGoal(now, st, s.Pos)
		}
	}
	if !b.inCover {
		b.chooseGoal(now, c, st, enemyPos, fighting)
	}
	b.follow(now, st)
	if fighting && !b.inCover && st.Flags&mode.FlagCarrier == 0 {
		// Strafe across the line of fire, changing side now and then (a
		// flag carrier just runs).
		if now >= b.strafeAt {
			b.strafe = int8(1 - 2*b.rng.IntN(2))
			b.strafeAt = now + time.Duration(400+b.rng.IntN(800))*time.Millisecond
		}
		to := enemyPos.Sub(st.Pos)
		side := geom.V(-to.Y, to.X, 0).Norm().Scale(float64(b.strafe))
		b.moveDir = b.moveDir.Scale(0.6).Add(side).Norm()
	}
	if b.crouch && b.inCover && b.cover.Sub(st.Pos).Len() < 0.8 {
		cmd.Buttons |= game.BtnCrouch
	}
	// Stuck against something: jump and plan again.
	if now >= b.stuckAt {
		if len(b.path) > 0 && st.Pos.Sub(b.lastPos).Len() < 0.3 {
			cmd.Buttons |= game.BtnJump
			b.replanAt = 0
			b.hasGoal = false
		}
		b.lastPos, b.stuckAt = st.Pos, now+time.Second
	}
}

// walk turns b.moveDir into move intents relative to the view yaw.
func (b *Bot) walk(cmd *game.UserCmd) {
	if b.moveDir.Len2() == 0 {
		return
	}
	a := math.Atan2(b.moveDir.Y, b.moveDir.X) - game.AngleToRad(int32(game.YawUnits(b.yaw)))
	cmd.Forward = int8(math.Round(127 * math.Cos(a)))
	cmd.Side = int8(math.Round(-127 * math.Sin(a)))
}

// chooseGoal picks where the mode wants the bot.
func (b *Bot) chooseGoal(now time.Duration, c *client.Client, st *game.PlayerState, enemyPos geom.Vec3, fighting bool) {
	settings, _ := c.Settings()
	team := c.Team()
	switch settings.Mode {
	case "ctf":
		flags := c.Flags()
		var own, enemy *client.FlagView
		for i := range flags {
			if flags[i].Team == team {
				own = &flags[i]
			} else {
				enemy = &flags[i]
			}
		}
		if own == nil || enemy == nil {
			break
		}
		switch {
		case st.Flags&mode.FlagCarrier != 0:
			b.setGoal(now, st, own.Home)
		case own.Dropped:
			b.setGoal(now, st, own.Pos)
		case enemy.Dropped:
			b.setGoal(now, st, enemy.Pos)
		case own.Carrier >= 0:
			// Our flag is on its way to the enemy's base: cut it off there.
			b.setGoal(now, st, enemy.Home)
		case enemy.Carrier >= 0:
			b.setGoal(now, st, own.Home) // escort: meet the carrier at home
		case b.cfg.Attacker:
			b.setGoal(now, st, enemy.Home)
		default:
			b.roam(now, st, own.Home, 10)
		}
		return
	case "dom":
		var best geom.Vec3
		bestD := math.Inf(1)
		for _, p := range c.Points() {
			if d := p.Pos.Sub(st.Pos).Len(); p.Owner != team && d < bestD {
				best, bestD = p.Pos, d
			}
		}
		if !math.IsInf(bestD, 1) {
			b.setGoal(now, st, best)
			return
		}
		if pts := c.Points(); len(pts) > 0 {
			b.roam(now, st, pts[b.rng.IntN(len(pts))].Pos, 6)
			return
		}
	}
	if fighting {
		b.roam(now, st, enemyPos, 8)
		return
	}
	b.roam(now, st, b.m.Bounds.Center(), math.Inf(1))
}

// roam wanders to random spots within radius of centre, a new one when
// reached or every 8 to 16 s.
func (b *Bot) roam(now time.Duration, st *game.PlayerState, centre geom.Vec3, radius float64) {
	if b.hasGoal && now < b.wander && b.goal.Sub(st.Pos).Len() > 1 {
		return
	}
	var p geom.Vec3
	for range 16 {
		p = b.nav.Random(b.rng)
		if p.Sub(centre).Len() <= radius {
			break
		}
	}
	b.wander = now + time.Duration(8000+b.rng.IntN(8000))*time.Millisecond
	b.setGoal(now, st, p)
}

// setGoal aims the path at p, planning again when the goal moved.
func (b *Bot) setGoal(now time.Duration, st *game.PlayerState, p geom.Vec3) {
	if b.hasGoal && b.goal.Sub(p).Len() < 1.5 && now < b.replanAt {
		return
	}
	b.goal, b.hasGoal, b.from = p, true, st.Pos
	b.path, _ = b.finder.Path(st.Pos, p, b.path[:0])
	b.replanAt = now + 2*time.Second
}

// follow runs along the path toward the first waypoint not yet reached,
// turning and wandering as a person does (see runner).
func (b *Bot) follow(now time.Duration, st *game.PlayerState) {
	for len(b.path) > 0 {
		d := b.path[0].Sub(st.Pos)
		if math.Hypot(d.X, d.Y) > 0.5 {
			break
		}
		b.from, b.path = b.path[0], b.path[1:]
	}
	if len(b.path) == 0 {
		b.moveDir = geom.Vec3{}
		if b.hasGoal && !b.inCover {
			b.hasGoal = false // arrived: the next goal comes next tick
		}
		return
	}
	if math.Hypot(st.Vel.X, st.Vel.Y) < standSpeed {
		b.run.stop()
	}
	d, aim := b.path[0].Sub(st.Pos), aimPoint(b.from, b.path[0], st.Pos).Sub(st.Pos)
	h := b.run.step(b.rng, tick.Seconds(), math.Atan2(aim.Y, aim.X), math.Hypot(d.X, d.Y), b.params.WalkSpeed)
	b.moveDir = geom.V(math.Cos(h), math.Sin(h), 0)
}

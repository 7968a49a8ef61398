package client

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
)

// ownVerdict returns the client's own verdict on the shot command cmd fired
// from before (the predicted state before it) to after (the one after):
// whether any of its pellets, traced as the server traces them (the eye
// at the press, the aim with recoil and spread, the weapon's range cut
// short by the map), meets the hitboxes of an enemy drawn at the shot's
// view time, alive and not spawn protected, as this client draws remote
// players. The game gives the rays (Config.ShotRays); a shot with none
// (a projectile, whose fate is the server's flight) is unknown.
func (c *Client) ownVerdict(before, after game.PlayerState, cmd game.UserCmd) game.Shown {
	if c.cfg.ShotRays == nil {
		return game.ShownUnknown
	}
	aim := cmd.Aimed()
	rays, reach := c.cfg.ShotRays(c.rays[:0], &after, &aim, c.id, c.cfg.Movement)
	c.rays = rays
	if len(rays) == 0 {
		return game.ShownUnknown
	}
	eye := game.PressEye(before, after, cmd, c.cfg.Movement)
	ffa := c.settings.Mode == "ffa"
	me, team := c.id, c.Team()
	for _, ray := range rays {
		ray.Origin = eye
		reach := reach
		if wall, hit := c.cfg.Map.Grid.Raycast(ray, reach); hit {
			reach = wall.Dist
		}
		for _, id := range c.present {
			if id == me || !ffa && c.TeamOf(id) == team || !ffa && c.TeamOf(id) < 0 {
				continue
			}
			st := c.drawn(id, aim.ViewTime)
			if st == nil || st.Flags&(game.FlagDead|game.FlagProtected) != 0 {
				continue
			}
			if _, ok := lagcomp.TracePlayer(ray, reach, *st, c.cfg.Movement); ok {
				return game.ShownHit
			}
		}
	}
	return game.ShownMiss
}

package client

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// The server mandates settings (wire.SettingsEvent) and says when the
// game is paused; the client obeys both.
//
// A pause: the server discards every command that reaches it while
// paused, so from the snapshot that tells of the pause on, the client
// holds every command not yet executed, its own and those on the way
// (they move nothing), and the commands it issues while paused carry
// no movement or buttons. The first such snapshot pulls the player back
// to where the server froze it, once; after that prediction stays
// exact. When the snapshot that tells of the resume comes, the commands
// the server has not executed yet will run: they are replayed again.
//
// The display mode and prediction a server mandates replace the
// client's own: bots and people draw and predict alike.

// applySettings takes settings the server sent, in order.
func (c *Client) applySettings(set *wire.SettingsEvent) {
	was := c.settings
	c.settings, c.hasSettings = *set, true
	if set.Display != "" && set.Display != c.cfg.Display.Name() {
		if d, err := Displays.Lookup(set.Display); err == nil {
			c.cfg.Display = d
			// The new mode starts its models from the next states.
			for _, r := range c.remotes {
				if r != nil {
					r.alive = false
				}
			}
		}
	}
	if set.Paused == was.Paused && set.PredictionOff == was.PredictionOff {
		return
	}
	for t := c.lastAck + 1; t < c.nextCmd && t+cmdRing > c.nextCmd; t++ {
		c.held[t%cmdRing] = set.Paused
	}
	if c.hasSelf {
		c.repredict(false)
	}
}

// hold strips cmd of what a paused game would discard: movement,
// buttons, a fire press and a change of the selected slot (weapon is
// the slot the command before selected). The view angles stay, so the player may look around.
func hold(cmd *game.UserCmd, weapon uint8) {
	cmd.Forward, cmd.Side, cmd.Up = 0, 0, 0
	cmd.Buttons = 0
	cmd.HasPress, cmd.Press = false, game.Press{}
	cmd.Weapon = weapon
}

// Paused reports whether the server said the game is paused.
func (c *Client) Paused() bool { return c.settings.Paused }

// Predicting reports whether the client predicts its player's commands:
// unless the server turned prediction off.
func (c *Client) Predicting() bool { return !c.settings.PredictionOff }

// DisplayName returns the name of the display mode remote players are
// drawn with: the server's mandate, or the client's own.
func (c *Client) DisplayName() string { return c.cfg.Display.Name() }

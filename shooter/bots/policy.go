package bots

import (
	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// Bot is a bot.Policy of any harness, at a display rate (a
// bot.FramePolicy) when its FrameRate is set.
var _ bot.FramePolicy = (*Bot)(nil)

// Shooter returns the bot.Maker of lagkit's own bots on map m and its
// navigation grid g, with movement p and weapon w, bot i with the
// character cfg(i) gives (lagkit's harnesses make three in four
// attackers).
func Shooter(cfg func(i int) Config, m *world.Map, g *nav.Grid, p *game.Params, w *weapon.Weapon) bot.Maker {
	return func(i int, seed uint64) (bot.Policy, error) {
		return New(cfg(i), m, g, p, w, seed)
	}
}

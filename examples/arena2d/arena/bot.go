package arena

import (
	"sync"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
)

// ClientConfig is the client core's configuration for the arena.
func ClientConfig(name string) client.Config {
	return client.Config{Map: Map(), Step: Step, Values: NumValues, Name: name, InterpDelay: 50 * time.Millisecond}
}

// Bot plays the arena: it closes in on the crate as drawn, shoots at it
// and dashes now and then; once the crate breaks it salutes whoever
// broke it. Its methods are safe to call from any goroutine.
type Bot struct {
	mu       sync.Mutex
	broken   bool
	brokenBy int
	hits     int
	stamina  int16
	seen     bool // saw the crate
}

// Input implements realtime.Brain.
func (b *Bot) Input(now time.Duration, c *client.Client) game.UserCmd {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range c.GameEvents() {
		switch {
		case ev.Kind == EventCrateBroken && len(ev.Data) == 1:
			b.broken, b.brokenBy = true, int(ev.Data[0])
			c.SendEvent(EventGG, nil)
		case ev.Kind == EventHit:
			b.hits++
		}
	}
	me := c.Predicted()
	b.stamina = me.Values[Stamina]
	cmd := game.UserCmd{Yaw: me.Yaw}
	crate, ok := c.Remote(CrateSlot, c.ViewTime(now))
	if !ok {
		return cmd
	}
	b.seen = true
	cmd.Yaw = YawTo(me.Pos, crate.Pos)
	if me.Pos.Dist(crate.Pos) > 8 {
		cmd.Forward = 127
	}
	cmd.Buttons |= game.BtnFire
	if now%(3*time.Second) < 20*time.Millisecond && me.Pos.Dist(crate.Pos) > 10 {
		cmd.Buttons |= BtnDash
	}
	return cmd
}

// Saw returns whether the bot saw the crate, whether it heard the crate
// break and from whose shot, and its stamina as last predicted.
func (b *Bot) Saw() (crate, broken bool, by int, stamina int16) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen, b.broken, b.brokenBy, b.stamina
}

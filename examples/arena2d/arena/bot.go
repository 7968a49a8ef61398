package arena

import (
	"math"
	"sync"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// ClientConfig is the client core's configuration for the arena.
func ClientConfig(name string) client.Config {
	return client.Config{Map: Map(), Step: Step, Game: Decl.Layout, Cmd: CmdDecl.CmdLayout, Name: name, InterpDelay: 50 * time.Millisecond, FirstEntity: CrateSlot}
}

// Bot plays the arena: it closes in on the crate as drawn, shoots at it
// and dashes now and then, blinking to land 10 m short of it when
// further than 11 m; once the crate breaks it salutes whoever
// broke it, raises the shield if it was given one, and turns on the
// nearest player. Its methods are safe to
// call from any goroutine.
type Bot struct {
	mu       sync.Mutex
	broken   bool
	brokenBy int
	hits     int
	stamina  int16
	looted   bool // its predicted state held the crate's shield
	blinks   int  // commands that asked to blink
	id       int  // its slot, once connected
	seen     bool // saw the crate
	kills    []wire.KillEvent
	tracers  int // the others' shots it was told of (client.Ready.Tracers)
	// dashAt is the bot's phase in the dash's 3 s rhythm (NewBot draws
	// it from the bot's seed, so bots dash apart).
	dashAt time.Duration
}

// NewBot makes bot i of a harness's run from its seed (a bot.Maker:
// sim.NewBots, match.Config.BotPolicy, realtime.MatchConfig.BotPolicy,
// the load tool's bots): the seed sets when in the dash's rhythm it
// dashes.
func NewBot(i int, seed uint64) (bot.Policy, error) {
	return &Bot{dashAt: time.Duration(seed%uint64(dashEvery/time.Millisecond)) * time.Millisecond}, nil
}

// dashEvery is the dash's rhythm: a bot far from its target dashes once
// in each.
const dashEvery = 3 * time.Second

// Observe takes in what the bot's client was told (bot.Observer): the
// crate's end, which it salutes, its hits, the kills and the others'
// shots.
func (b *Bot) Observe(_ time.Duration, c *client.Client, r *client.Ready) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range r.GameEvents {
		switch {
		case ev.Kind == EventCrateBroken && len(ev.Data) == 1:
			b.broken, b.brokenBy = true, int(ev.Data[0])
			c.SendEvent(EventGG, nil)
		case ev.Kind == EventHit:
			b.hits++
		}
	}
	b.kills = append(b.kills, r.Kills...)
	b.tracers += len(r.Tracers)
}

// Tracers returns how many of the other players' shots the bot's client
// was told of, as tracers to draw.
func (b *Bot) Tracers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tracers
}

// Input implements realtime.Brain.
func (b *Bot) Input(now time.Duration, c *client.Client) game.UserCmd {
	b.mu.Lock()
	defer b.mu.Unlock()
	me := c.Predicted()
	a := Decl.Get(&me)
	b.id = c.ID()
	b.stamina = a.Stamina
	cmd := game.UserCmd{Yaw: me.Yaw}
	if me.Has(game.FlagDead) {
		return cmd
	}
	if a.Item == ItemShield {
		b.looted = true
		cmd.Buttons |= BtnUse
	}
	view := c.ViewTime(now)
	var target game.PlayerState
	ok := false
	if b.broken {
		best := math.Inf(1)
		for _, id := range c.RemoteIDs(nil) {
			st, drawn := c.Remote(id, view)
			if d := me.Pos.Dist(st.Pos); drawn && id < CrateSlot && c.TeamOf(id) != c.Team() && !st.Has(game.FlagDead) && d < best {
				target, ok, best = st, true, d
			}
		}
	} else {
		target, ok = c.Remote(CrateSlot, view)
		b.seen = b.seen || ok
	}
	if !ok {
		return cmd
	}
	cmd.Yaw = YawTo(me.Pos, target.Pos)
	if me.Pos.Dist(target.Pos) > 8 {
		cmd.Forward = 127
	}
	cmd.Buttons |= game.BtnFire
	if (now+b.dashAt)%dashEvery < 20*time.Millisecond && me.Pos.Dist(target.Pos) > 10 {
		cmd.Buttons |= BtnDash
	}
	if d := me.Pos.Dist(target.Pos); a.BlinkWait == 0 && d > 11 {
		// Blink to land 10 m short of the target: 1 to 6 m.
		cmd.Buttons |= BtnBlink
		CmdDecl.Of(&cmd).Reach = float32(min(BlinkLength, d-10))
		b.blinks++
	}
	return cmd
}

// Kills returns the kills the bot heard announced.
func (b *Bot) Kills() []wire.KillEvent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]wire.KillEvent(nil), b.kills...)
}

// Saw returns whether the bot saw the crate, whether it heard the crate
// break and from whose shot, and its stamina as last predicted.
func (b *Bot) Saw() (crate, broken bool, by int, stamina int16) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen, b.broken, b.brokenBy, b.stamina
}

// Looted reports whether the bot's predicted state ever held the
// crate's shield, loot the server granted, and the bot's slot.
func (b *Bot) Looted() (looted bool, slot int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.looted, b.id
}

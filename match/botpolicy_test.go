package match

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// stander is a game's bot that stands where it spawned, looking along
// the yaw its seed gives it.
type stander struct{ yaw uint16 }

func (s stander) Input(time.Duration, *client.Client) game.UserCmd {
	return game.UserCmd{Yaw: s.yaw}
}

// TestBotPolicy: a match's bots come from Config.BotPolicy, each made
// once with its index and its own seed; lagkit's own Maker there plays
// the very match the default does, and another policy another match.
func TestBotPolicy(t *testing.T) {
	base := Config{Bots: 4, Duration: 8 * time.Second, Seed: 5, Mode: "tdm"}
	def, err := Run(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := world.LoadNamed("metro")
	if err != nil {
		t.Fatal(err)
	}
	params := game.DefaultParams()
	grid, err := nav.Build(m, &params)
	if err != nil {
		t.Fatal(err)
	}
	weapon := weapon.Rifle()
	shooter := bots.Shooter(func(i int) bots.Config { return bots.Config{Skill: 0.5, Attacker: (i/2)%4 < 3} }, m, grid, &params, &weapon)
	seeds := map[int]uint64{}
	own := base
	own.BotPolicy = func(i int, seed uint64) (bot.Policy, error) {
		if _, dup := seeds[i]; dup {
			t.Errorf("bot %d made twice", i)
		}
		seeds[i] = seed
		return shooter(i, seed)
	}
	got, err := Run(own, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Match.StateHash != def.Match.StateHash {
		t.Errorf("lagkit's Maker: state %s, the default's %s", got.Match.StateHash, def.Match.StateHash)
	}
	if len(seeds) != 4 || seeds[0] == seeds[1] {
		t.Errorf("seeds %v, want four of their own", seeds)
	}

	still := base
	still.BotPolicy = func(i int, seed uint64) (bot.Policy, error) { return stander{yaw: uint16(seed)}, nil }
	quiet, err := Run(still, nil)
	if err != nil {
		t.Fatal(err)
	}
	shots := 0
	for _, p := range quiet.Players {
		shots += p.Shots
		if p.DistanceM > 0.5 {
			t.Errorf("standing bot %d walked %.1f m", p.ID, p.DistanceM)
		}
	}
	if shots != 0 || quiet.Match.StateHash == def.Match.StateHash {
		t.Errorf("standing bots: %d shots, state %s (lagkit's bots' %s)", shots, quiet.Match.StateHash, def.Match.StateHash)
	}

	broken := base
	broken.BotPolicy = func(i int, seed uint64) (bot.Policy, error) {
		if i == 2 {
			return nil, errors.New("no such bot")
		}
		return stander{}, nil
	}
	if _, err := Run(broken, nil); err == nil || !strings.Contains(err.Error(), "bot 2: no such bot") {
		t.Errorf("a failing Maker: %v", err)
	}
}

package experiment

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
)

// stillBot is a game's bot that stands and never fires.
type stillBot struct{}

func (stillBot) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{} }

// TestBotPolicy: Options.BotPolicy reaches every planned cell of an
// experiment whose players are bots, whose match then seats that
// game's bots in place of lagkit's (standing bots fire no shot where
// lagkit's fire); an experiment of scripted players refuses it.
func TestBotPolicy(t *testing.T) {
	e, err := Get("rollback")
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	still := func(int, uint64) (bot.Policy, error) { made++; return stillBot{}, nil }
	cells := Planned(e, Options{Seed: 3, Quick: true, BotPolicy: still})
	if len(cells) == 0 {
		t.Fatal("no cells")
	}
	for _, c := range cells {
		if c.Bots == nil {
			t.Fatalf("cell %d has no Maker", c.Index)
		}
	}
	c := cells[0]
	c.Params["minutes"] = 0.25
	res, err := e.RunCell(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Bots = nil
	lagkits, err := e.RunCell(c)
	if err != nil {
		t.Fatal(err)
	}
	if made != 12 || res.Metrics["shots"] != 0 || lagkits.Metrics["shots"] == 0 {
		t.Errorf("%d bots made; standing bots fired %v shots, lagkit's %v", made, res.Metrics["shots"], lagkits.Metrics["shots"])
	}
	scale, err := Get("scale")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Run(context.Background(), scale, Options{Seed: 3, Quick: true, BotPolicy: still}); err == nil || !strings.Contains(err.Error(), "bot.Maker") {
		t.Errorf("scale with a game's bots: %v", err)
	}
}

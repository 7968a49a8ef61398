package bots

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

func TestConfigErrors(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	p, w := game.DefaultParams(), weapon.Rifle()
	g, err := nav.Build(m, &p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{{Skill: 2}, {Skill: -0.5}, {Reaction: -1}, {FrameRate: -1}, {FrameRate: MaxFrameRate + 1}, {SubTick: true}} {
		if _, err := New(c, m, g, &p, &w, 1); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	b, err := New(Config{}, m, g, &p, &w, 1)
	if err != nil || b.cfg.Skill != 0.5 || b.cfg.Reaction == 0 {
		t.Fatalf("defaults: %+v, %v", b.cfg, err)
	}
}

package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	lkshooter "github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// seamRifles fires lagkit's hitscan weapons as a game of its own would,
// through the exported seam alone: the pellet's ray, Trace, ShowTracer,
// Hit for the weapon's damage at the part hit, and Damage for a hit
// traced again beyond clc's rollback cap.
type seamRifles struct {
	weapons []game.Weapon
	params  *game.Params
}

func (r seamRifles) Fire(w *server.ShotWorld) {
	sh := &w.Shot
	wp := &r.weapons[sh.State.Arms().Weapon]
	for pellet := range wp.Pellets {
		ray := game.ShotRay(sh.State, sh.Cmd.Aimed(), sh.Shooter, pellet, wp, r.params)
		ray.Origin = sh.Eye
		h, ok := w.Trace(ray, wp.Range)
		w.ShowTracer()
		if ok {
			w.Hit(wp.Damage[h.Part])
		}
	}
}

func (r seamRifles) Damage(w *server.ShotWorld, h *lagcomp.RewindHit) int16 {
	return r.weapons[w.Shot.State.Arms().Weapon].Damage[h.Part]
}

// shotLog keeps every shot record, kill and datagram byte the server
// handed over.
type shotLog struct {
	sim.NoObserver
	shots []server.ShotRecord
	kills []server.Kill
	bytes int
}

func (l *shotLog) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	l.shots = append(l.shots, r.Shots...)
	l.kills = append(l.kills, r.Kills...)
	for _, m := range r.Messages {
		l.bytes += len(m.Data)
	}
}

// TestWeaponShotsTakeTheSeam: lagkit's hitscan weapons take no path of
// their own. A resolver written outside the server with its exported
// seam alone, firing the same weapons, plays the same 12-bot matches as
// server.WeaponShots bit for bit (state, every shot record, every kill,
// every datagram) under tlc, clc with a rollback cap that traces hits
// again at the present, alc's appeals, time warp, and attribute scaling.
func TestWeaponShotsTakeTheSeam(t *testing.T) {
	m, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	params := game.DefaultParams()
	weapons := game.DefaultWeapons()
	var hitscan []game.Weapon
	for _, w := range weapons {
		if w.Kind != game.Projectile {
			hitscan = append(hitscan, w)
		}
	}
	grid, err := nav.Build(m, &params)
	if err != nil {
		t.Fatal(err)
	}
	loadout := func(id, _ int, st *game.PlayerState) { st.Arms().Weapon = uint8(id % len(hitscan)) }
	cases := []struct {
		name    string
		cfg     server.Config
		latency time.Duration // each way
	}{
		{"tlc", server.Config{Policy: lagcomp.Config{Name: "tlc"}}, 60 * time.Millisecond},
		{"clc-cap", server.Config{Policy: lagcomp.Config{Name: "clc", MaxRollbackM: 0.25}}, 60 * time.Millisecond},
		{"alc", server.Config{Policy: lagcomp.Config{Name: "alc"}}, 15 * time.Millisecond},
		{"timewarp", server.Config{Policy: lagcomp.Config{Name: "none"}, TimeWarp: 250 * time.Millisecond}, 60 * time.Millisecond},
		{"adjustments", server.Config{Policy: lagcomp.Config{Name: "tlc"}, Adjust: lkshooter.Adjust(scaling.Config{Name: "linear", PerSecond: 5}, aimassist.Config{Name: "magnetism"})}, 60 * time.Millisecond},
	}
	for _, c := range cases {
		run := func(shots server.Shots) (string, *shotLog) {
			cfg := c.cfg
			cfg.Map, cfg.Movement, cfg.Weapons, cfg.MaxClients, cfg.Shots = m, &params, hitscan, 12, shots
			cfg.Rules = lkshooter.Rules(mode.Config{Mode: mode.TDM})
			cfg.Spawn = loadout
			link := netem.Config{Latency: c.latency, Jitter: 5 * time.Millisecond, Loss: 0.02}
			d, err := sim.NewBots(sim.Bots{
				Server: cfg, Players: 12, Up: link, Down: link,
				Policy: bots.Shooter(func(i int) bots.Config { return bots.Config{Skill: 0.8, Attacker: i%4 != 3} }, m, grid, &params, &hitscan[0]),
			}, 7)
			if err != nil {
				t.Fatal(err)
			}
			var l shotLog
			d.Run(20*time.Second, &l)
			return d.Server.StateHash(), &l
		}
		h1, l1 := run(nil)
		h2, l2 := run(seamRifles{weapons: hitscan, params: &params})
		// What each case exercises: hits and kills, and the path it
		// is there for.
		hits, appealed, present, adjusted, warped := 0, 0, 0, 0, 0
		for _, r := range l1.shots {
			if r.Registered {
				hits++
			}
			if r.Appealed {
				appealed++
			}
			if r.Hit && !r.Rewound && r.Tested == r.Time && r.RewindMS == 0 && r.RollbackM == 0 && r.Time > 2*time.Second {
				present++
			}
			if r.Scaled || r.Assisted {
				adjusted++
			}
			if r.Warped {
				warped++
			}
		}
		t.Logf("%s: %d pellets, %d hits registered, %d kills; %d appealed, %d judged at the present, %d adjusted, %d warped",
			c.name, len(l1.shots), hits, len(l1.kills), appealed, present, adjusted, warped)
		want := map[string]int{"clc-cap": present, "alc": appealed, "timewarp": warped, "adjustments": adjusted}
		if n, ok := want[c.name]; hits == 0 || len(l1.kills) == 0 || ok && n == 0 {
			t.Fatalf("%s: the match shows nothing of what it is for", c.name)
		}
		if h1 != h2 || len(l1.shots) != len(l2.shots) || len(l1.kills) != len(l2.kills) || l1.bytes != l2.bytes {
			t.Fatalf("%s: WeaponShots %s (%d records, %d kills, %d bytes sent), the seam's resolver %s (%d, %d, %d)",
				c.name, h1, len(l1.shots), len(l1.kills), l1.bytes, h2, len(l2.shots), len(l2.kills), l2.bytes)
		}
		for i := range l1.shots {
			if fmt.Sprint(l1.shots[i]) != fmt.Sprint(l2.shots[i]) {
				t.Fatalf("%s: record %d differs:\n%+v\n%+v", c.name, i, l1.shots[i], l2.shots[i])
			}
		}
	}
}

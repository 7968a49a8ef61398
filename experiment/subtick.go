package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// The sub-tick experiment's setting: bots drawing at a fast display's
// rate, at a round trip of a good connection.
const (
	subtickFrameHz = 144
	subtickRTTms   = 60
	subtickBots    = 4
	// subtickFlick is the crosshair speed, in degrees a second, from
	// which a press counts as a flick shot: clicked as the crosshair
	// swept across the target, where the aim at the tick after differs
	// most from the aim at the press.
	subtickFlick = 100
)

func subtickName(sub bool, hz int) string {
	if sub {
		return fmt.Sprintf("subtick_%dhz", hz)
	}
	return fmt.Sprintf("tick_%dhz", hz)
}

var _ = register(&Experiment{
	Name:  "subtick",
	Title: "What does sub-tick input buy?",
	Design: fmt.Sprintf("Free-for-all on arena, %d bots at %d ms round trip under tlc, each aiming and "+
		"firing at %d frames a second between server ticks: the crosshair flicks to the target along "+
		"an under-damped spring and the bot taps the trigger at the frame it comes onto its aim point. "+
		"With sub-tick input the press rides the next command with its instant, aim and view time, "+
		"and the server traces that aim from the eye at the press, rewound to the press's view time "+
		"(as Counter-Strike 2's sub-tick commands); without it the press waits for the tick and fires "+
		"with the aim and view time at the tick. Server ticks of 20 and 64 Hz. Each seed is played "+
		"under every condition. view_time_error_ms is the distance between the view time at the "+
		"press and the time the server's hit test ran at; aim_error_deg the angle between the aim at "+
		"the press and the aim the server traced; both over every shot fired by a press. Flick shots "+
		"are those pressed while the crosshair swept at %d degrees a second or more.",
		subtickBots, subtickRTTms, subtickFrameHz, subtickFlick),
	Cells: func(quick bool) []Cell {
		reps, minutes := 20, 10
		if quick {
			reps, minutes = 4, 4
		}
		var cells []Cell
		for rep := range reps {
			for _, hz := range []int{20, 64} {
				for _, sub := range []bool{false, true} {
					cells = append(cells, Cell{Index: len(cells), Condition: subtickName(sub, hz), Replicate: rep,
						Params: map[string]any{"tick_hz": hz, "subtick": sub, "frame_hz": subtickFrameHz, "rtt_ms": subtickRTTms,
							"policy": "tlc", "map": "arena", "mode": "ffa", "bots": subtickBots, "minutes": minutes}})
				}
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		sub, _ := c.Params["subtick"].(bool)
		return playSubtick(int(param(c, "tick_hz")), sub, time.Duration(param(c, "minutes")*float64(time.Minute)), c.Seed)
	},
	Summarise: func(r *Results, cells []CellResult) {
		g := group(cells)
		tbl := Table{Name: "subtick", Title: fmt.Sprintf("Taps at %d Hz frames, with and without sub-tick input", subtickFrameHz),
			Columns: []string{"condition", "tick_hz", "subtick", "shots", "hit_accuracy", "hit_accuracy_ci95",
				"view_time_error_ms", "aim_error_deg", "flick_shots", "flick_accuracy", "flick_aim_error_deg", "prediction_error_max_m"}}
		for _, name := range g.names {
			c0 := g.cells[name][0].Cell
			shots := g.sum(name, "shots")
			pressed := g.sum(name, "pressed_shots")
			predMax := 0.0
			for _, c := range g.cells[name] {
				predMax = max(predMax, c.Metrics["prediction_error_max_m"])
			}
			met := map[string]float64{
				"shots": shots, "hits": g.sum(name, "hits"), "hit_accuracy": g.ratio(name, "hits", "shots"),
				"pressed_shots":          pressed,
				"view_time_error_ms":     safeDiv(weighted(g, name, "view_time_error_ms", "timed_shots"), g.sum(name, "timed_shots")),
				"aim_error_deg":          safeDiv(weighted(g, name, "aim_error_deg", "pressed_shots"), pressed),
				"flick_shots":            g.sum(name, "flick_shots"),
				"flick_accuracy":         g.ratio(name, "flick_hits", "flick_shots"),
				"flick_aim_error_deg":    safeDiv(weighted(g, name, "flick_aim_error_deg", "flick_shots"), g.sum(name, "flick_shots")),
				"prediction_error_max_m": predMax,
			}
			r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), met))
			tbl.Rows = append(tbl.Rows, []string{name, fnum(param(c0, "tick_hz")), fmt.Sprint(c0.Params["subtick"]), fnum(shots),
				fnum(met["hit_accuracy"]), fnum(g.ci(name, "hit_accuracy")), fnum(met["view_time_error_ms"]),
				fnum(met["aim_error_deg"]), fnum(met["flick_shots"]), fnum(met["flick_accuracy"]), fnum(met["flick_aim_error_deg"]), fnum(predMax)})
		}
		r.Tables = append(r.Tables, tbl)
		for _, hz := range []int{20, 64} {
			a, b := subtickName(false, hz), subtickName(true, hz)
			pairedTests(r, g, "hit_accuracy", "hit_accuracy", a, b)
			pairedTests(r, g, "flick_accuracy", "flick_accuracy", a, b)
		}
		r.Plots = append(r.Plots, Plot{Name: "subtick_accuracy", Title: "Hit accuracy with and without sub-tick input", Kind: "bar",
			Table: "subtick", X: "condition", Y: "hit_accuracy", YErr: "hit_accuracy_ci95", XLabel: "condition", YLabel: "hit accuracy"})
	},
})

// playSubtick plays one cell: a free-for-all of bots aiming at frame
// rate, with or without sub-tick input, at server tick rate hz.
func playSubtick(hz int, sub bool, dur time.Duration, seed uint64) (CellResult, error) {
	m, err := world.Load("arena")
	if err != nil {
		return CellResult{}, err
	}
	params, rifle := game.DefaultParams(), weapon.Rifle()
	grid, err := nav.Build(m, &params)
	if err != nil {
		return CellResult{}, err
	}
	seeds := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	tick := game.TickDuration(hz)
	link := netem.Config{Latency: subtickRTTms * time.Millisecond / 2}
	obs := &subtickObserver{presses: map[subtickKey]bots.PressRecord{}, life: make([]uint16, subtickBots)}
	players := make([]sim.PlayerConfig, subtickBots)
	// lagkit's bot through its Maker; the observer reads each bot's
	// presses, so the design plays lagkit's bot alone (Experiment.Bots
	// is false).
	makeBot := bots.Shooter(func(int) bots.Config { return bots.Config{FrameRate: subtickFrameHz, SubTick: sub} }, m, grid, &params, &rifle)
	for i := range players {
		p, err := makeBot(i, seeds.Uint64())
		if err != nil {
			return CellResult{}, err
		}
		b := p.(*bots.Bot)
		obs.bots = append(obs.bots, b)
		players[i] = sim.PlayerConfig{
			Client: client.Config{Name: fmt.Sprintf("bot%d", i)}, Up: link, Down: link, Brain: b,
			JoinAt: time.Duration(i) * 20 * time.Millisecond, Phase: time.Duration(seeds.Int64N(int64(tick))),
		}
	}
	scfg := server.Config{
		Map: m, TickRate: hz, MaxClients: subtickBots, Movement: &params,
		Seed: seed, Policy: lagcomp.Config{Name: "tlc"}, Rules: shooter.Rules(mode.Config{Mode: mode.FFA, Duration: dur}),
	}
	if err := sim.ArmShooter(&scfg, players, nil); err != nil {
		return CellResult{}, err
	}
	d, err := sim.NewDriver(scfg, players, seeds.Uint64())
	if err != nil {
		return CellResult{}, err
	}
	wall := time.Now()
	d.Run(dur, obs)
	res := CellResult{Metrics: obs.metrics(), WallS: time.Since(wall).Seconds()}
	return res, nil
}

// subtickKey names a shot: its shooter's slot and command.
type subtickKey struct {
	shooter int
	tick    uint32
}

// subtickObserver collects the bots' presses, the server's shot records
// and the clients' prediction errors.
type subtickObserver struct {
	bots    []*bots.Bot
	presses map[subtickKey]bots.PressRecord
	records []server.ShotRecord
	predMax float64
	// life is each player's Teleport and dead flag as last predicted:
	// a death or a respawn is the server changing the player, not a
	// prediction error, and the errors it brings are left out.
	life []uint16
}

func (o *subtickObserver) Delivered(_ time.Duration, i int, p *sim.Player, r *client.Ready) {
	st := p.Client.Predicted()
	life := uint16(st.Teleport)<<1 | uint16(st.Flags&game.FlagDead)>>3
	errs := r.PredictionErrors
	if life != o.life[i] {
		o.life[i] = life
		return
	}
	for _, e := range errs {
		o.predMax = max(o.predMax, e)
	}
}

func (o *subtickObserver) Ticked(_ time.Duration, i int, p *sim.Player, _ *client.Ready) {
	for _, pr := range o.bots[i].Presses() {
		o.presses[subtickKey{p.Client.ID(), pr.Tick}] = pr
	}
}

func (o *subtickObserver) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	o.records = append(o.records, r.Shots...)
}

func (o *subtickObserver) ServerTicked(time.Duration, *server.Server) {}

// metrics sums up the cell: accuracy over every shot; the view time and
// aim errors over the shots fired by a press (the view time error only
// over shots the server rewound, as tlc does once it has measured the
// shooter's round trip).
func (o *subtickObserver) metrics() map[string]float64 {
	var shots, hits, pressed, timed, flicks, flickHits int
	var timeErr, aimErr, flickErr float64
	for _, r := range o.records {
		shots++
		if r.Hit {
			hits++
		}
		p, ok := o.presses[subtickKey{r.Shooter, r.ShotTick}]
		if !ok {
			continue
		}
		pressed++
		a, b := game.AimDir(p.Yaw, p.Pitch), game.AimDir(r.Yaw, r.Pitch)
		e := math.Acos(math.Max(-1, math.Min(1, a.Dot(b)))) * 180 / math.Pi
		aimErr += e
		if p.Speed >= subtickFlick {
			flicks++
			flickErr += e
			if r.Hit {
				flickHits++
			}
		}
		if r.Rewound {
			timed++
			timeErr += math.Abs(float64(r.Tested-p.ViewTime)) / float64(time.Millisecond)
		}
	}
	return map[string]float64{
		"shots": float64(shots), "hits": float64(hits), "hit_accuracy": safeDiv(float64(hits), float64(shots)),
		"pressed_shots": float64(pressed), "timed_shots": float64(timed),
		"view_time_error_ms": safeDiv(timeErr, float64(timed)),
		"aim_error_deg":      safeDiv(aimErr, float64(pressed)),
		"flick_shots":        float64(flicks), "flick_hits": float64(flickHits),
		"flick_accuracy":         safeDiv(float64(flickHits), float64(flicks)),
		"flick_aim_error_deg":    safeDiv(flickErr, float64(flicks)),
		"prediction_error_max_m": o.predMax,
	}
}

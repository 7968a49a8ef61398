package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
)

// delayCondition is one compensation condition of the delay study.
type delayCondition struct {
	name       string
	mode       string
	adaptation time.Duration
	// variant marks lagkit's earlier design: the proximity trigger alone,
	// and snapshots held as well as inputs.
	variant bool
}

// delayVariant prefixes the earlier design's conditions.
const delayVariant = "prox-snap-"

// delayConditions are the study's conditions: no compensation, regular
// delay, and adaptive delay with 0, 1 and 2 s adaptation, as the study
// ran them (adaptive delay triggered by proximity or field of view,
// inputs held, snapshots not); then, in the one-on-one 150 ms block
// only, the same delays in lagkit's earlier design (proximity alone,
// inputs and snapshots held), kept as a variant.
var delayConditions = []delayCondition{
	{"none", delay.None, 0, false},
	{"delay", delay.Regular, 0, false},
	{"adaptive-0s", delay.Adaptive, 0, false},
	{"adaptive-1s", delay.Adaptive, time.Second, false},
	{"adaptive-2s", delay.Adaptive, 2 * time.Second, false},
	{delayVariant + "delay", delay.Regular, 0, true},
	{delayVariant + "adaptive-0s", delay.Adaptive, 0, true},
	{delayVariant + "adaptive-1s", delay.Adaptive, time.Second, true},
	{delayVariant + "adaptive-2s", delay.Adaptive, 2 * time.Second, true},
}

// delayConfig is the time delay of a condition.
func delayConfig(dc delayCondition) delay.Config {
	if dc.variant {
		return delay.Config{Mode: dc.mode, Trigger: delay.Proximity, Adaptation: dc.adaptation}
	}
	return delay.Config{Mode: dc.mode, Trigger: delay.ProximityOrFOV, Adaptation: dc.adaptation, InputsOnly: true}
}

// Settings of the delay study's matches.
const (
	delayBaseRTT = 20  // ms, the low-latency players
	delaySkill   = 0.8 // bots aim well, so latency rather than aim error decides
)

// delayLayout is one match layout of the study: one-on-one as the study
// played it, or a team version.
type delayLayout struct {
	name string
	mode mode.Kind
	bots int
}

var (
	oneOnOne = delayLayout{"1v1", mode.FFA, 2}
	teams    = delayLayout{"4v4", mode.TDM, 8}
)

// delayName names a condition of the design: layout, the high-latency
// players' round trip and the compensation.
func delayName(l delayLayout, rttMS int, cond string) string {
	return fmt.Sprintf("%s-%dms-%s", l.name, rttMS, cond)
}

var delayExperiment = register(&Experiment{
	Bots:  true,
	Name:  "delay",
	Title: "Time delay and adaptive time delay: fairness against responsiveness",
	Design: "One-on-one deathmatch on arena (2 bots, as in the adaptive time delay study) with one " +
		"player at 20 ms round trip and the opponent at 50, 100 or 150 ms, and a team version " +
		"(4 v 4 team deathmatch on arena, half of each team at 150 ms, the rest at 20 ms). " +
		"Conditions, as the study ran them: no compensation, regular delay (every player's inputs " +
		"held by the highest one-way latency minus its own; snapshots are not held), and adaptive " +
		"delay (the same, only while an enemy is within 20 m, until beyond 25 m, or either sees " +
		"the other) with 0, 1 and 2 s adaptation. The variant prox-snap-* (one-on-one at 150 ms " +
		"only) is lagkit's earlier design: adaptive delay on proximity alone, and snapshots held " +
		"as well as inputs. delay_fire_hold_ms is the mean hold the low-latency players' trigger " +
		"presses got on arrival. The " +
		"report names no latency compensation in its game besides time delay (combining techniques is its future " +
		"work, section 7.3), and lagkit adds none: every condition runs with policy none, so a " +
		"shot is tested against the present, and a shooter's effective lag is its round trip " +
		"plus the interpolation delay plus any added delay. Bots at skill 0.8 carry the rifle " +
		"(the study's one-hit weapon and paint tiles are not modelled). accuracy_gap is the " +
		"low-latency players' pooled hit accuracy minus the high-latency players', kill_gap " +
		"their kills per player per match minus the others'; input_to_effect_ms is the mean " +
		"time from a new input (a press or release) to the server applying it: the uplink's " +
		"one-way latency plus the server's measured wait. delay_active_share is the share of " +
		"time a delay was added to the low-latency players. Replicates share seeds across " +
		"conditions and tests pair them by seed. --quick plays fewer and shorter matches " +
		"(about a minute on two cores): 16 five-minute one-on-one matches per condition at " +
		"150 ms, 3 three-minute ones at 50 and 100 ms, and 2 three-minute team matches; its " +
		"accuracy figures are correspondingly noisy.",
	Cells: func(quick bool) []Cell {
		type block struct {
			layout        delayLayout
			rtt           int
			reps, minutes int
		}
		blocks := []block{
			{oneOnOne, 50, 10, 5}, {oneOnOne, 100, 10, 5}, {oneOnOne, 150, 20, 5}, {teams, 150, 6, 5},
		}
		if quick {
			blocks = []block{
				{oneOnOne, 50, 3, 3}, {oneOnOne, 100, 3, 3}, {oneOnOne, 150, 16, 5}, {teams, 150, 2, 3},
			}
		}
		var cells []Cell
		for _, b := range blocks {
			for rep := range b.reps {
				for _, dc := range delayConditions {
					if dc.variant && (b.layout != oneOnOne || b.rtt != 150) {
						continue
					}
					cfg := delayConfig(dc)
					cells = append(cells, Cell{
						Index: len(cells), Condition: delayName(b.layout, b.rtt, dc.name), Replicate: rep,
						Params: map[string]any{
							"layout": b.layout.name, "map": "arena", "mode": string(b.layout.mode), "bots": b.layout.bots,
							"base_rtt_ms": delayBaseRTT, "high_rtt_ms": b.rtt, "delay": dc.mode,
							"adaptation_s": dc.adaptation.Seconds(), "trigger": cfg.Trigger, "inputs_only": cfg.InputsOnly,
							"policy": "none", "skill": delaySkill, "minutes": b.minutes,
						},
					})
				}
			}
		}
		return cells
	},
	RunCell:   runDelayCell,
	Summarise: summariseDelay,
})

// runDelayCell plays one match of the delay study and measures it by
// latency group.
func runDelayCell(c Cell) (CellResult, error) {
	layout := oneOnOne
	if c.Params["layout"] == teams.name {
		layout = teams
	}
	high := param(c, "high_rtt_ms")
	cfg := match.Config{
		Map: "arena", Mode: layout.mode, Bots: layout.bots, Seed: c.Seed, BotPolicy: c.Bots,
		Duration:  time.Duration(param(c, "minutes") * float64(time.Minute)),
		Policy:    lagcomp.Config{Name: "none"},
		BaseRTTms: delayBaseRTT, Skill: param(c, "skill"),
		Delay: delay.Config{
			Mode:       c.Params["delay"].(string),
			Trigger:    c.Params["trigger"].(string),
			Adaptation: time.Duration(param(c, "adaptation_s") * float64(time.Second)),
			InputsOnly: c.Params["inputs_only"] == true,
		},
	}
	if layout == oneOnOne {
		cfg.Latency = map[int]float64{1: high}
	} else {
		cfg.HighPingFraction, cfg.HighPingMS = 0.5, high
	}
	res, err := match.Run(cfg, nil)
	if err != nil {
		return CellResult{}, err
	}
	return CellResult{Metrics: delayMetrics(res), Series: playerSeries(res)}, nil
}

// delayMetrics sums a match up by latency group: players at the base
// round trip are "low", the others "high".
func delayMetrics(res *match.Result) map[string]float64 {
	m := map[string]float64{}
	for _, p := range res.Players {
		g := "high"
		if p.RTTms <= delayBaseRTT {
			g = "low"
		}
		m["players_"+g]++
		m["shots_"+g] += float64(p.Shots)
		m["hits_"+g] += float64(p.Hits)
		m["kills_"+g] += float64(p.Kills)
		m["input_to_effect_ms_"+g] += p.InputToEffectMS
		m["delay_active_share_"+g] += p.DelayActiveShare
		m["delay_mean_ms_"+g] += p.DelayMeanMS
		m["delay_fire_hold_ms_"+g] += p.DelayFireHoldMS
	}
	for _, g := range []string{"low", "high"} {
		n := m["players_"+g]
		for _, k := range []string{"input_to_effect_ms_", "delay_active_share_", "delay_mean_ms_", "delay_fire_hold_ms_"} {
			m[k+g] = safeDiv(m[k+g], n)
		}
		m["hit_accuracy_"+g] = safeDiv(m["hits_"+g], m["shots_"+g])
		m["kills_per_player_"+g] = safeDiv(m["kills_"+g], n)
	}
	m["accuracy_gap"] = m["hit_accuracy_low"] - m["hit_accuracy_high"]
	m["kill_gap"] = m["kills_per_player_low"] - m["kills_per_player_high"]
	return m
}

func summariseDelay(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "delay_conditions", Title: "Per condition (accuracy pooled over matches, the rest mean per match)",
		Columns: []string{"condition", "layout", "high_rtt_ms", "compensation", "hit_accuracy_low", "hit_accuracy_high",
			"accuracy_gap", "accuracy_gap_ci95", "kill_gap", "input_to_effect_ms_low", "input_to_effect_ms_high",
			"delay_active_share_low", "delay_mean_ms_low", "delay_fire_hold_ms_low"}}
	for _, name := range g.names {
		accLow, accHigh := g.ratio(name, "hits_low", "shots_low"), g.ratio(name, "hits_high", "shots_high")
		met := map[string]float64{
			"hit_accuracy_low":        accLow,
			"hit_accuracy_high":       accHigh,
			"accuracy_gap":            accLow - accHigh,
			"kill_gap":                g.mean(name, "kill_gap"),
			"input_to_effect_ms_low":  g.mean(name, "input_to_effect_ms_low"),
			"input_to_effect_ms_high": g.mean(name, "input_to_effect_ms_high"),
			"delay_active_share_low":  g.mean(name, "delay_active_share_low"),
			"delay_mean_ms_low":       g.mean(name, "delay_mean_ms_low"),
			"delay_fire_hold_ms_low":  g.mean(name, "delay_fire_hold_ms_low"),
			"shots_low":               g.sum(name, "shots_low"),
			"shots_high":              g.sum(name, "shots_high"),
		}
		r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), met))
		c0 := g.cells[name][0].Cell
		tbl.Rows = append(tbl.Rows, []string{name, fmt.Sprint(c0.Params["layout"]), fnum(param(c0, "high_rtt_ms")),
			compensation(name), fnum(accLow), fnum(accHigh), fnum(accLow - accHigh), fnum(g.ci(name, "accuracy_gap")),
			fnum(met["kill_gap"]), fnum(met["input_to_effect_ms_low"]), fnum(met["input_to_effect_ms_high"]),
			fnum(met["delay_active_share_low"]), fnum(met["delay_mean_ms_low"]), fnum(met["delay_fire_hold_ms_low"])})
	}
	r.Tables = append(r.Tables, tbl)
	// Against no compensation: fairness (accuracy and kill gaps) and the
	// low-latency players' responsiveness; adaptive against regular
	// delay: responsiveness.
	for _, name := range g.names {
		if !strings.HasSuffix(name, "-none") {
			continue
		}
		prefix := strings.TrimSuffix(name, "none")
		for _, dc := range delayConditions[1:] {
			b := prefix + dc.name
			if len(g.cells[b]) == 0 {
				continue
			}
			pairedTests(r, g, "accuracy_gap", "accuracy_gap", name, b)
			pairedTests(r, g, "kill_gap", "kill_gap", name, b)
			if dc.mode == delay.Adaptive {
				regular := prefix + "delay"
				if dc.variant {
					regular = prefix + delayVariant + "delay"
				}
				pairedTests(r, g, "input_to_effect_ms_low", "input_to_effect_ms_low", regular, b)
			}
		}
		// Adaptation time: the study found 0 s lowered the low-latency
		// player's accuracy against 1 s (section 4.3, Figure 19d).
		for _, v := range []string{"", delayVariant} {
			a, b := prefix+v+"adaptive-0s", prefix+v+"adaptive-1s"
			if len(g.cells[a]) > 0 && len(g.cells[b]) > 0 {
				pairedTests(r, g, "hit_accuracy_low", "hit_accuracy_low", a, b)
				pairedTests(r, g, "delay_fire_hold_ms_low", "delay_fire_hold_ms_low", a, b)
			}
		}
	}
	r.Plots = append(r.Plots,
		Plot{Name: "delay_accuracy_gap", Title: "Accuracy gap between latency groups (low minus high)", Kind: "bar",
			Table: "delay_conditions", X: "condition", Y: "accuracy_gap", YErr: "accuracy_gap_ci95", XLabel: "condition", YLabel: "accuracy gap"},
		Plot{Name: "delay_input_to_effect", Title: "Low-latency players' input-to-effect time", Kind: "bar",
			Table: "delay_conditions", X: "condition", Y: "input_to_effect_ms_low", XLabel: "condition", YLabel: "ms"},
	)
}

// compensation returns the compensation part of a condition's name.
func compensation(name string) string {
	best := name
	for _, dc := range delayConditions {
		if strings.HasSuffix(name, "-"+dc.name) && (best == name || len(dc.name) > len(best)) {
			best = dc.name
		}
	}
	return best
}

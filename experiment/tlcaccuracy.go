package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
)

// The thesis's CS:GO experiment on tlc ([lee-thesis], chapter 4, Table
// 4.1), as tlc-accuracy's default design mirrors it.
const (
	// tlcPlayerRTT is the one lagged player's ping, 150 ms (Table 4.1);
	// its teammates and opponents are server-side bots, at 0 ms.
	tlcPlayerRTT = 150
	// tlcInterp is the interpolation period, 0.015625 s (Table 4.1: the
	// least CS:GO allows, one tick at 64 Hz).
	tlcInterp = 15625 * time.Microsecond
	// tlcMinutes is a scenario's length, 5 minutes (chapter 4).
	tlcMinutes = 5
	// tlcPlayers is 5 v 5: one player with four bots against five.
	tlcPlayers = 10
	// tlcMap stands in for de_dust2: arena, the largest shipped map
	// (docs/references.md, [dust2]).
	tlcMap = "arena"
	// tlcWeapon is the hitscan p250 (docs/references.md, [p250]).
	tlcWeapon = "p250"
)

// tlcVariantPrefix names the conditions of the earlier design, kept as a
// variant: 12 bots all at 150 ms with the rifle in team deathmatch on
// metro, 100 ms interpolation, 10-minute matches.
const tlcVariantPrefix = "metro12-"

var _ = register(&Experiment{
	Bots:  true,
	Name:  "tlc-accuracy",
	Title: "Does rewinding help shooters hit?",
	Design: "The thesis's CS:GO experiment ([lee-thesis], chapter 4): one lagged player (slot 0, 150 ms round " +
		"trip) with four bots against five bots, all the others at 0 ms as CS:GO's server-side bots are; team " +
		"deathmatch on arena (the largest shipped map, standing in for de_dust2), the hitscan p250 pistol only " +
		"(the P250's published figures), a 15.625 ms interpolation period at 64 Hz, 5-minute matches. Each seed " +
		"is played with no lag compensation (none: shots are tested against the present, so the lagged player " +
		"must lead its target by its latency) and with traditional lag compensation (tlc); player_accuracy is the " +
		"lagged player's hit accuracy, compared per seed with a paired t-test and a Wilcoxon signed-rank test, as " +
		"the thesis compared its four players. The variant metro12-none and metro12-tlc is lagkit's earlier " +
		"design: 12 bots all at 150 ms, team deathmatch on metro, the rifle, 100 ms interpolation, 10-minute " +
		"matches, compared per player (seed and slot). --quick plays 3-minute matches, fewer seeds.",
	Cells: func(quick bool) []Cell {
		reps, minutes := 24, tlcMinutes
		vreps, vminutes := 6, 10
		if quick {
			reps, minutes = 8, 3
			vreps, vminutes = 2, 3
		}
		var cells []Cell
		for rep := range reps {
			for _, p := range []string{"none", "tlc"} {
				cells = append(cells, Cell{Index: len(cells), Condition: p, Replicate: rep,
					Params: map[string]any{"design": "source", "policy": p, "player_rtt_ms": tlcPlayerRTT, "bots_rtt_ms": 0,
						"map": tlcMap, "mode": "tdm", "bots": tlcPlayers, "weapon": tlcWeapon,
						"interp_ms": tlcInterp.Seconds() * 1000, "minutes": minutes}})
			}
		}
		for rep := range vreps {
			for _, p := range []string{"none", "tlc"} {
				cells = append(cells, Cell{Index: len(cells), Condition: tlcVariantPrefix + p, Replicate: rep,
					Params: map[string]any{"design": "metro12", "policy": p, "rtt_ms": 150, "map": "metro", "mode": "tdm",
						"bots": 12, "weapon": "rifle", "interp_ms": 100, "minutes": vminutes}})
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		policy := strings.TrimPrefix(c.Condition, tlcVariantPrefix)
		dur := time.Duration(param(c, "minutes") * float64(time.Minute))
		if c.Params["design"] == "metro12" {
			return playMatch(match.Config{
				Map: "metro", Mode: mode.TDM, Bots: 12, Seed: c.Seed, BotPolicy: c.Bots, BaseRTTms: 150,
				Duration: dur, Policy: lagcomp.Config{Name: policy},
			})
		}
		res, err := match.Run(match.Config{
			Map: tlcMap, Mode: mode.TDM, Bots: tlcPlayers, Seed: c.Seed, BotPolicy: c.Bots,
			Latency: map[int]float64{0: tlcPlayerRTT}, InterpDelay: tlcInterp,
			Loadout: []string{tlcWeapon}, Duration: dur, Policy: lagcomp.Config{Name: policy},
		}, nil)
		if err != nil {
			return CellResult{}, err
		}
		m := matchMetrics(res)
		p := res.Players[0]
		m["player_shots"], m["player_hits"] = float64(p.Shots), float64(p.Hits)
		m["player_accuracy"] = p.HitAccuracy
		return CellResult{Metrics: m, Series: playerSeries(res)}, nil
	},
	Summarise: summariseTLCAccuracy,
	Published: []Reference{
		{Metric: "player_accuracy", Condition: "none", Value: 0.216, Source: "lee-thesis", Why: tlcWhy,
			Location: "chapter 4, Table 4.2 (scenario 2)", Printed: "21.6%", Unit: "fraction of shots that hit", Check: Verified,
			Detail: "mean shooting accuracy of the four players with lag compensation off (scenario 2), each player alone " +
				"with four bots against five bots on de_dust2, P250 pistol only, 150 ms ping, 5-minute scenarios"},
		{Metric: "player_accuracy", Condition: "tlc", Value: 0.263, Source: "lee-thesis", Why: tlcWhy,
			Location: "chapter 4, Table 4.2 (scenario 1)", Printed: "26.3%", Unit: "fraction of shots that hit", Check: Verified,
			Detail: "mean shooting accuracy of the same four players with lag compensation on (scenario 1); a paired t-test " +
				"over the four found the rise significant (section 4.1: p < 0.05)"},
	},
})

// summariseTLCAccuracy sums up both designs: the source's, by the lagged
// player's accuracy paired by seed, and the variant, by every player's
// accuracy paired by seed and slot.
func summariseTLCAccuracy(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "tlc_accuracy", Title: "Hit accuracy at 150 ms",
		Columns: []string{"condition", "design", "policy", "measured", "shots", "hits", "hit_accuracy", "hit_accuracy_mean", "hit_accuracy_ci95"}}
	for _, name := range g.names {
		policy := strings.TrimPrefix(name, tlcVariantPrefix)
		if policy != name {
			acc := g.ratio(name, "hits", "shots")
			r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), map[string]float64{
				"shots": g.sum(name, "shots"), "hits": g.sum(name, "hits"), "hit_accuracy": acc,
			}))
			tbl.Rows = append(tbl.Rows, []string{name, "metro12", policy, "all 12 players, pooled", fnum(g.sum(name, "shots")),
				fnum(g.sum(name, "hits")), fnum(acc), fnum(g.mean(name, "hit_accuracy")), fnum(g.ci(name, "hit_accuracy"))})
			continue
		}
		// The thesis's mean is over its players' accuracies, one a
		// scenario: ours over the lagged player's, one a seed.
		mean := g.mean(name, "player_accuracy")
		r.Conditions = append(r.Conditions, g.condition(name, "matches (one lagged player each)", len(g.cells[name]), map[string]float64{
			"player_shots": g.sum(name, "player_shots"), "player_hits": g.sum(name, "player_hits"),
			"player_accuracy":        mean,
			"player_accuracy_pooled": g.ratio(name, "player_hits", "player_shots"),
			"bots_accuracy":          safeDiv(g.sum(name, "hits")-g.sum(name, "player_hits"), g.sum(name, "shots")-g.sum(name, "player_shots")),
		}))
		tbl.Rows = append(tbl.Rows, []string{name, "source", policy, "the lagged player", fnum(g.sum(name, "player_shots")),
			fnum(g.sum(name, "player_hits")), fnum(g.ratio(name, "player_hits", "player_shots")), fnum(mean),
			fnum(g.ci(name, "player_accuracy"))})
	}
	r.Tables = append(r.Tables, tbl)
	if len(g.cells["none"]) > 0 {
		pairedTests(r, g, "player_accuracy", "player_accuracy", "none", "tlc")
	}
	// The variant, per player: the same slot of the same seed under both
	// policies.
	var xa, xb []float64
	for _, a := range g.cells[tlcVariantPrefix+"none"] {
		for _, b := range g.cells[tlcVariantPrefix+"tlc"] {
			if a.Cell.Replicate == b.Cell.Replicate {
				pa, pb := a.Series["hit_accuracy"], b.Series["hit_accuracy"]
				for i := range min(len(pa), len(pb)) {
					xa, xb = append(xa, pa[i]), append(xb, pb[i])
				}
			}
		}
	}
	sortPaired(xa, xb)
	AddPaired(r, "hit_accuracy", tlcVariantPrefix+"none", tlcVariantPrefix+"tlc", xa, xb, "paired by player (seed and slot)")
	r.Plots = append(r.Plots, Plot{Name: "tlc_accuracy", Title: "Hit accuracy at 150 ms (the source's design: the lagged player, mean over seeds)", Kind: "bar",
		Table: "tlc_accuracy", X: "condition", Y: "hit_accuracy_mean", YErr: "hit_accuracy_ci95", XLabel: "condition", YLabel: "hit accuracy"})
}

// tlcWhy says why a rerun with bots can differ from the thesis's CS:GO
// experiment on tlc.
var tlcWhy = fmt.Sprintf("The thesis's figures come from four people, each the only person in a CS:GO match (four bots on "+
	"his team, five against him) on de_dust2 with only the P250 pistol, one 5-minute scenario each; ours from one of "+
	"lagkit's bots at %d ms among nine at 0 ms, on arena (smaller than de_dust2 and without its corridors), with a "+
	"hitscan pistol carrying the P250's published damage, rate and magazine but lagkit's own spread; lagkit's bots aim, "+
	"react and move by rule, unlike people (and unlike CS:GO's bots), so a rerun matches the thesis's direction more "+
	"than its values.", tlcPlayerRTT)

package experiment

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestTimeWarpTiny runs a small cost cell and two short accuracy cells
// and sums them up.
func TestTimeWarpTiny(t *testing.T) {
	e, err := Get("timewarp")
	if err != nil {
		t.Fatal(err)
	}
	cost, err := warpCost(10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if cost.Metrics["ticks_rewind300"] != 19 || !(cost.Metrics["warp_us_rewind300"] > cost.Metrics["warp_us_rewind0"]) {
		t.Fatalf("cost metrics %v: want 19 ticks re-run at 300 ms, dearer than no warp", cost.Metrics)
	}
	cost.Cell = Cell{Condition: "cost_entities10", Params: map[string]any{"part": "cost", "entities": 10}}
	cells := []CellResult{cost}
	for _, comp := range []string{"none", "timewarp", "timewarp-hitscan"} {
		c := Cell{Condition: warpCondition("rifle", 150, comp), Seed: 3,
			Params: map[string]any{"part": "accuracy", "weapon": "rifle", "rtt_ms": 150, "compensation": comp, "seconds": 20}}
		r, err := e.RunCell(c)
		if err != nil {
			t.Fatal(err)
		}
		if r.Metrics["shots_high"] == 0 || len(r.Series["hit_accuracy_high"]) != 4 || len(r.Series["hit_accuracy_low"]) != 4 {
			t.Fatalf("%s: metrics %v, series %v: want shots by the 4 high-ping and 4 LAN players", comp, r.Metrics, r.Series)
		}
		r.Cell = c
		cells = append(cells, r)
	}
	res := Summarise(e, cells, Options{Seed: 3, Quick: true})
	var fitted bool
	for _, c := range res.Conditions {
		if c.Name == "cost_fit" {
			fitted = true
			if v := c.Metrics["cost_exponent_rewind_entities10"]; math.IsNaN(v) || v <= 0 {
				t.Fatalf("rewind exponent %v", v)
			}
		}
	}
	if !fitted || len(res.Tests) == 0 {
		t.Fatalf("summary: fitted %v, %d tests", fitted, len(res.Tests))
	}
	hitscanTested := false
	for _, tst := range res.Tests {
		if tst.A == warpCondition("rifle", 150, "none") && tst.B == warpCondition("rifle", 150, "timewarp-hitscan") {
			hitscanTested = true
		}
	}
	if !hitscanTested {
		t.Fatal("summary: no paired test of hitscan-only time warp against none")
	}
	if conds := warpConds("pistol"); len(conds) != len(warpConditions)-1 || slices.Contains(conds, "tlc") {
		t.Fatalf("pistol conditions %v: hitscan-only time warp warps no projectile, and tlc rewinds none", conds)
	}
	if conds := warpConds("rifle"); len(conds) != len(warpConditions)+len(warpHitscanConditions) {
		t.Fatalf("rifle conditions %v: want the hitscan-only ones too", conds)
	}
}

// TestTimeWarpLoad measures two small crowds: warps cost time, and the
// summary fits both arms and extrapolates a saturation.
func TestTimeWarpLoad(t *testing.T) {
	var cells []CellResult
	for _, n := range []int{5, 20} {
		r, err := warpLoad(n, 32)
		if err != nil {
			t.Fatal(err)
		}
		if !(r.Metrics["tick_us_nowarp"] > 0 && r.Metrics["tick_us_warp"] > 0 && r.Metrics["load_warp"] > 0) {
			t.Fatalf("%d players: metrics %v", n, r.Metrics)
		}
		r.Cell = Cell{Condition: fmt.Sprintf("load_players%d", n), Params: map[string]any{"part": "load", "players": n}}
		cells = append(cells, r)
	}
	e, _ := Get("timewarp")
	res := Summarise(e, cells, Options{Seed: 1, Quick: true})
	for _, c := range res.Conditions {
		if c.Name == "load_fit" {
			if v := c.Metrics["load_exponent_warp"]; math.IsNaN(v) || v <= 0 {
				t.Fatalf("load exponent %v", v)
			}
			return
		}
	}
	t.Fatal("no load_fit condition")
}

// TestTimingMedianOverRepeats: the design measures every timing cell
// several times, and the summary reports each fitted exponent and
// timing as the median over the repeats with their range, and how many
// repeats kept the load arms' order, so one disturbed measurement is
// neither the finding nor hidden.
func TestTimingMedianOverRepeats(t *testing.T) {
	e, _ := Get("timewarp")
	for _, quick := range []bool{false, true} {
		seen := map[string]map[int]bool{}
		for _, c := range e.Cells(quick) {
			if p := c.Params["part"]; p == "cost" || p == "load" {
				if seen[c.Condition] == nil {
					seen[c.Condition] = map[int]bool{}
				}
				seen[c.Condition][c.Replicate] = true
			}
		}
		want := map[bool]int{false: warpTimingRepeats, true: 3}[quick]
		for cond, reps := range seen {
			if len(reps) != want {
				t.Errorf("quick %v: %s measured %d times, want %d", quick, cond, len(reps), want)
			}
		}
	}
	var cells []CellResult
	exps := []float64{0.4, 1.0, 0.6}
	for rep, ex := range exps {
		for _, n := range warpEntities {
			m := map[string]float64{}
			for _, ms := range warpRewindsMS {
				m[fmt.Sprintf("warp_us_rewind%d", ms)] = (1 + float64(ms)) * math.Pow(float64(n), ex)
				m[fmt.Sprintf("ticks_rewind%d", ms)] = float64(ms) / 15.625
			}
			cells = append(cells, CellResult{Cell: Cell{Condition: fmt.Sprintf("cost_entities%d", n), Replicate: rep,
				Params: map[string]any{"part": "cost", "entities": n}}, Metrics: m})
		}
		for _, n := range []int{5, 50} {
			warp, nowarp := float64(n), float64(n)*1.1 // the warp arm the faster...
			if rep == 1 {
				warp, nowarp = nowarp, warp // ...but in one repeat
			}
			cells = append(cells, CellResult{Cell: Cell{Condition: fmt.Sprintf("load_players%d", n), Replicate: rep,
				Params: map[string]any{"part": "load", "players": n}}, Metrics: map[string]float64{"tick_us_warp": warp, "tick_us_nowarp": nowarp}})
		}
	}
	res := Summarise(e, cells, Options{Seed: 1})
	met := map[string]map[string]float64{}
	for _, c := range res.Conditions {
		met[c.Name] = c.Metrics
	}
	fitm := met["cost_fit"]
	for k, want := range map[string]float64{"cost_exponent_entities": 0.6, "cost_exponent_entities_min": 0.4, "cost_exponent_entities_max": 1.0} {
		if math.Abs(fitm[k]-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, fitm[k], want)
		}
	}
	if got := met["load_players50"]["repeats_warp_slower"]; got != 1 {
		t.Errorf("load_players50: warp arm slower in %v repeats, want 1 of 3", got)
	}
	if lf := met["load_fit"]; !(lf["load_exponent_warp_min"] <= lf["load_exponent_warp"] && lf["load_exponent_warp"] <= lf["load_exponent_warp_max"]) {
		t.Errorf("load_fit %v: want a median within its range", lf)
	}
}

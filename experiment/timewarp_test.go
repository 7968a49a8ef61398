package experiment

import (
	"fmt"
	"math"
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
	if conds := warpConds("pistol"); len(conds) != len(warpConditions) {
		t.Fatalf("pistol conditions %v: hitscan-only time warp warps no projectile", conds)
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

package experiment

import (
	"math"
	"testing"
)

// TestReckoningTinyRun runs one replicate of the reckoning experiment
// cut short (replay and live at 5% loss) and checks what it reports:
// both parts' conditions, the tables and plots, dead reckoning's
// frontier trading updates for error, led reckoning set against it,
// paired tests of dead against led, and threshold replication sending
// fewer bytes than full snapshots at a display error under the
// threshold.
func TestReckoningTinyRun(t *testing.T) {
	e, err := Get("reckoning")
	if err != nil {
		t.Fatal(err)
	}
	var cells []Cell
	for _, c := range e.Cells(true) {
		if c.Replicate != 0 {
			continue
		}
		if loss, live := c.Params["loss"]; live && loss != 0.05 {
			continue
		}
		c.Params["minutes"] = 0.5
		if c.Params["part"] == "live" {
			c.Params["bots"] = 6
		}
		c.Index, c.Seed = len(cells), 7
		cells = append(cells, c)
	}
	if len(cells) != 21 {
		t.Fatalf("%d cells: want replay dead, led and dead at four more thresholds in three variants, and live full, dead and led", len(cells))
	}
	var results []CellResult
	for _, c := range cells {
		r, err := e.RunCell(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Condition, err)
		}
		r.Cell = c
		results = append(results, r)
	}
	res := Summarise(e, results, Options{Seed: 7, Quick: true})
	met := map[string]map[string]float64{}
	for _, c := range res.Conditions {
		met[c.Name] = c.Metrics
	}
	for _, name := range []string{"dead", "led", "dead recorded-velocity", "led recorded-velocity", "dead first-order", "led first-order",
		"live full 5% loss", "live dead 5% loss", "live led 5% loss"} {
		if met[name] == nil || met[name]["updates_per_s"] <= 0 {
			t.Errorf("condition %q missing or sent nothing: %v", name, met[name])
		}
	}
	full, liveDead, liveLed := met["live full 5% loss"], met["live dead 5% loss"], met["live led 5% loss"]
	led := met["led"]
	for name, m := range map[string]map[string]float64{"dead": liveDead, "led": liveLed} {
		if m["bytes_per_s_per_client"] >= full["bytes_per_s_per_client"] || m["updates_per_s"] >= full["updates_per_s"]/5 {
			t.Errorf("live %s: %.0f B/s and %.1f states/s per client against full's %.0f and %.1f",
				name, m["bytes_per_s_per_client"], m["updates_per_s"], full["bytes_per_s_per_client"], full["updates_per_s"])
		}
		if e := m["position_error_mean_m"]; !(e > 0 && e < 0.381) {
			t.Errorf("live %s: display error %.3f m, want above 0 and under the 0.381 m threshold", name, e)
		}
	}
	tables := map[string]bool{}
	for _, tb := range res.Tables {
		tables[tb.Name] = len(tb.Rows) > 0
	}
	if !tables["reckoning"] || !tables["reckoning_frontier"] || !tables["reckoning_equal_error"] || !tables["reckoning_live"] || len(res.Plots) != 6 {
		t.Errorf("tables %v and %d plots: want reckoning, reckoning_frontier, reckoning_equal_error, reckoning_live and 6 plots", tables, len(res.Plots))
	}
	// Dead reckoning's frontier: a higher threshold sends fewer updates
	// for more error.
	var prev map[string]float64
	for _, eta := range []string{"dead 0.2 m", "dead 0.3 m", "dead", "dead 0.5 m", "dead 0.667 m"} {
		m := met[eta]
		if m == nil {
			t.Fatalf("no condition %q", eta)
		}
		if prev != nil && !(m["updates_per_s"] < prev["updates_per_s"] && m["position_error_mean_m"] > prev["position_error_mean_m"]) {
			t.Errorf("%s: %.3f updates/s at %.3f m after %.3f at %.3f m: want fewer updates for more error",
				eta, m["updates_per_s"], m["position_error_mean_m"], prev["updates_per_s"], prev["position_error_mean_m"])
		}
		prev = m
	}
	// K comes from the paths that build the trend maps, one value per
	// replicate, whatever the condition.
	for _, name := range []string{"dead", "led", "dead 0.2 m"} {
		m := met[name]
		if k, gap, v := m["k_m_s"], m["calibration_gap_m"], m["calibration_speed_mps"]; !(gap > 0.381 && v > 0.5) || math.Abs(k-0.381*gap/v) > 1e-12 || k != met["dead"]["k_m_s"] {
			t.Errorf("%s: K %v from a gap of %v m at %v m/s: want 0.381 m × gap / speed, the gap beyond the threshold, the same in every condition", name, k, gap, v)
		}
	}
	if v, ok := led["updates_vs_dead_at_equal_error"]; !ok || !(v > -1 && v < 1) {
		t.Errorf("led: updates_vs_dead_at_equal_error %v (present %v), want a relative change", v, ok)
	}
	// The unit is the path, as the study's: every held-out path of 5 s
	// or more, not the 4 held-out players; the condition's figure is the
	// mean over paths, with its deviation, and the tests pair paths.
	var nDead int
	for _, c := range res.Conditions {
		if c.Name == "dead" {
			nDead = c.N
			if c.NUnit != "paths" || float64(c.N) != c.Metrics["paths"] || !(c.Metrics["updates_per_s_sd"] > 0) {
				t.Errorf("dead: n %d %s, %v paths, sd %v: want the paths and their deviation", c.N, c.NUnit, c.Metrics["paths"], c.Metrics["updates_per_s_sd"])
			}
		}
	}
	if nDead <= 4 {
		t.Errorf("dead: %d units, want more paths than the 4 held-out players", nDead)
	}
	tests := map[string]bool{}
	for _, tt := range res.Tests {
		tests[tt.Metric+" "+tt.A+" "+tt.B] = true
		if tt.A == "dead" && tt.B == "led" && tt.N != nDead {
			t.Errorf("%s %s: n = %d, want the %d paths", tt.Kind, tt.Name, tt.N, nDead)
		}
	}
	if met["dead recorded-velocity"]["position_error_mean_m"] == met["dead"]["position_error_mean_m"] {
		t.Error("recorded velocities replayed as velocities from positions")
	}
	for _, metric := range []string{"updates_per_s", "position_error_mean_m", "bytes_per_s_per_client"} {
		if !tests[metric+" live dead 5% loss live led 5% loss"] {
			t.Errorf("no paired test of %s between live dead and led at 5%% loss", metric)
		}
	}
}

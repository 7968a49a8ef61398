package experiment

import (
	"reflect"
	"testing"
)

// TestDelayCell plays tiny cells of the delay study: under regular delay
// the low-latency player is held by the one-way latency difference
// (75 - 10 = 65 ms) all the time, which its input-to-effect time shows;
// without compensation nothing is added. The same cell gives the same
// result.
func TestDelayCell(t *testing.T) {
	run := func(cond string) CellResult {
		t.Helper()
		var cell Cell
		for _, c := range delayExperiment.Cells(true) {
			if c.Condition == delayName(oneOnOne, 150, cond) {
				cell = c
				break
			}
		}
		cell.Seed = 7
		cell.Params["minutes"] = 0.5
		r, err := delayExperiment.RunCell(cell)
		if err != nil {
			t.Fatal(err)
		}
		r.Cell = cell
		return r
	}
	none, delay := run("none"), run("delay")
	if m := none.Metrics; m["delay_active_share_low"] != 0 || m["delay_mean_ms_low"] != 0 {
		t.Errorf("none: delay added: %v", m)
	}
	m := delay.Metrics
	if m["delay_active_share_low"] < 0.9 || m["delay_mean_ms_low"] < 60 || m["delay_mean_ms_low"] > 70 || m["delay_active_share_high"] > 0.05 {
		t.Errorf("delay: low-latency player active %.2f, mean %.1f ms; high-latency active %.2f; want about 1, 65 ms and 0 (until the round trips are measured)",
			m["delay_active_share_low"], m["delay_mean_ms_low"], m["delay_active_share_high"])
	}
	if d := m["input_to_effect_ms_low"] - none.Metrics["input_to_effect_ms_low"]; d < 20 {
		t.Errorf("delay adds %.1f ms to the low-latency player's input-to-effect time, want more than 20", d)
	}
	if again := run("delay"); !reflect.DeepEqual(again.Metrics, delay.Metrics) {
		t.Error("the same cell gave different results")
	}
	r := Summarise(delayExperiment, []CellResult{none, delay}, Options{Seed: 7})
	if len(r.Conditions) != 2 || len(r.Tables) != 1 {
		t.Errorf("summary: %d conditions, %d tables", len(r.Conditions), len(r.Tables))
	}
}

package experiment

import (
	"strconv"
	"testing"
)

// TestALCNamesEachAccuracy: every shooter's accuracy and the high-ping
// shooters' are two figures under two names, neither overwriting the
// other, and the table's CSV cells are plain numbers.
func TestALCNamesEachAccuracy(t *testing.T) {
	var cells []CellResult
	for rep := range 3 {
		for _, p := range alcPolicies {
			cells = append(cells, CellResult{Cell: Cell{Index: len(cells), Condition: p, Replicate: rep}, Metrics: map[string]float64{
				"shots": 100, "hits": 40, "shots_high": 50, "hits_high": 10 + float64(rep),
				"hits_received": 30, "sbc": 6, "hits_received_low": 20, "sbc_low": 2,
				"hit_accuracy_high": (10 + float64(rep)) / 50, "sbc_per_hit_low": 0.1,
			}})
		}
	}
	r := Summarise(&Experiment{Name: "alc", Summarise: summariseALC}, cells, Options{Seed: 1})
	m := r.Conditions[0].Metrics
	if m["hit_accuracy"] != 0.4 || m["hit_accuracy_high_ping"] != 33.0/150 {
		t.Errorf("hit_accuracy %v (want 0.4, every shooter), hit_accuracy_high_ping %v (want 33/150)", m["hit_accuracy"], m["hit_accuracy_high_ping"])
	}
	if m["sbc_per_hit"] != 0.2 || m["sbc_per_hit_low"] != 0.1 {
		t.Errorf("sbc_per_hit %v (want 0.2, every victim), sbc_per_hit_low %v (want 0.1)", m["sbc_per_hit"], m["sbc_per_hit_low"])
	}
	for _, tbl := range r.Tables {
		for _, row := range tbl.Rows {
			for i, cell := range row[1:] {
				if _, err := strconv.ParseFloat(cell, 64); err != nil && cell != "" {
					t.Errorf("%s: %s = %q is not a number", tbl.Name, tbl.Columns[i+1], cell)
				}
			}
		}
	}
	if got := r.Tables[0].Rows[0][6]; got != strconv.FormatFloat(33.0/150, 'f', -1, 64) {
		t.Errorf("hit_accuracy_high_ping cell %q: want full precision", got)
	}
}

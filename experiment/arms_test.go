package experiment

import (
	"strings"
	"testing"
)

// armsToy is an experiment of three arms: b plays a's cells plus one,
// c plays exactly a's.
func armsToy(equivalent [][2]string) *Experiment {
	return &Experiment{
		Name: "arms-toy",
		Cells: func(bool) []Cell {
			var cells []Cell
			for rep := range 4 {
				for _, c := range []string{"a", "b", "c"} {
					cells = append(cells, Cell{Index: len(cells), Condition: c, Replicate: rep})
				}
			}
			return cells
		},
		RunCell: func(c Cell) (CellResult, error) {
			v := float64(c.Seed % 97)
			if c.Condition == "b" {
				v++
			}
			return CellResult{Metrics: map[string]float64{"x": v}, Series: map[string][]float64{"x": {v, 2 * v}}}, nil
		},
		Summarise: func(r *Results, cells []CellResult) {
			g := group(cells)
			for _, n := range g.names {
				r.Conditions = append(r.Conditions, g.condition(n, "runs", len(g.cells[n]), map[string]float64{"x": g.mean(n, "x")}))
			}
			pairedTests(r, g, "x", "x", "a", "b")
			pairedTests(r, g, "x", "x", "a", "c")
			pairedTests(r, g, "x", "x", "c", "b")
		},
		Equivalent: equivalent,
	}
}

// TestCheckArms: a run in which one arm plays exactly another's cells
// fails, naming both; declared alike by design, the two pass, their
// tests against each other and the repeats of a comparison between
// their equivalents are dropped; declared alike but differing, the run
// fails.
func TestCheckArms(t *testing.T) {
	_, _, err := Run(t.Context(), armsToy(nil), Options{Seed: 3})
	if err == nil || !strings.Contains(err.Error(), `arm "c" plays exactly what arm "a" plays in all 4 replicates`) {
		t.Fatalf("identical arms: %v", err)
	}
	r, _, err := Run(t.Context(), armsToy([][2]string{{"a", "c"}}), Options{Seed: 3})
	if err != nil {
		t.Fatalf("declared equivalent arms: %v", err)
	}
	for _, tt := range r.Tests {
		if tt.A == "a" && tt.B == "c" || tt.A == "c" && tt.B == "b" {
			t.Errorf("test %q kept: it compares equivalent arms or repeats b − a", tt.Name)
		}
	}
	if len(r.Tests) != 2 {
		t.Errorf("%d tests, want b − a's paired t and Wilcoxon", len(r.Tests))
	}
	for _, tt := range r.Tests {
		if tt.HolmFamily != 1 {
			t.Errorf("%s %s: Holm family of %d, want 1", tt.Kind, tt.Name, tt.HolmFamily)
		}
	}
	if _, _, err := Run(t.Context(), armsToy([][2]string{{"a", "b"}, {"a", "c"}}), Options{Seed: 3}); err == nil ||
		!strings.Contains(err.Error(), `arms "a" and "b" are declared equivalent by design, yet their cells differ`) {
		t.Errorf("declared equivalent arms that differ: %v", err)
	}
}

// shortCells returns e's cells of the given conditions in the first
// replicates, with their seeds, each shortened by edit.
func shortCells(e *Experiment, reps int, conds []string, edit func(*Cell)) []Cell {
	var out []Cell
	for _, c := range Planned(e, Options{Seed: 1}) {
		if c.Replicate < reps && (conds == nil || containsString(conds, c.Condition)) {
			c.Params = cloneParams(c.Params)
			edit(&c)
			out = append(out, c)
		}
	}
	return out
}

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func cloneParams(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

func playCells(t *testing.T, e *Experiment, cells []Cell) []CellResult {
	t.Helper()
	var out []CellResult
	for _, c := range cells {
		r, err := e.RunCell(c)
		if err != nil {
			t.Fatal(err)
		}
		r.Cell = c
		out = append(out, r)
	}
	return out
}

// TestALCArmsDiffer: in the alc design the lagged players' round trip is
// the study's 250 ms on top of the 20 ms every player has, above clc's
// 250 ms cap, so clc registers other hits than tlc (at exactly 250 ms
// the two arms were the same match), and half of six players are lagged,
// on both teams.
func TestALCArmsDiffer(t *testing.T) {
	e, err := Get("alc")
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(20) {
		rtt := ALCLatency(seed)
		lagged := map[int]int{}
		for i, v := range rtt {
			if v == 270 {
				lagged[i%2]++
			} else if v != 20 {
				t.Fatalf("seed %d: player %d at %v ms", seed, i, v)
			}
		}
		if len(rtt) != 6 || lagged[0]+lagged[1] != 3 || lagged[0] == 0 || lagged[1] == 0 {
			t.Fatalf("seed %d: round trips %v: want 3 of 6 at 270 ms, on both teams", seed, rtt)
		}
	}
	cells := playCells(t, e, shortCells(e, 1, []string{"tlc", "clc"}, func(c *Cell) { c.Params["minutes"] = 1.0 }))
	if err := CheckArms(e, cells); err != nil {
		t.Fatal(err)
	}
}

// TestTimeWarpZeroMSArmsEqualNone: with every player at 0 ms no command
// is late, so time warp, of whole commands or of hitscan shots, plays
// the match no compensation plays, and with prediction the match
// prediction plays, bit for bit (CheckArms holds the declared pairs to
// it); at 75 ms it does not.
func TestTimeWarpZeroMSArmsEqualNone(t *testing.T) {
	e, err := Get("timewarp")
	if err != nil {
		t.Fatal(err)
	}
	var conds []string
	for _, p := range e.Equivalent {
		conds = append(conds, p[0], p[1])
	}
	if len(conds) != 12 {
		t.Fatalf("declared pairs %v: want 6 (4 for the rifle, 2 for the pistol)", e.Equivalent)
	}
	short := func(c *Cell) { c.Params["seconds"] = 20.0 }
	cells := playCells(t, e, shortCells(e, 2, conds, short))
	if err := CheckArms(e, cells); err != nil {
		t.Fatal(err)
	}
	late := playCells(t, e, shortCells(e, 1, []string{"rifle_rtt75_none", "rifle_rtt75_timewarp"}, short))
	if sameCell(late[0], late[1]) {
		t.Error("at 75 ms time warp played the match no compensation played")
	}
}

// TestCLCLimitsCapsBite: every round-trip cap of the clc-limits sweep
// refuses someone (its top player's round trip is above the highest
// cap: at exactly 300 ms the 300 ms cap played tlc's match), and the
// top cap's cells differ from tlc's.
func TestCLCLimitsCapsBite(t *testing.T) {
	rtts := spreadRTTs(12, 20, clcTopRTT)
	top := 0.0
	for _, v := range rtts {
		top = max(top, v)
	}
	for _, c := range clcRTTCaps {
		if !(top > c) {
			t.Errorf("cap %v ms: no player above it (top %v ms): the cap is tlc", c, top)
		}
	}
	e, err := Get("clc-limits")
	if err != nil {
		t.Fatal(err)
	}
	cells := playCells(t, e, shortCells(e, 1, []string{"tlc", "max_rtt_300ms"}, func(c *Cell) { c.Params["minutes"] = 1.0 }))
	if err := CheckArms(e, cells); err != nil {
		t.Fatal(err)
	}
}

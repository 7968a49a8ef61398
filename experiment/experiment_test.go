package experiment

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestGetAndList(t *testing.T) {
	names := map[string]bool{}
	for _, e := range List() {
		names[e.Name] = true
		if len(e.Cells(true)) == 0 || len(e.Cells(true)) > len(e.Cells(false)) {
			t.Errorf("%s: %d quick cells, %d full", e.Name, len(e.Cells(true)), len(e.Cells(false)))
		}
		for i, c := range e.Cells(false) {
			if c.Index != i {
				t.Errorf("%s: cell %d has index %d", e.Name, i, c.Index)
			}
		}
	}
	for _, want := range []string{"alc", "tlc-accuracy", "rollback", "clc-limits", "scale", "reckoning", "delay", "timewarp", "subtick"} {
		if !names[want] {
			t.Errorf("experiment %q missing", want)
		}
	}
	if _, err := Get("nope"); err == nil || !strings.Contains(err.Error(), "known: alc") {
		t.Errorf("unknown experiment error: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"0/2", "3/2", "1", "a/b", "1/0", "-1/3", "2/"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("shard %q accepted", bad)
		}
	}
	s, err := ParseShard("2/3")
	if err != nil || s != (Shard{2, 3}) || s.String() != "2/3" {
		t.Fatalf("2/3: %v %v", s, err)
	}
	// Shards partition the cells.
	seen := map[int]int{}
	for k := 1; k <= 3; k++ {
		for i := range 10 {
			if (Shard{k, 3}).has(i) {
				seen[i]++
			}
		}
	}
	for i := range 10 {
		if seen[i] != 1 {
			t.Fatalf("cell %d in %d shards", i, seen[i])
		}
	}
}

// toy is a fast experiment for testing the runner: each cell's metric is
// a function of its seed.
var toy = &Experiment{
	Name: "toy",
	Cells: func(quick bool) []Cell {
		var cells []Cell
		for rep := range 6 {
			for _, c := range []string{"a", "b"} {
				cells = append(cells, Cell{Index: len(cells), Condition: c, Replicate: rep, Params: map[string]any{"c": c}})
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		v := float64(c.Seed%1000) / 1000
		if c.Condition == "b" {
			v += 0.5
		}
		return CellResult{Metrics: map[string]float64{"x": v}}, nil
	},
	Summarise: func(r *Results, cells []CellResult) {
		g := group(cells)
		for _, n := range g.names {
			r.Conditions = append(r.Conditions, g.condition(n, "runs", len(g.cells[n]), map[string]float64{"x": g.mean(n, "x")}))
		}
		pairedTests(r, g, "x", "x", "a", "b")
	},
}

// TestRunIsDeterministicAndShardable: results depend on the seed only,
// not on the number of workers, and shards merge to the whole.
func TestRunIsDeterministicAndShardable(t *testing.T) {
	r1, cells1, err := Run(t.Context(), toy, Options{Seed: 9, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	r2, _, _ := Run(t.Context(), toy, Options{Seed: 9, Parallel: 4})
	r1.WallS, r2.WallS = 0, 0
	if !reflect.DeepEqual(r1, r2) {
		t.Fatal("results depend on the number of workers")
	}
	var merged []CellResult
	for k := 1; k <= 3; k++ {
		_, part, err := Run(t.Context(), toy, Options{Seed: 9, Shard: Shard{k, 3}})
		if err != nil {
			t.Fatal(err)
		}
		merged = append(merged, part...)
	}
	for i := range merged {
		merged[i].WallS = 0
	}
	for i := range cells1 {
		cells1[i].WallS = 0
	}
	m := Summarise(toy, merged, Options{Seed: 9})
	if !reflect.DeepEqual(m.Conditions, r1.Conditions) || !reflect.DeepEqual(m.Tests, r1.Tests) {
		t.Fatal("merged shards differ from the whole run")
	}
	// b is a + 0.5 in every replicate: the paired test sees it.
	for _, tt := range r1.Tests {
		if tt.Kind == "paired_t" && math.Abs(tt.MeanDiff-0.5) > 1e-9 {
			t.Fatalf("paired t mean difference %v, want 0.5", tt.MeanDiff)
		}
	}
}

// TestInterruptAndResume: a run cancelled after some cells keeps them,
// and a run given them as done plays only the rest, with the same
// results as one never interrupted.
func TestInterruptAndResume(t *testing.T) {
	whole, _, err := Run(t.Context(), toy, Options{Seed: 5, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var saved []CellResult
	_, kept, err := Run(ctx, toy, Options{Seed: 5, Parallel: 1, OnCell: func(c CellResult) error {
		saved = append(saved, c)
		if len(saved) == 5 {
			cancel()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) || len(saved) != 5 || len(kept) != 5 {
		t.Fatalf("interrupted run: %v, %d saved, %d returned; want canceled after 5", err, len(saved), len(kept))
	}
	played := 0
	resumed, _, err := Run(t.Context(), toy, Options{Seed: 5, Done: saved, OnCell: func(CellResult) error { played++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if played != len(toy.Cells(false))-5 {
		t.Errorf("resumed run played %d cells, want %d", played, len(toy.Cells(false))-5)
	}
	whole.WallS, resumed.WallS = 0, 0
	if !reflect.DeepEqual(whole, resumed) {
		t.Error("resumed results differ from the whole run's")
	}
	// Cells of another seed are not this run's.
	if _, _, err := Run(t.Context(), toy, Options{Seed: 6, Done: saved}); err == nil || !strings.Contains(err.Error(), "this run's is a, replicate 0, seed") {
		t.Errorf("done cells of another seed: %v", err)
	}
}

func TestDegenerateTestsStayFinite(t *testing.T) {
	var r Results
	AddPaired(&r, "x", "a", "b", []float64{1, 2, 3}, []float64{2, 3, 4}, "")
	for _, tt := range r.Tests {
		for _, v := range []float64{tt.Statistic, tt.P, tt.Effect, tt.MeanDiff, tt.CI95[0], tt.CI95[1]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: non-finite value in %+v", tt.Kind, tt)
			}
		}
	}
}

// TestPublishedFiguresCite: every published figure names a study in
// Sources, where the study prints it (section or table), the figure as
// printed, the unit it is compared in, and whether it was checked
// against the source's text; it says what it is and why ours may
// differ, and one compared with a test names a kind of test the
// experiments run.
func TestPublishedFiguresCite(t *testing.T) {
	for _, e := range List() {
		for _, ref := range e.Published {
			for _, problem := range ref.Problems() {
				t.Errorf("%s: %s under %s: %s", e.Name, ref.Metric, ref.Condition, problem)
			}
		}
	}
}

// TestTestNamesAndHolm: a comparison's name reads in the direction of
// its difference, each test names its effect measure and centre, and p
// is Holm-adjusted within each kind.
func TestTestNamesAndHolm(t *testing.T) {
	r, _, err := Run(t.Context(), toy, Options{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	AddPaired(r, "y", "a", "b", []float64{1, 2, 3, 4, 5, 6}, []float64{1.1, 2.3, 2.9, 4.2, 5.1, 6.4}, "")
	AdjustHolm(r)
	kinds := map[string]int{}
	for _, tt := range r.Tests {
		kinds[tt.Kind]++
	}
	for _, tt := range r.Tests {
		if !strings.HasSuffix(tt.Name, ": b − a") || tt.A != "a" || tt.B != "b" {
			t.Errorf("test %q compares %s and %s: want the name to read b − a", tt.Name, tt.A, tt.B)
		}
		want := map[string][2]string{"paired_t": {EffectCohenDz, CentreMean}, "wilcoxon": {EffectRankBiserial, CentreMedian}}[tt.Kind]
		if tt.EffectMeasure != want[0] || tt.Centre != want[1] {
			t.Errorf("%s %s: effect %q, centre %q; want %q, %q", tt.Kind, tt.Name, tt.EffectMeasure, tt.Centre, want[0], want[1])
		}
		if tt.HolmFamily != kinds[tt.Kind] || tt.PHolm < tt.P || tt.PHolm > 1 {
			t.Errorf("%s %s: p %v, Holm %v over %d; want at least p over the %d of its kind", tt.Kind, tt.Name, tt.P, tt.PHolm, tt.HolmFamily, kinds[tt.Kind])
		}
	}
	// The smaller of two p-values is doubled (capped at 1).
	var ps []Test
	for _, tt := range r.Tests {
		if tt.Kind == "paired_t" {
			ps = append(ps, tt)
		}
	}
	if len(ps) != 2 {
		t.Fatalf("%d paired t-tests, want 2", len(ps))
	}
	lo := ps[0]
	if ps[1].P < lo.P {
		lo = ps[1]
	}
	if math.Abs(lo.PHolm-math.Min(1, 2*lo.P)) > 1e-15 {
		t.Errorf("smaller p %v adjusted to %v, want %v", lo.P, lo.PHolm, math.Min(1, 2*lo.P))
	}
}

// TestReferenceProblems: a figure with no location, printed figure, unit
// or check is reported, and a complete one is not.
func TestReferenceProblems(t *testing.T) {
	ok := Reference{Metric: "m", Condition: "c", Value: 1, Source: "alc", Location: "section 7.6.2.1, Table 7.1",
		Printed: "85", Unit: "count", Check: Unverified, Detail: "d", Why: "w"}
	if p := ok.Problems(); len(p) != 0 {
		t.Errorf("complete reference: %v", p)
	}
	for _, tc := range []struct {
		name string
		edit func(*Reference)
	}{
		{"no location", func(r *Reference) { r.Location = "" }},
		{"location without a number", func(r *Reference) { r.Location = "the abstract" }},
		{"no printed figure", func(r *Reference) { r.Printed = "" }},
		{"printed words without a figure", func(r *Reference) {
			r.Printed, r.Value = "bullet magnetism and area cursor were the most effective", 0
		}},
		{"a tolerance that accepts anything", func(r *Reference) { r.Tolerance = 1 }},
		{"no unit", func(r *Reference) { r.Unit = "" }},
		{"no check", func(r *Reference) { r.Check = "" }},
		{"unknown source", func(r *Reference) { r.Source = "nowhere" }},
		{"statistic without a test", func(r *Reference) { r.Statistic = true }},
	} {
		r := ok
		tc.edit(&r)
		if len(r.Problems()) == 0 {
			t.Errorf("%s: no problem reported", tc.name)
		}
	}
}

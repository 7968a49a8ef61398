package experiment

// This file checks the scaling experiment against what its sources say
// ([carlson-scaling], [lee-target] in docs/references.md): accuracy
// falls with latency and rises with the hitbox scale, a model of the two
// fits, and a scale chosen from the model holds accuracy.

import (
	"context"
	"testing"
)

// TestScalingShape runs the quick design and checks Carlson et al.'s
// shape:
//
//	"accuracy falls as latency rises and rises with the scale"
//	([carlson-scaling], as the project's issue reports it)
//
// at every scale and every round trip of the grid, that the fitted
// model explains most of the variance, and that at 200 ms accuracy-hold
// keeps the shooter's accuracy within 5% of the same bots' at 0 ms while
// no compensation loses much of it ([lee-target]: resizing the target
// held the error rate across latencies).
func TestScalingShape(t *testing.T) {
	e, err := Get("scaling")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := Run(context.Background(), e, Options{Seed: 1, Quick: true, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	acc := map[[2]float64]float64{}
	cond := map[string]map[string]float64{}
	for _, c := range r.Conditions {
		cond[c.Name] = c.Metrics
		if c.Params["part"] == "grid" {
			acc[[2]float64{paramOf(c.Params, "rtt_ms"), paramOf(c.Params, "scale")}] = c.Metrics["hit_accuracy"]
		}
	}
	rtts, scales := []float64{0, 125, 250}, []float64{1, 1.5, 2}
	for _, s := range scales {
		for i := 1; i < len(rtts); i++ {
			if !(acc[[2]float64{rtts[i], s}] < acc[[2]float64{rtts[i-1], s}]) {
				t.Errorf("scale %v: accuracy %v at %v ms is not below %v at %v ms", s, acc[[2]float64{rtts[i], s}], rtts[i], acc[[2]float64{rtts[i-1], s}], rtts[i-1])
			}
		}
	}
	for _, l := range rtts {
		for i := 1; i < len(scales); i++ {
			if !(acc[[2]float64{l, scales[i]}] > acc[[2]float64{l, scales[i-1]}]) {
				t.Errorf("%v ms: accuracy does not rise from scale %v to %v (%v, %v)", l, scales[i-1], scales[i], acc[[2]float64{l, scales[i-1]}], acc[[2]float64{l, scales[i]}])
			}
		}
	}
	if r2 := cond["model"]["model_r2"]; !(r2 > 0.8 && r2 <= 1) {
		t.Errorf("the fitted model's R² is %v: want above 0.8", r2)
	}
	hold := cond["hold"]
	if d := hold["accuracy-hold_accuracy_change_200ms"]; !(d > -0.05 && d < 0.05) || hold["accuracy-hold_held_200ms"] != 1 {
		t.Errorf("accuracy-hold at 200 ms changes accuracy by %v of the 0 ms bots': want within 5%%", d)
	}
	if d := hold["none_accuracy_change_200ms"]; !(d < -0.2) {
		t.Errorf("no compensation at 200 ms changes accuracy by %v: want a loss of over a fifth", d)
	}
	if _, ok := hold["tlc_accuracy_change_200ms"]; !ok {
		t.Error("the report leaves out tlc's accuracy at 200 ms")
	}
	if s := cond["accuracy-hold-rtt200"]["scaled_hit_share"]; !(s > 0) {
		t.Errorf("no hit of accuracy-hold's at 200 ms came from the scaled hitboxes (share %v)", s)
	}
	if s := cond["accuracy-hold-rtt0"]["scaled_hit_share"]; s != 0 {
		t.Errorf("accuracy-hold scaled hitboxes at 0 ms (share %v of hits)", s)
	}
	for _, ref := range r.Published {
		if p := ref.Problems(); len(p) > 0 || ref.Check != Unverified {
			t.Errorf("published %s: %v, check %s (the paper is not among the source texts: want unverified)", ref.Metric, p, ref.Check)
		}
	}
}

// paramOf reads a numeric parameter of a condition.
func paramOf(p map[string]any, key string) float64 { return param(Cell{Params: p}, key) }

package experiment

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSeedsAreStrings: seeds beyond 2^53 survive a JavaScript reader only
// as strings; files with numeric seeds still read.
func TestSeedsAreStrings(t *testing.T) {
	const big = uint64(18446744073709551557) // > 2^53
	r := Results{Experiment: "toy", Seed: big}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"seed":"18446744073709551557"`) {
		t.Fatalf("results seed not a string: %s", b)
	}
	var back Results
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != big || back.Experiment != "toy" {
		t.Fatalf("read back %+v, %v", back, err)
	}
	c := CellResult{Cell: Cell{Index: 3, Condition: "a", Seed: big}, Metrics: map[string]float64{"x": 1}}
	b, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"seed":"18446744073709551557"`) {
		t.Fatalf("cell seed not a string: %s", b)
	}
	var cb CellResult
	if err := json.Unmarshal(b, &cb); err != nil || cb.Cell.Seed != big || cb.Cell.Index != 3 || cb.Metrics["x"] != 1 {
		t.Fatalf("cell read back %+v, %v", cb, err)
	}
	// An older file: numeric seeds (exact below 2^53).
	var old Results
	if err := json.Unmarshal([]byte(`{"experiment":"alc","seed":42,"quick":true}`), &old); err != nil || old.Seed != 42 || !old.Quick {
		t.Fatalf("numeric seed: %+v, %v", old, err)
	}
	var oc Cell
	if err := json.Unmarshal([]byte(`{"index":1,"seed":7}`), &oc); err != nil || oc.Seed != 7 || oc.Index != 1 {
		t.Fatalf("numeric cell seed: %+v, %v", oc, err)
	}
	for _, bad := range []string{`{"seed":"x"}`, `{"seed":-1}`, `{"seed":1.5}`} {
		if err := json.Unmarshal([]byte(bad), &old); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

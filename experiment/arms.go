package experiment

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// CheckArms compares every pair of e's conditions (arms) replicate by
// replicate and returns an error naming each pair whose cells are
// identical, metric for metric and series for series, in every
// replicate both played, unless e.Equivalent declares them alike by
// design; and each declared pair whose cells differ. An arm that plays
// exactly what another plays measures nothing of its own, and its tests
// against that arm only enlarge the Holm family; a declared pair that
// differs breaks the design's own argument. Pairs with no replicate in
// common (a shard) are not compared.
func CheckArms(e *Experiment, cells []CellResult) error {
	byArm := map[string]map[int]CellResult{}
	var arms []string
	for _, c := range cells {
		a := c.Cell.Condition
		if byArm[a] == nil {
			byArm[a] = map[int]CellResult{}
			arms = append(arms, a)
		}
		byArm[a][c.Cell.Replicate] = c
	}
	slices.Sort(arms)
	class := e.equivalence()
	var problems []string
	for i, a := range arms {
		for _, b := range arms[i+1:] {
			shared, same := 0, true
			for rep, ca := range byArm[a] {
				cb, ok := byArm[b][rep]
				if !ok {
					continue
				}
				shared++
				if !sameCell(ca, cb) {
					same = false
				}
			}
			if shared == 0 {
				continue
			}
			switch {
			case same && class(a) != class(b):
				problems = append(problems, fmt.Sprintf("arm %q plays exactly what arm %q plays in all %d replicates (identical cells): "+
					"one of them measures nothing of its own; change the design so they differ, or declare them equivalent", b, a, shared))
			case !same && class(a) == class(b):
				problems = append(problems, fmt.Sprintf("arms %q and %q are declared equivalent by design, yet their cells differ", a, b))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("experiment: %s: %s", e.Name, strings.Join(problems, "; "))
	}
	return nil
}

// sameCell reports whether two cells produced the same numbers.
func sameCell(a, b CellResult) bool {
	return reflect.DeepEqual(a.Metrics, b.Metrics) && reflect.DeepEqual(a.Series, b.Series)
}

// dropEquivalentTests removes the tests that compare two arms e
// declares equivalent (they play the same cells, so the test measures
// nothing) and the tests that repeat, between arms equivalent to theirs,
// a comparison already made: neither adds a question to the Holm family.
func dropEquivalentTests(e *Experiment, r *Results) {
	if len(e.Equivalent) == 0 {
		return
	}
	find := e.equivalence()
	seen := map[[4]string]bool{}
	kept := r.Tests[:0]
	for _, t := range r.Tests {
		a, b := find(t.A), find(t.B)
		key := [4]string{t.Kind, t.Metric, a, b}
		if t.Kind != "pearson" && (a == b || seen[key]) {
			continue
		}
		seen[key] = true
		kept = append(kept, t)
	}
	r.Tests = kept
}

// equivalence returns a function naming each condition's class under
// e.Equivalent (declared pairs, taken transitively): the least name in
// it.
func (e *Experiment) equivalence() func(string) string {
	canon := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		if p, ok := canon[s]; ok && p != s {
			return find(p)
		}
		return s
	}
	for _, p := range e.Equivalent {
		a, b := find(p[0]), find(p[1])
		if a != b {
			if b < a {
				a, b = b, a
			}
			canon[b] = a
		}
	}
	return find
}

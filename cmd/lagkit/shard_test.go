package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/internal/walltest"
)

// TestShardedRunEqualsWhole runs an experiment as 4 shards in 4 lagkit
// processes at once, as a batch engine would, merges them, and compares
// the merge with the same run in one process: the same tables and plots
// byte for byte, the same results and cells but for wall times and the
// command line.
func TestShardedRunEqualsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment five times over")
	}
	// Five processes at once would starve the tests that time a live
	// match.
	walltest.Lock(t)
	dir := t.TempDir()
	lagkit := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "LAGKIT_AS_COMMAND=1", "CI=1")
		return cmd
	}
	base := []string{"experiment", "run", "tlc-accuracy", "--quick", "--seed", "7", "--parallel", "1"}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
	)
	runs := map[string][]string{"whole": nil}
	for k := 1; k <= 4; k++ {
		runs[fmt.Sprintf("shard-%d", k)] = []string{"--shard", fmt.Sprintf("%d/4", k)}
	}
	for name, extra := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := lagkit(append(append(base, extra...), "--out", filepath.Join(dir, name))...).CombinedOutput()
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s: %v\n%s", name, err, out))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
	merge := []string{"experiment", "merge", "--out", filepath.Join(dir, "merged")}
	for k := 1; k <= 4; k++ {
		merge = append(merge, filepath.Join(dir, fmt.Sprintf("shard-%d", k)))
	}
	e, err := experiment.Get("tlc-accuracy")
	if err != nil {
		t.Fatal(err)
	}
	nCells := len(experiment.Planned(e, experiment.Options{Seed: 7, Quick: true}))
	if out, err := lagkit(merge...).CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("merged %d cells from 4 shards", nCells)) {
		t.Fatalf("merge: %v\n%s", err, out)
	}

	whole, merged := filepath.Join(dir, "whole"), filepath.Join(dir, "merged")
	tables, _ := filepath.Glob(filepath.Join(whole, "*.csv"))
	plots, _ := filepath.Glob(filepath.Join(whole, "*.svg"))
	if len(tables) == 0 || len(plots) == 0 {
		t.Fatalf("the run wrote %d tables and %d plots", len(tables), len(plots))
	}
	for _, f := range append(tables, plots...) {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(merged, filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
			line := 0
			for line < min(len(la), len(lb)) && la[line] == lb[line] {
				line++
			}
			var wa, wb string
			if line < len(la) {
				wa = la[line]
			}
			if line < len(lb) {
				wb = lb[line]
			}
			t.Errorf("%s differs between the whole run and the merged shards (%v), first at line %d:\nwhole  %.300s\nmerged %.300s", filepath.Base(f), err, line+1, wa, wb)
		}
	}
	// Wall times and the command line are the run's, not its results'.
	results := func(d string) map[string]any {
		var r map[string]any
		b, err := os.ReadFile(filepath.Join(d, "results.json"))
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("%s: results.json: %v", d, err)
		}
		delete(r, "wall_s")
		delete(r, "provenance")
		return r
	}
	if a, b := results(whole), results(merged); !reflect.DeepEqual(a, b) {
		t.Errorf("results.json differs:\nwhole  %.300v\nmerged %.300v", a, b)
	}
	cells := func(d string) []experiment.CellResult {
		cs, err := experiment.ReadCells(d)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cs {
			cs[i].WallS = 0
		}
		return cs
	}
	if a, b := cells(whole), cells(merged); len(a) != nCells || !reflect.DeepEqual(a, b) {
		t.Errorf("cells differ: %d whole, %d merged", len(a), len(b))
	}
}

package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestMatchDuelsFlag checks that lagkit match reports duels with --duels
// alone, in the table and the JSON, and that following them leaves the
// match as it was.
func TestMatchDuelsFlag(t *testing.T) {
	args := []string{"match", "--bots", "4", "--duration", "5s", "--seed", "3"}
	type result struct {
		Duels *struct {
			Count int `json:"count"`
		} `json:"duels"`
		Match struct {
			StateHash string `json:"state_hash"`
		} `json:"match"`
	}
	var plain, duels result
	for _, c := range []struct {
		extra []string
		into  *result
	}{{nil, &plain}, {[]string{"--duels"}, &duels}} {
		out, err := run(append(append(args, c.extra...), "--json")...)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), c.into); err != nil {
			t.Fatalf("%v: %v %s", c.extra, err, out)
		}
	}
	if plain.Duels != nil {
		t.Errorf("match without --duels reported duels: %+v", *plain.Duels)
	}
	if duels.Duels == nil || duels.Duels.Count == 0 {
		t.Errorf("match --duels: %+v", duels.Duels)
	}
	if duels.Match.StateHash != plain.Match.StateHash {
		t.Errorf("--duels changed the match: %s, without %s", duels.Match.StateHash, plain.Match.StateHash)
	}
	table, err := run(append(args, "--duels")...)
	if err != nil || !strings.Contains(table, "duels: ") {
		t.Errorf("match --duels's table: %v\n%s", err, table)
	}
	if table, err := run(args...); err != nil || strings.Contains(table, "duels: ") {
		t.Errorf("match's table without --duels: %v\n%s", err, table)
	}
}

// TestSimTickCPUFlag checks that lagkit sim reports the tick's CPU time
// with --tick-cpu alone.
func TestSimTickCPUFlag(t *testing.T) {
	args := []string{"sim", "--players", "2", "--duration", "2s", "--json"}
	for _, asked := range []bool{false, true} {
		a := args
		if asked {
			a = append(a, "--tick-cpu")
		}
		out, err := run(a...)
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if _, got := res["tick_cpu_us"]; got != asked && runtime.GOOS == "linux" {
			t.Errorf("--tick-cpu %v: tick_cpu_us given %v: %s", asked, got, out)
		}
	}
}

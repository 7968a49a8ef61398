package reckoning

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/cfgfile"
)

func TestReadPathsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "p.csv: empty file"},
		{"t,player,team,x,y,z\n", `p.csv:1: header row is "t,player,team,x,y,z"`},
		{"study,round,time_s,seat,team,x,y,z\n", `p.csv:1: header row is "study,round,time_s,seat,team,x,y,z", want "time,player,team,x,y,z": this is a study's table of paths; lagkit study export also writes each round's paths in this format, as paths-study<ID>-round<N>.csv`},
		{PathHeader + "\n0,1,0,1,2\n", "p.csv:2: 5 fields, want 6"},
		{PathHeader + "\n0,1,0,1,2,3\n0.1,1,0,abc,2,3\n", `p.csv:3: x: "abc" is not a finite number`},
		{PathHeader + "\n0,1,0,1,2,NaN\n", `p.csv:2: z: "NaN" is not a finite number`},
		{PathHeader + "\n-1,1,0,1,2,3\n", "p.csv:2: time: -1 s outside"},
		{PathHeader + "\n0,1.5,0,1,2,3\n", "p.csv:2: player: 1.5 is not an integer"},
		{PathHeader + "\n0,1,-2,1,2,3\n", "p.csv:2: team: -2 is not an integer"},
		{PathHeader + "\n0,1,0,1,2e5,3\n", "p.csv:2: y: 200000 m is further than"},
		{PathHeader + "\n0,1,0,\"1,2,3\n", "p.csv:2: extraneous or missing \" in quoted-field"},
	} {
		_, err := ReadPaths("p.csv", strings.NewReader(tc.in))
		var fe *FileError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one starting %q", tc.in, err, tc.want)
		}
	}
}

func TestPathsRoundTrip(t *testing.T) {
	in := []Sample{
		{T: 15625 * time.Microsecond, Player: 3, Team: 1, Pos: geom.V(-12.5, 3.25, 0)},
		{T: 2 * time.Second, Player: 0, Team: 0, Pos: geom.V(1.0001, -2, 1.5)},
	}
	var buf bytes.Buffer
	w := NewPathWriter(&buf)
	for _, s := range in {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), PathHeader+"\n0.015625,3,1,-12.5000,3.2500,0.0000\n") {
		t.Fatalf("written:\n%s", buf.String())
	}
	out, err := ReadPaths("p.csv", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d samples back, want %d", len(out), len(in))
	}
	for i := range in {
		if out[i].T != in[i].T || out[i].Player != in[i].Player || out[i].Team != in[i].Team || out[i].Pos.Dist(in[i].Pos) > 1e-4 {
			t.Errorf("sample %d: %+v, want %+v", i, out[i], in[i])
		}
	}
	// An empty recording is still a valid file.
	buf.Reset()
	if err := NewPathWriter(&buf).Flush(); err != nil || buf.String() != PathHeader+"\n" {
		t.Errorf("empty recording: %q, %v", buf.String(), err)
	}
}

func TestTracksSplitAtGapsAndTeleports(t *testing.T) {
	s := func(ms, player int, x float64) Sample {
		return Sample{T: time.Duration(ms) * time.Millisecond, Player: player, Pos: geom.V(x, 0, 0)}
	}
	tracks := Tracks([]Sample{
		s(100, 1, 0.4), s(0, 1, 0), s(50, 1, 0.2), // out of order
		s(50, 1, 0.2),   // repeated
		s(150, 1, 10),   // teleport: 192 m/s
		s(200, 1, 10.2), //
		s(1000, 1, 11),  // gap of 800 ms
		s(0, 0, 5),      // another player
	})
	want := [][]int{{0}, {0, 50, 100}, {150, 200}, {1000}}
	if len(tracks) != len(want) {
		t.Fatalf("%d tracks, want %d: %+v", len(tracks), len(want), tracks)
	}
	for i, tr := range tracks {
		if len(tr.Samples) != len(want[i]) {
			t.Errorf("track %d: %d samples, want %d", i, len(tr.Samples), len(want[i]))
			continue
		}
		for j, ms := range want[i] {
			if tr.Samples[j].T != time.Duration(ms)*time.Millisecond {
				t.Errorf("track %d sample %d at %v, want %d ms", i, j, tr.Samples[j].T, ms)
			}
		}
	}
}

func TestBuildTrendMap(t *testing.T) {
	var samples []Sample
	// Player 0 of team 0 walks east along y = 1, then back west: one
	// axis, walked both ways. Player 1 of team 1 walks north along
	// x = 9. Player 2 of team 0 stands still at (5, 9).
	for i := 0; i <= 80; i++ {
		x := float64(i) / 10
		if i > 40 {
			x = 8 - x
		}
		at := time.Duration(i) * 25 * time.Millisecond
		samples = append(samples,
			Sample{T: at, Player: 0, Team: 0, Pos: geom.V(x, 1, 0)},
			Sample{T: at, Player: 1, Team: 1, Pos: geom.V(9, x/2, 0)},
			Sample{T: at, Player: 2, Team: 0, Pos: geom.V(5, 9, 0)})
	}
	box := geom.Box(geom.V(0, 0, 0), geom.V(10, 10, 0))
	all := &TrendMap{Map: "m", Team: -1, Bounds: box, NX: 10, NY: 10}
	if err := all.Build(samples); err != nil {
		t.Fatal(err)
	}
	if d, ok := all.Lookup(geom.V(2.5, 1.2, 0)); !ok || Correlation(d, geom.V(1, 0, 0)) < 1-1e-9 {
		t.Errorf("corridor walked both ways: trend %v %v, want the x axis", d, ok)
	}
	if d, ok := all.Lookup(geom.V(9.5, 1.5, 0)); !ok || Correlation(d, geom.V(0, 1, 0)) < 1-1e-9 {
		t.Errorf("northward path: trend %v %v, want the y axis", d, ok)
	}
	if _, ok := all.Lookup(geom.V(5, 9, 0)); ok {
		t.Error("standing still made a trend")
	}
	if _, ok := all.Lookup(geom.V(11, 1, 0)); ok {
		t.Error("trend outside the bounds")
	}
	team0 := &TrendMap{Map: "m", Team: 0, Bounds: box, NX: 10, NY: 10}
	if err := team0.Build(samples); err != nil {
		t.Fatal(err)
	}
	if _, ok := team0.Lookup(geom.V(9.5, 1.5, 0)); ok {
		t.Error("team 0's map has team 1's trend")
	}
	for _, bad := range []*TrendMap{
		{Team: -1, Bounds: box, NX: 10, NY: 10},
		{Map: "m", Team: -2, Bounds: box, NX: 10, NY: 10},
		{Map: "m", Team: 0, Bounds: box, NX: 0, NY: 10},
		{Map: "m", Team: 0, Bounds: box, NX: 10, NY: MaxGrid + 1},
		{Map: "m", Team: 0, NX: 10, NY: 10},
	} {
		if err := bad.Build(samples); err == nil {
			t.Errorf("Build accepted %+v", bad)
		}
	}
	// Through the file format and back.
	var buf bytes.Buffer
	if err := all.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("m.json", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if back.Map != "m" || back.Team != -1 || back.NX != 10 || back.Bounds != all.Bounds {
		t.Errorf("header changed: %+v", back)
	}
	for k := range all.Cells {
		a, b := all.Cells[k], back.Cells[k]
		if a.N != b.N || a.N > 0 && Correlation(a.Dir, b.Dir) < 1-1e-6 {
			t.Errorf("cell %d: %+v, back %+v", k, a, b)
		}
	}
	var svg bytes.Buffer
	if err := all.WriteSVG(&svg, []geom.AABB{geom.Box(geom.V(4, 4, 0), geom.V(6, 6, 1))}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), "<line"); n != 4+2 {
		t.Errorf("%d lines drawn, want one per cell with a trend (6)", n)
	}
}

const goodTrend = `{
  "map": "metro",
  "team": 0,
  "bounds": {"min": [-32, -14], "max": [32, 14]},
  "nx": 4,
  "ny": 2,
  "cells": [
    [0, 0, 90, 3],
    [3, 1, 0, 1]
  ]
}
`

func TestParseTrendErrors(t *testing.T) {
	if m, err := Parse("t.json", []byte(goodTrend)); err != nil {
		t.Fatalf("good file: %v", err)
	} else if d, ok := m.Lookup(geom.V(-30, -10, 0)); !ok || Correlation(d, geom.V(0, 1, 0)) < 1-1e-9 {
		t.Errorf("cell (0, 0): %v %v", d, ok)
	}
	r := func(old, new string) string { return strings.Replace(goodTrend, old, new, 1) }
	for _, tc := range []struct{ in, want string }{
		{"", "t.json: empty file"},
		{"[]", "t.json:1:1: want an object, got an array"},
		{r(`"nx": 4`, `"nx": 4.5`), "t.json:5:9: nx: 4.5 is not an integer"},
		{r(`"nx": 4`, `"nx": "4"`), "t.json:5:9: nx: want an integer, got a string"},
		{r(`"nx": 4`, `"nx": 0`), "t.json:5:9: nx: 0, want 1 to 400"},
		{r(`"team": 0`, `"teem": 0`), "t.json:3:3: teem: unknown field (want map, team, bounds, nx, ny or cells)"},
		{r(`"team": 0,`, ``), "t.json:1:1: team: missing"},
		{r(`"map": "metro"`, `"map": ""`), "t.json:2:10: map: name of 0 bytes, want 1 to 64"},
		{r(`"min": [-32, -14]`, `"min": [32, -14]`), "t.json:4:13: bounds: min [32 -14], max [32 14]: want min below max, within ±10000 m"},
		{r(`"min": [-32, -14]`, `"min": [-32]`), "t.json:4:13: bounds: want min and max of two numbers each, [x, y]"},
		{r(`"max": [32, 14]}`, `"max": [32, 14], "mid": 1}`), "t.json:4:50: bounds.mid: unknown field (want min or max)"},
		{r(`[3, 1, 0, 1]`, `[4, 1, 0, 1]`), "t.json:9:6: cells[1][0]: ix 4 is not an integer in 0..3"},
		{r(`[3, 1, 0, 1]`, `[3, 1, 360, 1]`), "t.json:9:12: cells[1][2]: angle 360 outside 0 to below 360 degrees"},
		{r(`[3, 1, 0, 1]`, `[3, 1, 0, 0]`), "t.json:9:15: cells[1][3]: n 0 is not an integer in 1..2147483647"},
		{r(`[3, 1, 0, 1]`, `[0, 0, 0, 1]`), "t.json:9:5: cells[1]: cell (0, 0) listed twice"},
		{r(`[3, 1, 0, 1]`, `[3, 1, 0]`), "t.json:9:5: cells[1]: want 4 values, got 3"},
		{r(`[3, 1, 0, 1]`, `[3, 1, "x", 1]`), "t.json:9:12: cells[1][2]: want a number, got a string"},
		{r(`[3, 1, 0, 1]`, `[3, 1, 0, 1,]`), "t.json:9:17: cells[1]: invalid character ']' looking for beginning of value"},
		{r(`[3, 1, 0, 1]`, `[3, 1, 1e999, 1]`), "t.json:9:12: cells[1][2]: 1e999 is out of range"},
		{r(`"nx": 4,`, `"nx": 4, "nx": 4,`), "t.json:5:12: nx: given twice (first on line 5)"},
		{goodTrend + "{}", "t.json:12:1: unexpected data after the end of the top-level value"},
		{goodTrend[:60], "t.json:4:28: bounds.min: unexpected end of file"},
		{strings.Repeat(" ", MaxTrendFileSize+1), "t.json: larger than 16 MiB, the limit for a trend map file"},
	} {
		_, err := Parse("t.json", []byte(tc.in))
		var e *cfgfile.Error
		if !errors.As(err, &e) || err.Error() != tc.want {
			t.Errorf("error\n got %v\nwant %s", err, tc.want)
		}
	}
}

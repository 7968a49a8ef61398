package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseLatency: --latency either parses to a table that, written
// back as PLAYER:MS pairs, parses to the same table, or is refused with a
// usage error (exit 2); it never panics.
func FuzzParseLatency(f *testing.F) {
	for _, s := range []string{"", "2:250", "2:250,5:250", " 1:0 , 3:12.5", "1:NaN", "1:-Inf", "x:1", "1:", ":", ",", "1:1,1:2", "-3:1e308", "1:0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lat, err := parseLatency(s, 12)
		if err != nil {
			var u usageError
			if !errors.As(err, &u) || lat != nil {
				t.Fatalf("%q: %v (%T), table %v: want a usage error and no table", s, err, err, lat)
			}
			return
		}
		var pairs []string
		for id, ms := range lat {
			pairs = append(pairs, strconv.Itoa(id)+":"+strconv.FormatFloat(ms, 'g', -1, 64))
		}
		back, err := parseLatency(strings.Join(pairs, ","), 12)
		if err != nil || len(back) != len(lat) {
			t.Fatalf("%q parsed as %v, which reads back as %v (%v)", s, lat, back, err)
		}
		for id, ms := range lat {
			if b, ok := back[id]; !ok || b != ms && !(math.IsNaN(b) && math.IsNaN(ms)) {
				t.Fatalf("%q: player %d at %v reads back as %v", s, id, ms, b)
			}
		}
	})
}

// FuzzReadCells: a resumed run reads whatever cells.jsonl holds (a file
// cut short, edited or corrupted) either into cells that write back to a
// file reading the same, or into an error naming the file; it never
// panics.
func FuzzReadCells(f *testing.F) {
	good := `{"cell":{"index":0},"metrics":{"sbc":0.5},"wall_s":1.5}` + "\n"
	for _, s := range []string{"", "\n", good, good + good, good + `{"cell":`, `{"cell":{"index":-1},"metrics":null}` + "\n", "[1,2]\n", `{"series":{"x":[1e308,-0]}}` + "\n", "\x00\n", `{"metrics":{"a":1e999}}` + "\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir() // one per fuzzing process, which runs inputs one at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, cellsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cells, err := readCells(dir)
		if err != nil {
			if cells != nil || !strings.Contains(err.Error(), cellsFile) {
				t.Fatalf("error %v with %d cells: want no cells and the file named", err, len(cells))
			}
			return
		}
		if err := writeCells(dir, cells); err != nil {
			t.Fatalf("cells read could not be written back: %v", err)
		}
		again, err := readCells(dir)
		if err != nil || len(again) != len(cells) {
			t.Fatalf("%d cells written back read as %d (%v)", len(cells), len(again), err)
		}
		// The cells as written are a fixed point: reading and writing
		// them again changes nothing.
		first, _ := os.ReadFile(filepath.Join(dir, cellsFile))
		if err := writeCells(dir, again); err != nil {
			t.Fatal(err)
		}
		second, _ := os.ReadFile(filepath.Join(dir, cellsFile))
		if !bytes.Equal(first, second) {
			t.Fatalf("cells.jsonl changed on a second round trip:\n%s\n%s", first, second)
		}
		for _, c := range again {
			if _, err := json.Marshal(c); err != nil {
				t.Fatal(err)
			}
		}
	})
}

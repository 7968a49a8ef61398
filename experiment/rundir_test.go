package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		if err := os.WriteFile(filepath.Join(dir, CellsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cells, err := ReadCells(dir)
		if err != nil {
			if cells != nil || !strings.Contains(err.Error(), CellsFile) {
				t.Fatalf("error %v with %d cells: want no cells and the file named", err, len(cells))
			}
			return
		}
		if err := WriteCells(dir, cells); err != nil {
			t.Fatalf("cells read could not be written back: %v", err)
		}
		again, err := ReadCells(dir)
		if err != nil || len(again) != len(cells) {
			t.Fatalf("%d cells written back read as %d (%v)", len(cells), len(again), err)
		}
		// The cells as written are a fixed point: reading and writing
		// them again changes nothing.
		first, _ := os.ReadFile(filepath.Join(dir, CellsFile))
		if err := WriteCells(dir, again); err != nil {
			t.Fatal(err)
		}
		second, _ := os.ReadFile(filepath.Join(dir, CellsFile))
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

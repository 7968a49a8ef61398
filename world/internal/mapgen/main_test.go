package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/world"
)

// TestMapsUpToDate checks that the committed map files are exactly what
// mapgen writes, and that they are the maps world ships.
func TestMapsUpToDate(t *testing.T) {
	var names []string
	for _, m := range maps() {
		names = append(names, m.Name)
		want := world.Encode(m)
		if _, err := world.Parse(m.Name+".json", want); err != nil {
			t.Errorf("generated map is invalid: %v", err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "maps", m.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("world/maps/%s.json is out of date: run go run ./world/internal/mapgen", m.Name)
		}
	}
	slices.Sort(names)
	if shipped := world.Names(); !slices.Equal(names, shipped) {
		t.Errorf("mapgen writes %v, world ships %v", names, shipped)
	}
}

package reckoning

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/cfgfile"
)

// MaxTrendFileSize is the largest trend map file Parse reads.
const MaxTrendFileSize = 16 << 20

// Parse decodes and checks a trend map file; name names it in errors,
// which are all *cfgfile.Error ("file:line:col: cells[3]: problem"). A
// trend map file is one JSON object:
//
//	{
//	  "map": "metro",
//	  "team": -1,
//	  "bounds": {"min": [-32, -14], "max": [32, 14]},
//	  "nx": 100,
//	  "ny": 100,
//	  "cells": [
//	    [12, 40, 87.5, 31],
//	    [13, 40, 91.25, 28]
//	  ]
//	}
//
// map names the map (1 to 64 bytes); team is the team whose paths were
// used, or -1 for all; bounds is the grid's area in metres (x and y,
// min below max, within ±10 km); nx and ny count the cells along x and
// y (1 to MaxGrid). Each entry of cells is one cell that players moved
// through: its column ix (0 to nx-1), row iy (0 to ny-1), the angle of
// its axis of movement in degrees from +x counter-clockwise (0 to below
// 360), and the number of movements averaged (at least 1). Cells not
// listed have no trend; no cell is listed twice. Unknown fields and
// fields given twice are errors, and a file may be at most 16 MiB
// (MaxTrendFileSize). Parsing takes time linear in the file's size.
func Parse(name string, data []byte) (*TrendMap, error) {
	var f trendFile
	doc, err := trendFileKind.DecodeJSON(name, data, &f)
	if err != nil {
		return nil, err
	}
	m, p := f.trendMap()
	if p != nil {
		return nil, doc.Locate(p)
	}
	return m, nil
}

var trendFileKind = cfgfile.Kind{Name: "trend map file", MaxSize: MaxTrendFileSize}

// Load reads and parses the trend map file at path.
func Load(path string) (*TrendMap, error) {
	data, err := trendFileKind.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Write writes m as a trend map file, one cell a line.
func (m *TrendMap) Write(w io.Writer) error {
	if err := m.checkGrid(); err != nil {
		return err
	}
	if len(m.Cells) != m.NX*m.NY {
		return fmt.Errorf("reckoning: trend map: %d cells, want %d x %d", len(m.Cells), m.NX, m.NY)
	}
	bw := bufio.NewWriter(w)
	name, _ := json.Marshal(m.Map)
	fmt.Fprintf(bw, "{\n  \"map\": %s,\n  \"team\": %d,\n  \"bounds\": {\"min\": [%s, %s], \"max\": [%s, %s]},\n  \"nx\": %d,\n  \"ny\": %d,\n  \"cells\": [",
		name, m.Team, num(m.Bounds.Min.X), num(m.Bounds.Min.Y), num(m.Bounds.Max.X), num(m.Bounds.Max.Y), m.NX, m.NY)
	sep := "\n"
	for k, c := range m.Cells {
		if c.N == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s    [%d, %d, %s, %d]", sep, k%m.NX, k/m.NX, num(axisDegrees(c.Dir)), c.N)
		sep = ",\n"
	}
	if sep == "\n" {
		bw.WriteString("]\n}\n")
	} else {
		bw.WriteString("\n  ]\n}\n")
	}
	return bw.Flush()
}

// axisDegrees returns the angle of the axis along d in [0, 180),
// rounded to a hundredth of a degree.
func axisDegrees(d geom.Vec3) float64 {
	a := math.Atan2(d.Y, d.X) * 180 / math.Pi
	a = math.Round(a*100) / 100
	for a < 0 {
		a += 180
	}
	for a >= 180 {
		a -= 180
	}
	return a
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// trendFile is a trend map file as decoded; pointers tell a missing
// field from a zero one.
type trendFile struct {
	Map    *string `json:"map"`
	Team   *int    `json:"team"`
	Bounds *struct {
		Min []float64 `json:"min"`
		Max []float64 `json:"max"`
	} `json:"bounds"`
	NX *int `json:"nx"`
	NY *int `json:"ny"`
	// Cells are [ix, iy, angle, n]; ix, iy and n are checked to be whole.
	Cells *[][4]float64 `json:"cells"`
}

// trendMap checks the decoded file and returns the trend map it holds.
func (f *trendFile) trendMap() (*TrendMap, *cfgfile.Problem) {
	switch {
	case f.Map == nil:
		return nil, cfgfile.Problemf("map", "missing")
	case f.Team == nil:
		return nil, cfgfile.Problemf("team", "missing")
	case f.Bounds == nil:
		return nil, cfgfile.Problemf("bounds", "missing")
	case f.NX == nil:
		return nil, cfgfile.Problemf("nx", "missing")
	case f.NY == nil:
		return nil, cfgfile.Problemf("ny", "missing")
	case f.Cells == nil:
		return nil, cfgfile.Problemf("cells", "missing")
	}
	m := &TrendMap{Map: *f.Map, Team: *f.Team, NX: *f.NX, NY: *f.NY}
	if len(m.Map) == 0 || len(m.Map) > 64 {
		return nil, cfgfile.Problemf("map", "name of %d bytes, want 1 to 64", len(m.Map))
	}
	if m.Team < -1 || m.Team >= MaxPathPlayer {
		return nil, cfgfile.Problemf("team", "%d, want -1 to %d", m.Team, MaxPathPlayer-1)
	}
	b := f.Bounds
	if len(b.Min) != 2 || len(b.Max) != 2 {
		return nil, cfgfile.Problemf("bounds", "want min and max of two numbers each, [x, y]")
	}
	m.Bounds = geom.AABB{Min: geom.V(b.Min[0], b.Min[1], 0), Max: geom.V(b.Max[0], b.Max[1], 0)}
	for _, g := range []struct {
		field string
		n     int
	}{{"nx", m.NX}, {"ny", m.NY}} {
		if g.n < 1 || g.n > MaxGrid {
			return nil, cfgfile.Problemf(g.field, "%d, want 1 to %d", g.n, MaxGrid)
		}
	}
	if err := m.checkGrid(); err != nil {
		return nil, cfgfile.Problemf("bounds", "min %v, max %v: want min below max, within ±%v m", b.Min, b.Max, MaxPathCoord)
	}
	m.Cells = make([]TrendCell, m.NX*m.NY)
	for i, r := range *f.Cells {
		ix, iy, angle, n := r[0], r[1], r[2], r[3]
		switch {
		case ix != math.Trunc(ix) || ix < 0 || ix >= float64(m.NX):
			return nil, cfgfile.Problemf(cellPath(i, 0), "ix %v is not an integer in 0..%d", ix, m.NX-1)
		case iy != math.Trunc(iy) || iy < 0 || iy >= float64(m.NY):
			return nil, cfgfile.Problemf(cellPath(i, 1), "iy %v is not an integer in 0..%d", iy, m.NY-1)
		case !(angle >= 0 && angle < 360):
			return nil, cfgfile.Problemf(cellPath(i, 2), "angle %v outside 0 to below 360 degrees", angle)
		case n != math.Trunc(n) || n < 1 || n > math.MaxInt32:
			return nil, cfgfile.Problemf(cellPath(i, 3), "n %v is not an integer in 1..%d", n, math.MaxInt32)
		}
		c := &m.Cells[int(iy)*m.NX+int(ix)]
		if c.N != 0 {
			return nil, cfgfile.Problemf(cellPath(i, -1), "cell (%v, %v) listed twice", ix, iy)
		}
		rad := angle * math.Pi / 180
		c.Dir, c.N = geom.V(math.Cos(rad), math.Sin(rad), 0), int(n)
	}
	return m, nil
}

// cellPath is the path of value j of entry i of cells (-1: the entry).
func cellPath(i, j int) string {
	p := "cells[" + strconv.Itoa(i) + "]"
	if j >= 0 {
		p += "[" + strconv.Itoa(j) + "]"
	}
	return p
}

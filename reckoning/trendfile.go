package reckoning

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/lagkit/lagkit/geom"
)

// MaxTrendFileSize is the largest trend map file Parse reads.
const MaxTrendFileSize = 16 << 20

// Parse decodes and checks a trend map file; name names it in errors,
// which are all *FileError. A trend map file is one JSON object:
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
// listed have no trend; no cell is listed twice. Unknown fields are
// errors.
func Parse(name string, data []byte) (*TrendMap, error) {
	p := &trendParser{name: name, data: data}
	m, err := p.parse()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Load reads and parses the trend map file at path.
func Load(path string) (*TrendMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTrendFileSize+1))
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

// trendParser reads a trend map file token by token, so every error can
// name its line.
type trendParser struct {
	name string
	data []byte
	dec  *json.Decoder
}

// cellRow is an entry of cells and the line it is on.
type cellRow struct {
	line int
	v    []json.Number
}

func (p *trendParser) fail(line int, field, format string, args ...any) error {
	return &FileError{File: p.name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// line returns the line of the next value.
func (p *trendParser) line() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return bytes.Count(p.data[:off], []byte("\n")) + 1
}

// jsonError explains an error of the decoder reading the value that
// starts on line.
func (p *trendParser) jsonError(line int, field string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.fail(line, field, "unexpected end of file")
	case errors.As(err, &syn):
		// The decoder counts syn.Offset from where it last started, not
		// from the start of the file, so the value's line is the best
		// place known.
		return p.fail(line, field, "%v", syn)
	case errors.As(err, &typ):
		return p.fail(line, field, "want %s, got %s", typ.Type, typ.Value)
	}
	return p.fail(line, field, "%s", bytes.TrimPrefix([]byte(err.Error()), []byte("json: ")))
}

func (p *trendParser) parse() (*TrendMap, error) {
	if len(p.data) > MaxTrendFileSize {
		return nil, p.fail(0, "", "file is larger than %d bytes", MaxTrendFileSize)
	}
	p.dec = json.NewDecoder(bytes.NewReader(p.data))
	p.dec.UseNumber()
	p.dec.DisallowUnknownFields()
	if len(bytes.TrimSpace(p.data)) == 0 {
		return nil, p.fail(0, "", "empty file")
	}
	if tok, err := p.dec.Token(); err != nil {
		return nil, p.jsonError(1, "", err)
	} else if tok != json.Delim('{') {
		return nil, p.fail(1, "", "want a JSON object")
	}
	m := &TrendMap{}
	var (
		seen = map[string]int{}
		rows []cellRow
		end  int
	)
	var bounds struct {
		Min []float64 `json:"min"`
		Max []float64 `json:"max"`
	}
	for p.dec.More() {
		line := p.line()
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.jsonError(line, "", err)
		}
		key, _ := tok.(string)
		if _, dup := seen[key]; dup {
			return nil, p.fail(line, key, "given twice")
		}
		seen[key] = line
		line = p.line()
		switch key {
		case "map":
			err = p.dec.Decode(&m.Map)
		case "team":
			err = p.dec.Decode(&m.Team)
		case "nx":
			err = p.dec.Decode(&m.NX)
		case "ny":
			err = p.dec.Decode(&m.NY)
		case "bounds":
			err = p.dec.Decode(&bounds)
		case "cells":
			rows, err = p.cells()
			if err != nil {
				return nil, err
			}
		default:
			return nil, p.fail(line, key, "unknown field")
		}
		if err != nil {
			return nil, p.jsonError(line, key, err)
		}
	}
	end = p.line()
	if _, err := p.dec.Token(); err != nil {
		return nil, p.jsonError(end, "", err)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail(p.line(), "", "unexpected data after the trend map object")
	}
	for _, f := range []string{"map", "team", "bounds", "nx", "ny", "cells"} {
		if _, ok := seen[f]; !ok {
			return nil, p.fail(end, f, "missing")
		}
	}
	if len(m.Map) == 0 || len(m.Map) > 64 {
		return nil, p.fail(seen["map"], "map", "name of %d bytes, want 1 to 64", len(m.Map))
	}
	if m.Team < -1 || m.Team >= MaxPathPlayer {
		return nil, p.fail(seen["team"], "team", "%d outside -1..%d", m.Team, MaxPathPlayer-1)
	}
	if len(bounds.Min) != 2 || len(bounds.Max) != 2 {
		return nil, p.fail(seen["bounds"], "bounds", "want min and max of two numbers each, [x, y]")
	}
	m.Bounds = geom.AABB{Min: geom.V(bounds.Min[0], bounds.Min[1], 0), Max: geom.V(bounds.Max[0], bounds.Max[1], 0)}
	for _, g := range []struct {
		field string
		n     int
	}{{"nx", m.NX}, {"ny", m.NY}} {
		if g.n < 1 || g.n > MaxGrid {
			return nil, p.fail(seen[g.field], g.field, "%d outside 1..%d", g.n, MaxGrid)
		}
	}
	if err := m.checkGrid(); err != nil {
		return nil, p.fail(seen["bounds"], "bounds", "min %v, max %v: want min below max, within ±%v m", bounds.Min, bounds.Max, MaxPathCoord)
	}
	m.Cells = make([]TrendCell, m.NX*m.NY)
	for i, r := range rows {
		field := fmt.Sprintf("cells[%d]", i)
		if len(r.v) != 4 {
			return nil, p.fail(r.line, field, "%d values, want [ix, iy, angle, n]", len(r.v))
		}
		ix, err1 := strconv.Atoi(r.v[0].String())
		iy, err2 := strconv.Atoi(r.v[1].String())
		angle, err3 := r.v[2].Float64()
		n, err4 := strconv.Atoi(r.v[3].String())
		switch {
		case err1 != nil || ix < 0 || ix >= m.NX:
			return nil, p.fail(r.line, field, "ix %s is not an integer in 0..%d", r.v[0], m.NX-1)
		case err2 != nil || iy < 0 || iy >= m.NY:
			return nil, p.fail(r.line, field, "iy %s is not an integer in 0..%d", r.v[1], m.NY-1)
		case err3 != nil || !(angle >= 0 && angle < 360):
			return nil, p.fail(r.line, field, "angle %s outside 0 to below 360 degrees", r.v[2])
		case err4 != nil || n < 1:
			return nil, p.fail(r.line, field, "n %s is not a positive integer", r.v[3])
		}
		c := &m.Cells[iy*m.NX+ix]
		if c.N != 0 {
			return nil, p.fail(r.line, field, "cell (%d, %d) listed twice", ix, iy)
		}
		rad := angle * math.Pi / 180
		c.Dir, c.N = geom.V(math.Cos(rad), math.Sin(rad), 0), n
	}
	return m, nil
}

// cells reads the cells array.
func (p *trendParser) cells() ([]cellRow, error) {
	line := p.line()
	if tok, err := p.dec.Token(); err != nil {
		return nil, p.jsonError(line, "cells", err)
	} else if tok != json.Delim('[') {
		return nil, p.fail(line, "cells", "want an array")
	}
	var rows []cellRow
	for p.dec.More() {
		r := cellRow{line: p.line()}
		if err := p.dec.Decode(&r.v); err != nil {
			return nil, p.jsonError(r.line, fmt.Sprintf("cells[%d]", len(rows)), err)
		}
		rows = append(rows, r)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.jsonError(p.line(), "cells", err)
	}
	return rows, nil
}

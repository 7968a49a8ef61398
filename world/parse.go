package world

import "github.com/lagkit/lagkit/internal/cfgfile"

// fileMap is the JSON form of a map file. Vectors are slices rather than
// arrays so that a vector with too few or too many numbers is an error
// (encoding/json pads or truncates arrays silently).
type fileMap struct {
	Name       string          `json:"name"`
	Bounds     fileBounds      `json:"bounds"`
	Boxes      []fileBox       `json:"boxes"`
	Spawns     []fileSpawn     `json:"spawns"`
	Objectives []fileObjective `json:"objectives"`
}

type fileBounds struct {
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

type fileBox struct {
	Kind string    `json:"kind"`
	Min  []float64 `json:"min"`
	Max  []float64 `json:"max"`
}

type fileSpawn struct {
	Team int       `json:"team"`
	Pos  []float64 `json:"pos"`
	Yaw  float64   `json:"yaw"`
}

type fileObjective struct {
	Kind string    `json:"kind"`
	Name string    `json:"name"`
	Team int       `json:"team"`
	Pos  []float64 `json:"pos"`
}

// Error describes what is wrong with a map file and where: the file, the
// line and column, the field path (such as "boxes[12].max") and the
// problem.
type Error = cfgfile.Error

// mapFile is the kind of file Parse reads.
var mapFile = cfgfile.Kind{Name: "map file", MaxSize: MaxFileSize}

// Parse decodes and validates a map file. filename names the file in
// errors. Every error it returns is an *Error.
func Parse(filename string, data []byte) (*Map, error) {
	var f fileMap
	doc, err := mapFile.DecodeJSON(filename, data, &f)
	if err != nil {
		return nil, err
	}
	m, p := build(&f)
	if p != nil {
		return nil, doc.Locate(p)
	}
	return m, nil
}

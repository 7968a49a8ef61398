package world

import (
	"encoding/json"
	"strconv"

	"github.com/lagkit/lagkit/geom"
)

// Encode returns m in the map file format, with one box, spawn or objective
// per line so that map files read and diff well. Numbers are written in
// their shortest exact form, so parsing the result of encoding a valid map
// gives the same map back. Encode does not validate m; Parse does.
func Encode(m *Map) []byte {
	b := []byte("{\n  \"name\": ")
	b = appendString(b, m.Name)
	b = append(b, ",\n  \"bounds\": {\"min\": "...)
	b = appendVec(b, m.Bounds.Min)
	b = append(b, ", \"max\": "...)
	b = appendVec(b, m.Bounds.Max)
	b = append(b, "},\n  \"boxes\": ["...)
	for i, x := range m.Boxes {
		b = appendItem(b, i)
		b = append(b, `{"kind": `...)
		b = appendString(b, x.Kind)
		b = append(b, `, "min": `...)
		b = appendVec(b, x.Min)
		b = append(b, `, "max": `...)
		b = appendVec(b, x.Max)
		b = append(b, '}')
	}
	b = appendEnd(b, len(m.Boxes))
	b = append(b, ",\n  \"spawns\": ["...)
	for i, s := range m.Spawns {
		b = appendItem(b, i)
		b = append(b, `{"team": `...)
		b = strconv.AppendInt(b, int64(s.Team), 10)
		b = append(b, `, "pos": `...)
		b = appendVec(b, s.Pos)
		b = append(b, `, "yaw": `...)
		b = appendNum(b, s.Yaw)
		b = append(b, '}')
	}
	b = appendEnd(b, len(m.Spawns))
	b = append(b, ",\n  \"objectives\": ["...)
	for i, o := range m.Objectives {
		b = appendItem(b, i)
		b = append(b, `{"kind": `...)
		b = appendString(b, o.Kind)
		b = append(b, `, "name": `...)
		b = appendString(b, o.Name)
		b = append(b, `, "team": `...)
		b = strconv.AppendInt(b, int64(o.Team), 10)
		b = append(b, `, "pos": `...)
		b = appendVec(b, o.Pos)
		b = append(b, '}')
	}
	b = appendEnd(b, len(m.Objectives))
	return append(b, "\n}\n"...)
}

// appendItem starts the i'th element of a list on its own line.
func appendItem(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return append(b, "\n    "...)
}

// appendEnd closes a list of n elements.
func appendEnd(b []byte, n int) []byte {
	if n > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, ']')
}

func appendVec(b []byte, v geom.Vec3) []byte {
	b = append(b, '[')
	b = appendNum(b, v.X)
	b = append(b, ", "...)
	b = appendNum(b, v.Y)
	b = append(b, ", "...)
	b = appendNum(b, v.Z)
	return append(b, ']')
}

func appendNum(b []byte, x float64) []byte { return strconv.AppendFloat(b, x, 'g', -1, 64) }

func appendString(b []byte, s string) []byte {
	// Marshalling a string cannot fail.
	q, _ := json.Marshal(s)
	return append(b, q...)
}

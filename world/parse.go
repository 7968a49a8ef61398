package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

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

// Error describes what is wrong with a map file and where.
type Error struct {
	File string
	// Line and Col locate the offending value (1-based; Col counts bytes).
	// They are 0 when the place is not known.
	Line, Col int
	// Path is the field path of the offending value, such as
	// "boxes[12].max", or empty when the problem is with the whole file.
	Path string
	Msg  string
}

// Error formats e as "file:line:col: path: message", leaving out the parts
// that are not known.
func (e *Error) Error() string {
	var parts []string
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.Line > 0 {
		parts = append(parts, strconv.Itoa(e.Line), strconv.Itoa(e.Col))
	}
	where := strings.Join(parts, ":")
	if where != "" {
		where += ": "
	}
	if e.Path != "" {
		where += e.Path + ": "
	}
	return where + e.Msg
}

// Parse decodes and validates a map file. filename names the file in
// errors. Every error it returns is an *Error.
func Parse(filename string, data []byte) (*Map, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: filename, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileSize)}
	}
	var f fileMap
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(filename, data, err)
	}
	if off := skipSpace(data, int(dec.InputOffset())); off < len(data) {
		e := &Error{File: filename, Msg: "unexpected data after the map object"}
		e.Line, e.Col = lineCol(data, off)
		return nil, e
	}
	m, p := build(&f)
	if p != nil {
		e := &Error{File: filename, Path: p.path, Msg: p.msg}
		if off, ok := findPath(scan(data), p.path); ok {
			e.Line, e.Col = lineCol(data, off)
		}
		return nil, e
	}
	return m, nil
}

// decodeError turns an error from encoding/json into an *Error that gives
// the line and column of the fault, which encoding/json reports only as a
// byte offset, if at all.
func decodeError(filename string, data []byte, err error) *Error {
	e := &Error{File: filename}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		e.Msg = "empty file"
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Line, e.Col = lineCol(data, len(data))
		e.Msg = "unexpected end of file"
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		e.Line, e.Col = lineCol(data, int(syn.Offset)-1)
		e.Msg = syn.Error()
	case errors.As(err, &typ):
		// The innermost value starting before the reported offset is the
		// one that did not fit.
		s := scan(data)
		for i := len(s.values) - 1; i >= 0; i-- {
			if int64(s.values[i].off) < typ.Offset {
				e.Path = s.values[i].path
				e.Line, e.Col = lineCol(data, s.values[i].off)
				break
			}
		}
		e.Msg = typeProblem(typ)
	default:
		// With the input syntactically valid and of the right types, the
		// only error left is an unknown field.
		s := scan(data)
		if s.unknownKey == "" {
			e.Msg = strings.TrimPrefix(err.Error(), "json: ")
			break
		}
		e.Path = s.unknownPath
		e.Line, e.Col = lineCol(data, s.unknownOff)
		e.Msg = fmt.Sprintf("unknown field %q", s.unknownKey)
	}
	return e
}

// typeProblem describes a value of the wrong JSON type.
func typeProblem(e *json.UnmarshalTypeError) string {
	number := strings.HasPrefix(e.Value, "number ")
	var want string
	switch e.Type.Kind() {
	case reflect.Float64:
		if number {
			return e.Value + " is out of range"
		}
		want = "a number"
	case reflect.Int:
		if number {
			return e.Value + " is not an integer in range"
		}
		want = "an integer"
	case reflect.String:
		want = "a string"
	case reflect.Slice:
		want = "an array"
	case reflect.Struct:
		want = "an object"
	default:
		want = e.Type.String()
	}
	return fmt.Sprintf("want %s, got %s", want, e.Value)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// skipSpace returns the offset of the first byte at or after off that is not
// JSON white space or a separator.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// value records where a JSON value starts.
type value struct {
	path string
	off  int
}

// scanned is the layout of a map file: where each value starts, in file
// order, and the first key that the map file format does not have.
type scanned struct {
	values      []value
	unknownKey  string
	unknownPath string
	unknownOff  int
}

// scan walks data, which encoding/json has already read as one syntactically
// valid value at most 10000 levels deep, alongside the fileMap type. It is
// only run to explain an error, so it favours simplicity over speed.
func scan(data []byte) *scanned {
	s := &scanned{}
	dec := json.NewDecoder(bytes.NewReader(data))
	// Numbers stay text, so one that does not fit a float64 is still walked.
	dec.UseNumber()
	s.walk(dec, data, "", reflect.TypeFor[fileMap]())
	return s
}

// walk reads one value whose Go type is t (nil when unknown) at path, and
// reports false if the input ended early.
func (s *scanned) walk(dec *json.Decoder, data []byte, path string, t reflect.Type) bool {
	off := skipSpace(data, int(dec.InputOffset()))
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	s.values = append(s.values, value{path, off})
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			keyOff := skipSpace(data, int(dec.InputOffset()))
			tok, err := dec.Token()
			if err != nil {
				return false
			}
			key, _ := tok.(string)
			name, ft, known := field(t, key)
			p := join(path, name)
			if !known && s.unknownKey == "" {
				s.unknownKey, s.unknownPath, s.unknownOff = key, path, keyOff
			}
			if !s.walk(dec, data, p, ft) {
				return false
			}
		}
	case json.Delim('['):
		var et reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if !s.walk(dec, data, path+"["+strconv.Itoa(i)+"]", et) {
				return false
			}
		}
	default:
		return true
	}
	_, err = dec.Token() // the closing delimiter
	return err == nil
}

// field returns the field of struct type t that encoding/json would decode
// key into (matching case-insensitively, as it does): its canonical name,
// its type, and whether it exists. Keys of values whose type is not a
// struct count as known, since encoding/json reports those as type errors.
func field(t reflect.Type, key string) (string, reflect.Type, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return key, nil, true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.EqualFold(name, key) {
			return name, f.Type, true
		}
	}
	return key, nil, false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// findPath returns where the value at path starts or, if the file lacks
// it, where the nearest enclosing value that it has starts.
func findPath(s *scanned, path string) (int, bool) {
	for {
		for _, v := range s.values {
			if v.path == path {
				return v.off, true
			}
		}
		if path == "" {
			return 0, false
		}
		i := strings.LastIndexAny(path, ".[")
		path = path[:max(i, 0)]
	}
}

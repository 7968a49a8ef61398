package cfgfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DecodeJSON decodes data, a file of kind k called name, into v (a
// pointer). The file must hold one JSON value whose keys are all fields
// of v's type (exactly as spelt in their json tags), none given twice,
// each value fitting its field; the value itself must fit v (an object
// for a struct, an array for a slice: never null). Every error is an
// *Error.
func (k Kind) DecodeJSON(name string, data []byte, v any) (*Doc, error) {
	if err := k.checkSize(name, data); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: name, Msg: "empty file"}
	}
	if !json.Valid(data) {
		var raw json.RawMessage
		return nil, jsonSyntaxError(name, data, json.Unmarshal(data, &raw))
	}
	if t := reflect.TypeOf(v); bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		// A file is its value: null, which would leave v as it is, is
		// none.
		off := bytes.Index(data, []byte("null"))
		return nil, at(name, data, off, "", "want "+shapeOf(t).want(t, "an object")+", got null")
	}
	w := newJSONWalker(data)
	if p := w.value(reflect.TypeOf(v)); p != nil {
		return nil, at(name, data, p.off, p.path, p.msg)
	}
	if err := json.Unmarshal(data, v); err != nil {
		// The walk checked every value against its field, so this is a
		// type the walk does not know how to check.
		return nil, &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	return &Doc{name: name, data: data}, nil
}

// jsonSyntaxError places a syntax error of encoding/json, whose offset
// counts the bytes read with the offending one, and names the value it
// is in.
func jsonSyntaxError(name string, data []byte, err error) *Error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	off, msg := int(syn.Offset)-1, syn.Error()
	switch {
	case strings.HasPrefix(msg, "unexpected end of JSON input"), int(syn.Offset) >= len(data):
		// At the end, encoding/json reports a number cut short as a
		// number followed by a space.
		off, msg = len(data), "unexpected end of file"
	case strings.HasSuffix(msg, "after top-level value"):
		return at(name, data, off, "", "unexpected data after the end of the top-level value")
	}
	// Walking the file up to the fault gives the path of the value it
	// is in.
	w := newJSONWalker(data)
	w.stopAt = off
	w.value(nil)
	return at(name, data, off, w.pathString(), msg)
}

// jsonWalker reads a JSON file alongside the Go type it is decoded
// into, checking each value against its field. The file has passed
// encoding/json's syntax check up to where the walk stops, so the walker
// only finds where values start and end. It builds a path as text only
// for an error, and allocates only for keys, so a long file costs time
// linear in its size.
type jsonWalker struct {
	data []byte
	pos  int
	path []segment
	// stopAt, if not negative, ends the walk at the first value starting
	// at or after it, with the path leading there.
	stopAt int
	// visit, if set, is called with each value's path and offset; it
	// returns false to stop.
	visit func(path string, off int) bool
}

// segment is one step of a path: a key, or an index when key is "".
type segment struct {
	key   string
	index int
}

func newJSONWalker(data []byte) *jsonWalker {
	return &jsonWalker{data: data, stopAt: -1}
}

// walkProblem is a problem found by a walk, at byte offset off.
type walkProblem struct {
	off       int
	path, msg string
}

// stopped is the problem that ends a walk early without an error: at
// stopAt, at a visit's wish, or at the end of a file cut short.
var stopped = &walkProblem{msg: "stopped"}

func (w *jsonWalker) pathString() string {
	var b strings.Builder
	for _, s := range w.path {
		if s.key != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		} else {
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	return b.String()
}

func (w *jsonWalker) fail(off int, format string, args ...any) *walkProblem {
	return &walkProblem{off: off, path: w.pathString(), msg: fmt.Sprintf(format, args...)}
}

// next moves past white space and the separators between values, and
// returns where the next token starts, or -1 at the end or at stopAt.
func (w *jsonWalker) next() int {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n', ',', ':':
			w.pos++
			continue
		}
		if w.stopAt >= 0 && w.pos >= w.stopAt {
			return -1
		}
		return w.pos
	}
	return -1
}

// str reads the string starting at w.pos and returns its raw text,
// quotes included, or false if the file ends within it.
func (w *jsonWalker) str() ([]byte, bool) {
	for i := w.pos + 1; i < len(w.data); i++ {
		switch w.data[i] {
		case '\\':
			i++
		case '"':
			raw := w.data[w.pos : i+1]
			w.pos = i + 1
			return raw, true
		}
	}
	return nil, false
}

// unquote returns the text of a raw JSON string.
func unquote(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	json.Unmarshal(raw, &s) // checked by encoding/json already
	return s
}

// value reads one value that decodes into a field of type t.
func (w *jsonWalker) value(t reflect.Type) *walkProblem {
	off := w.next()
	if off < 0 {
		return stopped
	}
	if w.visit != nil && !w.visit(w.pathString(), off) {
		return stopped
	}
	s := shapeOf(t)
	mismatch := func(got string) *walkProblem {
		return w.fail(off, "want %s, got %s", s.want(t, "an object"), got)
	}
	switch c := w.data[off]; c {
	case '{':
		if s != shapeObject && s != shapeAny {
			return mismatch("an object")
		}
		w.pos++
		return w.object(t)
	case '[':
		if s != shapeArray && s != shapeAny {
			return mismatch("an array")
		}
		w.pos++
		return w.array(off, t)
	case '"':
		raw, ok := w.str()
		if !ok {
			return stopped
		}
		switch s {
		case shapeString, shapeAny:
		case shapeText:
			if msg := textProblem(t, unquote(raw)); msg != "" {
				return w.fail(off, "%s", msg)
			}
		default:
			return mismatch("a string")
		}
	case 't', 'f', 'n':
		word := "null"
		if c == 't' {
			word = "true"
		} else if c == 'f' {
			word = "false"
		}
		w.pos = min(off+len(word), len(w.data))
		switch {
		case c == 'n' && !nullable(t):
			return mismatch("null")
		case c != 'n' && s != shapeBool && s != shapeAny:
			return mismatch(word)
		}
	default:
		end := off
		for end < len(w.data) && strings.IndexByte("+-0123456789.eE", w.data[end]) >= 0 {
			end++
		}
		if end == off {
			// Not a value: the syntax error the walk was sent to find.
			return stopped
		}
		w.pos = end
		if p := w.number(off, t, s, w.data[off:end]); p != nil {
			return p
		}
	}
	return nil
}

// number checks number text for a field of type t and shape s.
func (w *jsonWalker) number(off int, t reflect.Type, s shape, text []byte) *walkProblem {
	msg := ""
	switch s {
	case shapeNumber:
		// Without an exponent, fewer than 300 digits cannot overflow a
		// float64; most numbers of a long file take this path.
		if bytes.IndexAny(text, "eE") >= 0 || len(text) >= 300 || deref(t).Kind() == reflect.Float32 {
			msg = floatProblem(t, string(text))
		}
	case shapeInteger:
		msg = integerProblem(t, string(text), 10)
	case shapeAny:
	default:
		return w.fail(off, "want %s, got a number", s.want(t, "an object"))
	}
	if msg != "" {
		return w.fail(off, "%s", msg)
	}
	return nil
}

func (w *jsonWalker) object(t reflect.Type) *walkProblem {
	var seen map[string]int
	for {
		off := w.next()
		if off < 0 {
			return stopped
		}
		if w.data[off] == '}' {
			w.pos++
			return nil
		}
		if w.data[off] != '"' {
			return stopped
		}
		raw, ok := w.str()
		if !ok {
			return stopped
		}
		key := unquote(raw)
		w.path = append(w.path, segment{key: key})
		if first, dup := seen[key]; dup {
			line, _ := lineCol(w.data, first)
			return w.fail(off, "given twice (first on line %d)", line)
		}
		if seen == nil {
			seen = map[string]int{}
		}
		seen[key] = off
		ft, ok, known := field(t, "json", key)
		if !ok {
			return w.fail(off, "%s", unknownField(key, known))
		}
		if p := w.value(ft); p != nil {
			return p
		}
		w.path = w.path[:len(w.path)-1]
	}
}

func (w *jsonWalker) array(off int, t reflect.Type) *walkProblem {
	et, n := elem(t), 0
	for ; ; n++ {
		at := w.next()
		if at < 0 {
			return stopped
		}
		if w.data[at] == ']' {
			w.pos++
			break
		}
		w.path = append(w.path, segment{index: n})
		if p := w.value(et); p != nil {
			return p
		}
		w.path = w.path[:len(w.path)-1]
	}
	if want := fixedLen(t); want >= 0 && n != want {
		return w.fail(off, "want %d values, got %d", want, n)
	}
	return nil
}

// jsonOffset returns where the value at path starts in data, a valid
// JSON file, or, if the file lacks it, where its nearest enclosing value
// starts.
func jsonOffset(data []byte, path string) int {
	rank := map[string]int{}
	for p, r := path, 0; ; r++ {
		rank[p] = r
		if p == "" {
			break
		}
		p = parent(p)
	}
	best, bestRank := 0, len(rank)
	w := newJSONWalker(data)
	w.visit = func(p string, off int) bool {
		if r, ok := rank[p]; ok && r < bestRank {
			best, bestRank = off, r
		}
		return bestRank > 0
	}
	w.value(nil)
	return best
}

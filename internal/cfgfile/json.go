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
// each value fitting its field. Every error is an *Error.
func (k Kind) DecodeJSON(name string, data []byte, v any) (*Doc, error) {
	if err := k.checkSize(name, data); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: name, Msg: "empty file"}
	}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonSyntaxError(name, data, err)
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
	case strings.HasPrefix(msg, "unexpected end of JSON input"):
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

// jsonWalker reads a JSON file token by token alongside the Go type it
// is decoded into, checking each value against its field. It builds a
// path as text only for an error, so a long file costs time linear in
// its size.
type jsonWalker struct {
	data []byte
	dec  *json.Decoder
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
	dec := json.NewDecoder(bytes.NewReader(data))
	// Numbers stay text, so each is checked against its own field.
	dec.UseNumber()
	return &jsonWalker{data: data, dec: dec, stopAt: -1}
}

// walkProblem is a problem found by a walk, at byte offset off.
type walkProblem struct {
	off       int
	path, msg string
}

// stopped is the problem that ends a walk early without an error.
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

// next returns the offset of the next token: past white space and the
// separators that Decoder.InputOffset leaves before it.
func (w *jsonWalker) next() int {
	off := int(w.dec.InputOffset())
	for off < len(w.data) {
		switch w.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// value reads one value that decodes into a field of type t.
func (w *jsonWalker) value(t reflect.Type) *walkProblem {
	off := w.next()
	if w.stopAt >= 0 && off >= w.stopAt {
		return stopped
	}
	if w.visit != nil && !w.visit(w.pathString(), off) {
		return stopped
	}
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(off, "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	s := shapeOf(t)
	mismatch := func(got string) *walkProblem {
		return w.fail(off, "want %s, got %s", s.want(t, "an object"), got)
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			if s != shapeObject && s != shapeAny {
				return mismatch("an object")
			}
			return w.object(t)
		}
		if s != shapeArray && s != shapeAny {
			return mismatch("an array")
		}
		return w.array(off, t)
	case string:
		switch s {
		case shapeString, shapeAny:
		case shapeText:
			if msg := textProblem(t, tok); msg != "" {
				return w.fail(off, "%s", msg)
			}
		default:
			return mismatch("a string")
		}
	case json.Number:
		msg := ""
		switch s {
		case shapeNumber:
			msg = floatProblem(t, tok.String())
		case shapeInteger:
			msg = integerProblem(t, tok.String(), 10)
		case shapeAny:
		default:
			return mismatch("a number")
		}
		if msg != "" {
			return w.fail(off, "%s", msg)
		}
	case bool:
		if s != shapeBool && s != shapeAny {
			return mismatch(fmt.Sprint(tok))
		}
	case nil:
		if !nullable(t) {
			return mismatch("null")
		}
	}
	return nil
}

func (w *jsonWalker) object(t reflect.Type) *walkProblem {
	var seen map[string]int
	for w.dec.More() {
		off := w.next()
		if w.stopAt >= 0 && off >= w.stopAt {
			return stopped
		}
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(off, "%s", strings.TrimPrefix(err.Error(), "json: "))
		}
		key, _ := tok.(string)
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
			return w.fail(off, "%s", unknownField(known))
		}
		if p := w.value(ft); p != nil {
			return p
		}
		w.path = w.path[:len(w.path)-1]
	}
	return w.close()
}

func (w *jsonWalker) array(off int, t reflect.Type) *walkProblem {
	et, n := elem(t), 0
	for ; w.dec.More(); n++ {
		w.path = append(w.path, segment{index: n})
		if p := w.value(et); p != nil {
			return p
		}
		w.path = w.path[:len(w.path)-1]
	}
	if want := fixedLen(t); want >= 0 && n != want {
		return w.fail(off, "want %d values, got %d", want, n)
	}
	return w.close()
}

// close reads the delimiter that ends an object or array.
func (w *jsonWalker) close() *walkProblem {
	off := w.next()
	if _, err := w.dec.Token(); err != nil {
		return w.fail(off, "%s", strings.TrimPrefix(err.Error(), "json: "))
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

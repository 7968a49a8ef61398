package cfgfile

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// DecodeTOML decodes data, a file of kind k called name, into v (a
// pointer). Its keys must all be fields of v's type (exactly as spelt in
// their toml tags), none given twice, each value fitting its field, and
// a fixed-size array must get exactly its number of values (go-toml pads
// or cuts them silently). Every error is an *Error.
func (k Kind) DecodeTOML(name string, data []byte, v any) (*Doc, error) {
	if err := k.checkSize(name, data); err != nil {
		return nil, err
	}
	idx, p := indexTOML(data, reflect.TypeOf(v))
	if p != nil {
		if p == errSyntax {
			return nil, tomlDecodeError(name, data, idx, toml.Unmarshal(data, new(map[string]any)))
		}
		return nil, at(name, data, p.off, p.path, p.msg)
	}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, tomlDecodeError(name, data, idx, err)
	}
	return &Doc{name: name, data: data, toml: idx}, nil
}

// tomlDecodeError places an error of go-toml and names the key it is at.
func tomlDecodeError(name string, data []byte, idx *tomlIndex, err error) *Error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		err = &sm.Errors[0]
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{File: name, Msg: strings.TrimPrefix(fmt.Sprint(err), "toml: ")}
	}
	row, col := de.Position()
	off := offsetOf(data, row, col)
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if strings.HasSuffix(msg, "is already defined") {
		msg = "given twice"
	}
	// A fault on a last line that lacks its line end is most likely a
	// file cut short.
	cut := len(data) > 0 && data[len(data)-1] != '\n' && bytes.IndexByte(data[off:], '\n') < 0
	if cut || strings.Contains(msg, "end of input") || strings.Contains(msg, "is incomplete") {
		msg = "unexpected end of file (" + msg + ")"
	}
	return &Error{File: name, Line: row, Col: col, Path: idx.pathAt(data, off), Msg: msg}
}

// lineKey matches the key of a key-value at the start of a line.
var lineKey = regexp.MustCompile(`^[ \t]*([A-Za-z0-9_.-]+)[ \t]*=`)

// pathAt returns the path of the key whose line holds off: a key the
// index has, or, for a line the parser stopped in, the key written at
// its start in the table it is in.
func (ix *tomlIndex) pathAt(data []byte, off int) string {
	k := ix.before(off)
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	if k != nil && k.off >= start {
		return k.path
	}
	m := lineKey.FindSubmatch(data[start:off])
	if m == nil {
		return ""
	}
	table := ""
	for i := len(ix.keys) - 1; i >= 0; i-- {
		if ix.keys[i].table && ix.keys[i].off < start {
			table = ix.keys[i].path
			break
		}
	}
	return joinKey(table, string(m[1]))
}

// offsetOf converts a 1-based line and column into a byte offset.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return min(off+col-1, len(data))
}

// tomlIndex is where each key and table header of a TOML file starts,
// with its path as the file spells it, in file order.
type tomlIndex struct {
	keys []tomlKey
}

type tomlKey struct {
	path  string
	off   int
	table bool // a [table] or [[table]] header
}

// offset returns where path (or its nearest enclosing key) starts; 0,
// the file's start, for the top level.
func (ix *tomlIndex) offset(path string) int {
	for {
		for _, k := range ix.keys {
			if k.path == path {
				return k.off
			}
		}
		if path == "" {
			return 0
		}
		path = parent(path)
	}
}

// before returns the last key starting at or before off: the key whose
// value holds off.
func (ix *tomlIndex) before(off int) *tomlKey {
	if ix == nil {
		return nil
	}
	i := sort.Search(len(ix.keys), func(i int) bool { return ix.keys[i].off > off })
	if i == 0 {
		return nil
	}
	return &ix.keys[i-1]
}

// errSyntax ends indexing at a syntax error, which go-toml's decoder
// then reports with its position.
var errSyntax = &walkProblem{msg: "syntax"}

// tomlWalker indexes a TOML file and checks its keys and values against
// the Go type it is decoded into.
type tomlWalker struct {
	data []byte
	ix   *tomlIndex
	// tables counts the [[x]] tables seen for each array path.
	tables map[string]int
	// defined holds where each key was given, to refuse a second time.
	defined map[string]int
}

func indexTOML(data []byte, root reflect.Type) (*tomlIndex, *walkProblem) {
	w := &tomlWalker{data: data, ix: &tomlIndex{}, tables: map[string]int{}, defined: map[string]int{}}
	var p unstable.Parser
	p.Reset(data)
	table, tableType := "", root
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var prob *walkProblem
			table, tableType, prob = w.header(e, root)
			if prob != nil {
				return w.ix, prob
			}
		case unstable.KeyValue:
			if prob := w.keyValue(e, table, tableType); prob != nil {
				return w.ix, prob
			}
		}
	}
	if p.Error() != nil {
		return w.ix, errSyntax
	}
	return w.ix, nil
}

// keyParts returns the parts of node e's key and where it starts.
func keyParts(e *unstable.Node) ([]string, int) {
	var parts []string
	off := -1
	it := e.Key()
	for it.Next() {
		k := it.Node()
		if off < 0 {
			off = int(k.Raw.Offset)
		}
		parts = append(parts, string(k.Data))
	}
	return parts, off
}

func (w *tomlWalker) fail(off int, path, format string, args ...any) *walkProblem {
	return &walkProblem{off: off, path: path, msg: fmt.Sprintf(format, args...)}
}

// header reads a [table] or [[table]] header and returns the path and
// type of the table it opens.
func (w *tomlWalker) header(e *unstable.Node, root reflect.Type) (string, reflect.Type, *walkProblem) {
	parts, off := keyParts(e)
	path, t := "", root
	for i, key := range parts {
		ft, ok, known := field(t, "toml", key)
		path = joinKey(path, key)
		if !ok {
			return "", nil, w.fail(off, path, "%s", unknownField(key, known))
		}
		t = ft
		last := i == len(parts)-1
		s := shapeOf(t)
		switch {
		case last && e.Kind == unstable.ArrayTable:
			if s != shapeArray && s != shapeAny {
				return "", nil, w.fail(off, path, "want %s, got [[%s]] tables", s.want(t, "a table"), strings.Join(parts, "."))
			}
			n := w.tables[path]
			w.tables[path] = n + 1
			path, t = joinIndex(path, n), elem(t)
		case s == shapeArray:
			// A table within the last [[x]] table so far.
			path, t = joinIndex(path, max(w.tables[path]-1, 0)), elem(t)
		case s != shapeObject && s != shapeAny:
			return "", nil, w.fail(off, path, "want %s, got a table", s.want(t, "a table"))
		}
	}
	if e.Kind == unstable.Table {
		if first, dup := w.defined[path]; dup {
			line, _ := lineCol(w.data, first)
			return "", nil, w.fail(off, path, "given twice (first on line %d)", line)
		}
		w.defined[path] = off
	}
	w.ix.keys = append(w.ix.keys, tomlKey{path, off, true})
	return path, t, nil
}

// keyValue reads key = value in the table at path, of type t.
func (w *tomlWalker) keyValue(e *unstable.Node, path string, t reflect.Type) *walkProblem {
	parts, off := keyParts(e)
	for i, key := range parts {
		ft, ok, known := field(t, "toml", key)
		path = joinKey(path, key)
		if !ok {
			w.ix.keys = append(w.ix.keys, tomlKey{path: path, off: off})
			return w.fail(off, path, "%s", unknownField(key, known))
		}
		t = ft
		if s := shapeOf(t); i < len(parts)-1 && s != shapeObject && s != shapeAny {
			return w.fail(off, path, "want %s, got a table", s.want(t, "a table"))
		}
	}
	w.ix.keys = append(w.ix.keys, tomlKey{path: path, off: off})
	if first, dup := w.defined[path]; dup {
		line, _ := lineCol(w.data, first)
		return w.fail(off, path, "given twice (first on line %d)", line)
	}
	w.defined[path] = off
	return w.value(e.Value(), off, path, t)
}

// value checks value node v, of the key at off, against type t.
func (w *tomlWalker) value(v *unstable.Node, off int, path string, t reflect.Type) *walkProblem {
	s := shapeOf(t)
	mismatch := func(got string) *walkProblem {
		return w.fail(off, path, "want %s, got %s", s.want(t, "a table"), got)
	}
	text := string(v.Data)
	switch v.Kind {
	case unstable.String:
		switch s {
		case shapeString, shapeAny:
		case shapeText:
			if msg := textProblem(t, text); msg != "" {
				return w.fail(off, path, "%s", msg)
			}
		default:
			return mismatch("a string")
		}
	case unstable.Integer:
		msg := ""
		switch s {
		case shapeInteger:
			msg = integerProblem(t, text, 0)
		case shapeNumber, shapeAny:
		default:
			return mismatch("an integer")
		}
		if msg != "" {
			return w.fail(off, path, "%s", msg)
		}
	case unstable.Float:
		msg := ""
		switch s {
		case shapeNumber:
			msg = floatProblem(t, text)
		case shapeInteger:
			msg = text + " is not an integer"
		case shapeAny:
		default:
			return mismatch("a number")
		}
		if msg != "" {
			return w.fail(off, path, "%s", msg)
		}
	case unstable.Bool:
		if s != shapeBool && s != shapeAny {
			return mismatch(text)
		}
	case unstable.Array:
		if s != shapeArray && s != shapeAny {
			return mismatch("an array")
		}
		return w.array(v, off, path, t)
	case unstable.InlineTable:
		if s != shapeObject && s != shapeAny {
			return mismatch("a table")
		}
		return w.inlineTable(v, path, t)
	default:
		if s != shapeAny && s != shapeText {
			return mismatch("a date or time")
		}
	}
	return nil
}

func (w *tomlWalker) array(v *unstable.Node, off int, path string, t reflect.Type) *walkProblem {
	et, n := elem(t), 0
	it := v.Children()
	for it.Next() {
		c := it.Node()
		if c.Kind == unstable.Comment {
			continue
		}
		if p := w.value(c, off, joinIndex(path, n), et); p != nil {
			return p
		}
		n++
	}
	if want := fixedLen(t); want >= 0 && n != want {
		return w.fail(off, path, "want %d values, got %d", want, n)
	}
	return nil
}

func (w *tomlWalker) inlineTable(v *unstable.Node, path string, t reflect.Type) *walkProblem {
	it := v.Children()
	for it.Next() {
		if c := it.Node(); c.Kind == unstable.KeyValue {
			if p := w.keyValue(c, path, t); p != nil {
				return p
			}
		}
	}
	return nil
}

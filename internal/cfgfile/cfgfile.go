// Package cfgfile reads lagkit's configuration and data files (maps,
// weapons, scenarios, trend maps, and the schedules and server configs
// to come) strictly, and says where they are wrong in one way for all of
// them: "file:line:col: field.path: problem", with the field path spelt
// as the file spells its keys (player[1].rtt_ms) and the problem in a
// user's words, never a Go type name.
//
// A Kind names a kind of file and its size limit. Kind.ReadFile reads a
// file within the limit; Kind.DecodeJSON and Kind.DecodeTOML decode one
// into a Go value, refusing unknown fields, duplicate keys, values of the
// wrong type, numbers out of range for their field and arrays of the
// wrong length for a fixed-size array, and return a Doc whose Errorf
// locates the problems that checks after decoding find.
package cfgfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Error is a problem with a file: where it is and what it is. Every
// error this package returns is an *Error.
type Error struct {
	File string
	// Line and Col locate the problem (1-based; Col counts bytes). They
	// are 0 when the problem has no place, as for a file too large.
	Line, Col int
	// Path is the field path of the offending value as the file spells
	// it, such as "boxes[12].max" or "player[1].do[0].at", or empty when
	// the problem is with the file as a whole.
	Path string
	// Msg says what is wrong.
	Msg string
	// Err is the error of reading the file, if that was the problem.
	Err error
}

// Unwrap returns the error of reading the file, so that errors.Is finds
// fs.ErrNotExist in an *Error about a missing file.
func (e *Error) Unwrap() error { return e.Err }

// Error formats e as "file:line:col: path: problem", leaving out the
// parts that are not known.
func (e *Error) Error() string {
	var b []byte
	b = append(b, e.File...)
	if e.Line > 0 {
		if len(b) > 0 {
			b = append(b, ':')
		}
		b = strconv.AppendInt(b, int64(e.Line), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Col), 10)
	}
	if len(b) > 0 {
		b = append(b, ": "...)
	}
	if e.Path != "" {
		b = append(b, e.Path...)
		b = append(b, ": "...)
	}
	return string(append(b, e.Msg...))
}

// Kind is a kind of file: what to call it in errors and how large it may
// be. Limits keep a hostile or mistaken file (a log passed as a map) from
// being read whole into memory.
type Kind struct {
	// Name says what the file is, as in "larger than 1 MiB, the limit
	// for a map file".
	Name string
	// MaxSize is the largest file accepted, in bytes.
	MaxSize int
}

// ReadFile reads the file at path, refusing one larger than k.MaxSize
// without reading more than one byte past the limit.
func (k Kind) ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(k.MaxSize)+1))
	if err != nil {
		return nil, ioError(path, err)
	}
	if err := k.checkSize(path, data); err != nil {
		return nil, err
	}
	return data, nil
}

// ioError turns an error opening or reading a file into an *Error,
// dropping the path that fs.PathError repeats.
func ioError(path string, err error) *Error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &Error{File: path, Msg: msg, Err: err}
}

func (k Kind) checkSize(name string, data []byte) *Error {
	if len(data) > k.MaxSize {
		return &Error{File: name, Msg: fmt.Sprintf("larger than %s, the limit for a %s", Size(k.MaxSize), k.Name)}
	}
	return nil
}

// Size writes a byte count as people read it: "1 MiB", "256 KiB" or
// "1000 bytes".
func Size(n int) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// Doc is a decoded file, kept to locate the problems found in its values
// after decoding.
type Doc struct {
	name string
	data []byte
	// toml indexes a TOML file's keys; nil for JSON, which is scanned
	// again only when an error needs a place.
	toml *tomlIndex
}

// Errorf returns an *Error about the value at path (spelt as in Error's
// Path), placed at that value in the file or, when the file lacks it (a
// missing field), at the nearest enclosing value it has.
func (d *Doc) Errorf(path, format string, args ...any) error {
	e := &Error{File: d.name, Path: path, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Col = lineCol(d.data, d.offset(path))
	return e
}

// Problem is a value that does not do, found by the checks a caller
// runs after decoding: its path, spelt as in Error's Path, and what is
// wrong. Checks return one; Doc.Locate places it in the file.
type Problem struct {
	Path string
	Msg  string
}

// Problemf returns a Problem at path with a formatted message.
func Problemf(path, format string, args ...any) *Problem {
	return &Problem{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Within returns p with prefix put before its path, for checks of a part
// of a file that know only the path within that part ("player[2]." and
// "rtt_ms" make "player[2].rtt_ms").
func (p *Problem) Within(prefix string) *Problem {
	p.Path = prefix + p.Path
	return p
}

// Locate returns p as an *Error placed at its value in the file, as
// Errorf does.
func (d *Doc) Locate(p *Problem) error { return d.Errorf(p.Path, "%s", p.Msg) }

// Line returns the line the value at path (or its nearest enclosing
// value) starts on.
func (d *Doc) Line(path string) int {
	line, _ := lineCol(d.data, d.offset(path))
	return line
}

func (d *Doc) offset(path string) int {
	if d.toml != nil {
		return d.toml.offset(path)
	}
	return jsonOffset(d.data, path)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// at returns an *Error at byte offset off of data.
func at(name string, data []byte, off int, path, msg string) *Error {
	e := &Error{File: name, Path: path, Msg: msg}
	e.Line, e.Col = lineCol(data, off)
	return e
}

// parent returns the path enclosing path: "a.b[2]" for "a.b[2].c", "a.b"
// for "a.b[2]", "" for "a".
func parent(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return ""
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

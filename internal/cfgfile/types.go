package cfgfile

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// shape is what a Go type accepts from a file, in the file's terms.
type shape int

const (
	shapeAny    shape = iota // an interface or json.RawMessage: anything
	shapeObject              // a struct, or a map with string keys
	shapeArray               // a slice or an array
	shapeString
	shapeText // a string that the type's UnmarshalText must accept
	shapeNumber
	shapeInteger
	shapeBool
	shapeOther // a type no file value can fill (a channel, a func)
)

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessage      = reflect.TypeFor[json.RawMessage]()
	jsonNumber      = reflect.TypeFor[json.Number]()
)

// deref strips pointers from t.
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// shapeOf returns what t accepts; a nil t (the elements of an interface)
// accepts anything.
func shapeOf(t reflect.Type) shape {
	t = deref(t)
	switch {
	case t == nil || t == rawMessage || t.Kind() == reflect.Interface:
		return shapeAny
	case t == jsonNumber:
		return shapeNumber
	case reflect.PointerTo(t).Implements(textUnmarshaler):
		return shapeText
	}
	switch t.Kind() {
	case reflect.Struct:
		return shapeObject
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return shapeObject
		}
	case reflect.Slice, reflect.Array:
		return shapeArray
	case reflect.String:
		return shapeString
	case reflect.Float32, reflect.Float64:
		return shapeNumber
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return shapeInteger
	case reflect.Bool:
		return shapeBool
	}
	return shapeOther
}

// want names what shape s accepts, for "want ..., got ..." messages.
func (s shape) want(t reflect.Type, tableWord string) string {
	switch s {
	case shapeObject:
		return tableWord
	case shapeArray:
		if t = deref(t); t.Kind() == reflect.Array {
			return fmt.Sprintf("an array of %d", t.Len())
		}
		return "an array"
	case shapeString, shapeText:
		return "a string"
	case shapeNumber:
		return "a number"
	case shapeInteger:
		return "an integer"
	case shapeBool:
		return "true or false"
	}
	return "nothing (the field cannot be set from a file)"
}

// nullable reports whether a JSON null is a fitting value for t.
func nullable(t reflect.Type) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

// elem returns the type of an array's elements (nil: anything).
func elem(t reflect.Type) reflect.Type {
	if t = deref(t); t == nil || t == rawMessage || t.Kind() == reflect.Interface {
		return nil
	}
	return t.Elem()
}

// fixedLen returns the length an array value must have for t, or -1.
func fixedLen(t reflect.Type) int {
	if t = deref(t); t != nil && t.Kind() == reflect.Array {
		return t.Len()
	}
	return -1
}

// field returns the type of key in an object of type t, matching the
// field names of tag ("json", "toml") exactly, as they are documented:
// a key that differs from a field's name only in case is unknown. When
// the key is unknown it returns false and the keys t knows.
func field(t reflect.Type, tag, key string) (reflect.Type, bool, []string) {
	t = deref(t)
	if t == nil || t == rawMessage || t.Kind() == reflect.Interface {
		return nil, true, nil
	}
	if t.Kind() == reflect.Map {
		return t.Elem(), true, nil
	}
	var known []string
	if ft, ok := structField(t, tag, key, &known); ok {
		return ft, true, nil
	}
	return nil, false, known
}

func structField(t reflect.Type, tag, key string, known *[]string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
		switch {
		case name == "-":
			continue
		case name == "" && f.Anonymous && deref(f.Type).Kind() == reflect.Struct:
			// Embedded structs' fields count as the outer struct's.
			if ft, ok := structField(deref(f.Type), tag, key, known); ok {
				return ft, true
			}
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
		*known = append(*known, name)
	}
	return nil, false
}

// unknownField describes the unknown key, with the keys that would do:
// all of them when there are a few, else the one it most likely
// misspells.
func unknownField(key string, known []string) string {
	switch len(known) {
	case 0:
		return "unknown field"
	case 1:
		return "unknown field (the only one here is " + known[0] + ")"
	}
	if len(known) > 8 {
		// A list this long hides the answer; the file format's
		// documentation has it.
		if near := nearest(key, known); near != "" {
			return "unknown field (did you mean " + near + "?)"
		}
		return "unknown field"
	}
	return "unknown field (want " + strings.Join(known[:len(known)-1], ", ") + " or " + known[len(known)-1] + ")"
}

// nearest returns the one name in known within two edits of key (its
// case aside), or "" when there is none or more than one as near.
func nearest(key string, known []string) string {
	best, bestD, ties := "", 3, 0
	for _, k := range known {
		switch d := editDistance(strings.ToLower(key), strings.ToLower(k)); {
		case d < bestD:
			best, bestD, ties = k, d, 0
		case d == bestD:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			diag, row[j] = row[j], min(row[j]+1, row[j-1]+1, diag+cost)
		}
	}
	return row[len(b)]
}

// textProblem returns why t's UnmarshalText refuses s, or "".
func textProblem(t reflect.Type, s string) string {
	u := reflect.New(deref(t)).Interface().(encoding.TextUnmarshaler)
	if err := u.UnmarshalText([]byte(s)); err != nil {
		return err.Error()
	}
	return ""
}

// integerProblem returns what is wrong with integer literal text for an
// integer type t, or "". base is 10 for JSON, 0 for TOML's prefixed
// forms (0x, 0o, 0b, with underscores between digits).
func integerProblem(t reflect.Type, text string, base int) string {
	t = deref(t)
	bits := t.Bits()
	signed := t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64
	var err error
	if signed {
		_, err = strconv.ParseInt(text, base, bits)
	} else if !strings.HasPrefix(text, "-") {
		_, err = strconv.ParseUint(strings.TrimPrefix(text, "+"), base, bits)
	} else {
		err = strconv.ErrRange
		if _, e := strconv.ParseInt(text, base, 64); e != nil && !errors.Is(e, strconv.ErrRange) {
			err = e
		}
	}
	switch {
	case err == nil:
		return ""
	case errors.Is(err, strconv.ErrRange):
		if signed {
			lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
			return fmt.Sprintf("%s is out of range (%d to %d)", text, lo, hi)
		}
		return fmt.Sprintf("%s is out of range (0 to %d)", text, uint64(math.MaxUint64)>>(64-bits))
	}
	return fmt.Sprintf("%s is not an integer", text)
}

// floatProblem returns what is wrong with number literal text for a
// floating-point type t, or "".
func floatProblem(t reflect.Type, text string) string {
	bits := 64
	if t = deref(t); t != jsonNumber && t.Kind() == reflect.Float32 {
		bits = 32
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), bits); err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return text + " is out of range"
		}
		return text + " is not a number"
	}
	return ""
}

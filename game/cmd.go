package game

import (
	"fmt"
	"math"
	"reflect"
	"time"
	"unsafe"
)

// CmdSize is the most bytes a game's declared command (DeclareCmd) may
// take in memory: what UserCmd.Game holds.
const CmdSize = 32

// CmdState is a game's own part of a command, as opaque bytes (8-byte
// aligned): the memory of the struct the game declared with DeclareCmd
// (more buttons, analog axes, a target's slot, an ability's index). It
// lives inside UserCmd, so the client's command ring, the command
// datagrams' redundancy, the server's queues and time warp's re-runs
// carry it with no plumbing and no allocation; a step reads it typed
// through its CmdSchema. lagkit's own game declares none and leaves it
// zero.
type CmdState [CmdSize / 8]uint64

// CmdLayout is a declared command's codec, compiled once from its Go
// type by DeclareCmd: its fields in declaration order, their offsets,
// kinds and wire widths, as Layout is a declared state's. A nil
// *CmdLayout is a game with no command of its own (lagkit's own game):
// no fields, hash 0, nothing on the wire.
type CmdLayout struct {
	l *Layout
	// bits is the most a command's part takes on the wire: a changed
	// bit and the value's width for each field.
	bits int
}

// CmdSchema is a game's declared command of type T: the codec
// (CmdLayout) and typed access to a UserCmd's Game bytes.
type CmdSchema[T any] struct {
	*CmdLayout
}

// DeclareCmd compiles the command a game declares as struct type T into
// its schema. T must be pointer-free and at most CmdSize bytes, of the
// kinds Declare takes (bools, integers of 8 to 64 bits, float32/float64
// with a quantum, time.Duration, fixed arrays and structs of these).
// Each field's tag `lagkit:"..."` bounds it, as comma-separated words:
//
//	min=N    smallest value (integers, floats, durations as 1.5s)
//	max=N    largest value: the wire then takes only the bits the range needs
//	q=N      quantum: required of floats (q=0.01); durations default to 1µs
//
// A command goes from its client to the server alone, so a field takes
// no visibility and no lerp. Values outside a field's range are refused
// (CmdLayout.Check names the field); floats and durations are put on
// their quantum's grid before the client predicts with them (Snap), so
// the server steps exactly what the client predicted.
func DeclareCmd[T any]() (*CmdSchema[T], error) {
	var zero T
	l, err := compileCmd(reflect.TypeOf(zero))
	if err != nil {
		return nil, err
	}
	return &CmdSchema[T]{l}, nil
}

// MustDeclareCmd is DeclareCmd for a package-level declaration: it
// panics if T is not a command type.
func MustDeclareCmd[T any]() *CmdSchema[T] {
	s, err := DeclareCmd[T]()
	if err != nil {
		panic(err)
	}
	return s
}

// Of returns command c's game part, typed: reads and writes go straight
// to c.Game.
func (s *CmdSchema[T]) Of(c *UserCmd) *T { return (*T)(unsafe.Pointer(&c.Game)) }

// Get returns a copy of command c's game part.
func (s *CmdSchema[T]) Get(c *UserCmd) T { return *s.Of(c) }

// Set writes v as command c's game part.
func (s *CmdSchema[T]) Set(c *UserCmd, v T) { *s.Of(c) = v }

func compileCmd(t reflect.Type) (*CmdLayout, error) {
	l, err := compile(t, CmdSize, "CmdSize")
	if err != nil {
		return nil, err
	}
	c := &CmdLayout{l: l}
	for _, f := range l.fields {
		if f.Vis != VisAll || f.Lerp {
			return nil, fmt.Errorf("game: declare %v: field %s: a command field takes min, max and q only (it goes to the server alone)", t, f.Name)
		}
		c.bits += 1 + int(f.Bits)
	}
	return c, nil
}

// Name returns the declared type's name ("" for none).
func (c *CmdLayout) Name() string {
	if c == nil {
		return ""
	}
	return c.l.name
}

// Hash returns the declaration's stable hash: two builds agree on it
// exactly when they code the same fields the same way. 0 for none.
func (c *CmdLayout) Hash() uint64 {
	if c == nil {
		return 0
	}
	return c.l.hash
}

// Fields returns the declared fields, in order. Do not modify them.
func (c *CmdLayout) Fields() []Field {
	if c == nil {
		return nil
	}
	return c.l.fields
}

// MaxBits is the most bits a command's game part takes on the wire: a
// changed bit and the field's width for each field.
func (c *CmdLayout) MaxBits() int {
	if c == nil {
		return 0
	}
	return c.bits
}

// Units returns field i of g in wire units, clamped into its range.
func (c *CmdLayout) Units(g *CmdState, i int) int64 { return c.l.unitsAt(unsafe.Pointer(g), i) }

// SetUnits writes u, in field i's wire units, into g.
func (c *CmdLayout) SetUnits(g *CmdState, i int, u int64) { c.l.setUnitsAt(unsafe.Pointer(g), i, u) }

// Check returns an error naming the first field of g outside its
// declared range (or a float that is not a number), nil when every
// field can be sent. A float or duration between two quanta is not an
// error: Snap rounds it.
func (c *CmdLayout) Check(g *CmdState) error {
	if c == nil {
		return nil
	}
	base := unsafe.Pointer(g)
	for i := range c.l.fields {
		f := &c.l.fields[i]
		raw := loadAt(base, f)
		if !inCmdRange(f, raw) {
			return c.rangeError(f, raw)
		}
	}
	return nil
}

// inCmdRange reports whether raw, field f's memory, is within its
// declared range (false for a float that is not a number).
func inCmdRange(f *Field, raw uint64) bool {
	switch f.Kind {
	case KindBool:
		return raw <= 1
	case KindUint:
		return raw >= uint64(f.Min) && raw <= uint64(f.Max)
	case KindInt:
		return int64(raw) >= f.Min && int64(raw) <= f.Max
	case KindDuration:
		u := math.Round(float64(int64(raw)) / f.Quantum)
		return u >= float64(f.Min) && u <= float64(f.Max)
	}
	u := math.Round(floatOf(f, raw) / f.Quantum)
	return u >= float64(f.Min) && u <= float64(f.Max) // false for NaN
}

// floatOf is a float field's raw bits as a float64.
func floatOf(f *Field, raw uint64) float64 {
	if f.Size == 4 {
		return float64(math.Float32frombits(uint32(raw)))
	}
	return math.Float64frombits(raw)
}

// rangeError says that field f holds raw, outside its range. Only a
// refused command gets here, so Check allocates nothing otherwise.
func (c *CmdLayout) rangeError(f *Field, raw uint64) error {
	var shown any
	switch f.Kind {
	case KindBool, KindUint:
		shown = raw
	case KindInt:
		shown = int64(raw)
	case KindDuration:
		shown = time.Duration(int64(raw))
	default:
		shown = floatOf(f, raw)
	}
	return fmt.Errorf("game: command %s: field %s: %v outside %s", c.l.name, f.Name, shown, c.rangeOf(f))
}

// durationOf is ns nanoseconds as a duration.
func durationOf(ns float64) time.Duration { return time.Duration(math.Round(ns)) }

// rangeOf describes field f's range in the field's own terms.
func (c *CmdLayout) rangeOf(f *Field) string {
	switch f.Kind {
	case KindBool:
		return "false..true"
	case KindUint:
		return fmt.Sprintf("%d..%d", uint64(f.Min), uint64(f.Max))
	case KindFloat:
		return fmt.Sprintf("%g..%g", float64(f.Min)*f.Quantum, float64(f.Max)*f.Quantum)
	case KindDuration:
		return fmt.Sprintf("%v..%v", durationOf(float64(f.Min)*f.Quantum), durationOf(float64(f.Max)*f.Quantum))
	}
	return fmt.Sprintf("%d..%d", f.Min, f.Max)
}

// Snap puts g in its wire form, as the server decodes it: every field
// on its quantum's grid and within its range, and the bytes between and
// after the fields zero. A client snaps each command before it
// predicts with it.
func (c *CmdLayout) Snap(g *CmdState) {
	if c == nil {
		*g = CmdState{}
		return
	}
	var out CmdState
	for i := range c.l.fields {
		c.SetUnits(&out, i, c.Units(g, i))
	}
	*g = out
}

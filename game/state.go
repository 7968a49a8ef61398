package game

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// StateSize is the most bytes a game's declared state (Declare) may take
// in memory: what PlayerState.Game holds.
const StateSize = 64

// State is a game's own state of one player or entity, as opaque bytes
// (8-byte aligned): the memory of the struct the game declared
// (Declare). It lives inside PlayerState, so every place lagkit keeps a
// player's state (the server's players and entities, snapshot
// baselines, the client's prediction ring and its remote players'
// histories) keeps the game's state beside it with no plumbing of its
// own and no allocation; a game reads and writes it typed through its
// Schema. lagkit's own game declares none and leaves it zero.
type State [StateSize / 8]uint64

// Vis says to whom a declared field is networked.
type Vis uint8

// The visibilities a field can have (its tag's first word).
const (
	// VisAll fields go to every client: the owner, and observers, who
	// draw the player with them (a team, a shield's glow).
	VisAll Vis = iota
	// VisOwner fields go to the owner alone, who predicts them (ammo, a
	// cooldown): what other players need not know.
	VisOwner
	// VisNone fields are the server's alone: never sent, zero on every
	// client. A step must not read them, or prediction disagrees.
	VisNone
	// VisTeam fields go to the owner, who predicts them, and to the
	// owner's team mates (players on its team, as the server's rules
	// know it: Rules.Teams and the player's team), who draw them (a
	// mate's ammunition, its health, the target it marked); the
	// others see them zero, as owner fields. In free-for-all, and for
	// entities, which have no team, they go to the owner alone.
	VisTeam
)

// String returns "all", "owner", "none" or "team".
func (v Vis) String() string {
	switch v {
	case VisTeam:
		return "team"
	case VisOwner:
		return "owner"
	case VisNone:
		return "none"
	}
	return "all"
}

// Kind is what a declared field holds in memory.
type Kind uint8

// The kinds of field a declared state may have.
const (
	KindBool Kind = iota
	KindInt
	KindUint
	KindFloat    // float32 or float64, coded in units of its quantum
	KindDuration // time.Duration, coded in units of its quantum
)

var kindNames = [...]string{"bool", "int", "uint", "float", "duration"}

// String returns the kind's name.
func (k Kind) String() string { return kindNames[k] }

// Field is one scalar of a declared state (an array is a field per
// element, named name[i]; a nested struct's fields are named
// outer.inner).
type Field struct {
	Name   string
	Offset uintptr // within the declared struct
	Size   uint8   // bytes in memory: 1, 2, 4 or 8
	Kind   Kind
	Vis    Vis
	// Lerp marks a field that a client interpolates between two
	// snapshots of another player (its tag's "lerp"); the others take
	// the nearer snapshot's value.
	Lerp bool
	// Min is the smallest value in units (the value itself for bool and
	// integers, value/Quantum rounded for floats and durations), Bits
	// the width of value-Min on the wire: the field holds Min to
	// Min+2^Bits-1, or Max if smaller.
	Min, Max int64
	Bits     uint
	// Quantum is a float's unit (tag q=0.01), or a duration's in
	// nanoseconds (tag q=1ms; time.Microsecond unless tagged).
	Quantum float64

	// exact marks an integer field whose range is its type's whole
	// range: its value in memory is its wire value, and Snap leaves it.
	exact bool
	// qns is a duration's quantum in whole nanoseconds (0 if not
	// whole).
	qns int64
}

// Layout is a declared state's codec, compiled once from its Go type by
// Declare: its fields in declaration order, their offsets, kinds and
// wire widths. A nil *Layout is a game with no state of its own
// (lagkit's own game): no fields, hash 0.
type Layout struct {
	name   string
	size   uintptr
	fields []Field
	hash   uint64
	// lerps lists the interpolated fields, and anyAll reports fields
	// sent to observers.
	lerps  []int
	anyAll bool
	// snaps lists the fields Snap may change: all but the exact ones.
	snaps []int
	// anyTeam reports fields sent to the owner's team (VisTeam).
	anyTeam bool
	// runs are the fields' bytes as runs of adjacent fields, in order:
	// what AppendDigest copies at once on a little-endian machine.
	runs []byteRun
}

// byteRun is n bytes of a declared state from offset off.
type byteRun struct{ off, n uintptr }

// littleEndian reports a machine storing integers little-endian, whose
// declared state's bytes are already the digest's.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Schema is a game's declared state of type T: the codec (Layout) and
// typed access to a PlayerState's Game bytes.
type Schema[T any] struct {
	*Layout
}

// Declare compiles the state a game declares as struct type T into its
// schema. T must be pointer-free and at most StateSize bytes: bools,
// integers of 8 to 64 bits, float32/float64 and time.Duration, fixed
// arrays and structs of these. Each field's tag `lagkit:"..."` says to
// whom it is networked and how, as comma-separated words:
//
//	all      sent to every client (the default)
//	owner    sent to the player's own client only
//	team     sent to the player's own client and its team mates' (VisTeam)
//	-        never sent (the server's alone)
//	lerp     interpolated between snapshots of other players
//	min=N    smallest value (integers, floats, durations as 1.5s)
//	max=N    largest value: the wire then takes only the bits the range needs
//	q=N      quantum: required of floats (q=0.01); durations default to 1µs
//
// A float or duration without min and max is coded as 32 bits of units
// around zero; with max alone, min is 0. Values outside a field's range are clamped when sent, so
// the client sees the clamped value (and counts a misprediction).
func Declare[T any]() (*Schema[T], error) {
	var zero T
	l, err := compile(reflect.TypeOf(zero), StateSize, "StateSize")
	if err != nil {
		return nil, err
	}
	return &Schema[T]{l}, nil
}

// MustDeclare is Declare for a package-level declaration: it panics if T
// is not a state type.
func MustDeclare[T any]() *Schema[T] {
	s, err := Declare[T]()
	if err != nil {
		panic(err)
	}
	return s
}

// Of returns player st's game state, typed: reads and writes go straight
// to st.Game.
func (s *Schema[T]) Of(st *PlayerState) *T { return (*T)(unsafe.Pointer(&st.Game)) }

// Get returns a copy of player st's game state.
func (s *Schema[T]) Get(st *PlayerState) T { return *s.Of(st) }

// Set writes v as player st's game state.
func (s *Schema[T]) Set(st *PlayerState, v T) { *s.Of(st) = v }

var durationType = reflect.TypeOf(time.Duration(0))

// compile compiles struct type t of at most limit bytes (the constant
// named limitName) into its layout.
func compile(t reflect.Type, limit uintptr, limitName string) (*Layout, error) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("game: declare: %v is not a struct type", t)
	}
	if t.Size() > limit {
		return nil, fmt.Errorf("game: declare %v: %d bytes, more than %s %d", t, t.Size(), limitName, limit)
	}
	l := &Layout{name: t.String(), size: t.Size()}
	if err := l.walk(t, 0, "", fieldTag{vis: VisAll}); err != nil {
		return nil, fmt.Errorf("game: declare %v: %w", t, err)
	}
	if len(l.fields) == 0 {
		return nil, fmt.Errorf("game: declare %v: no fields", t)
	}
	h := fnv.New64a()
	for i := range l.fields {
		f := &l.fields[i]
		w := uint(f.Size) * 8
		switch f.Kind {
		case KindInt:
			f.exact = f.Min == -1<<(w-1) && f.Max == 1<<(w-1)-1
		case KindUint:
			f.exact = f.Min == 0 && (w == 64 && f.Max == -1 || w < 64 && f.Max == 1<<w-1)
		case KindDuration:
			if q := int64(f.Quantum); float64(q) == f.Quantum {
				f.qns = q
			}
		}
		if !f.exact {
			l.snaps = append(l.snaps, i)
		}
		if f.Lerp {
			l.lerps = append(l.lerps, i)
		}
		if f.Vis == VisAll {
			l.anyAll = true
		}
		if f.Vis == VisTeam {
			l.anyTeam = true
		}
		// The hash covers what both ends must agree on: names, kinds,
		// sizes, visibility, interpolation and wire ranges; never
		// offsets, which a platform may lay out differently.
		fmt.Fprintf(h, "%s|%s|%d|%s|%t|%d|%d|%d|%g;", f.Name, f.Kind, f.Size, f.Vis, f.Lerp, f.Min, f.Max, f.Bits, f.Quantum)
	}
	l.hash = h.Sum64()
	for i := range l.fields {
		f := &l.fields[i]
		if k := len(l.runs) - 1; k >= 0 && l.runs[k].off+l.runs[k].n == f.Offset {
			l.runs[k].n += uintptr(f.Size)
		} else {
			l.runs = append(l.runs, byteRun{off: f.Offset, n: uintptr(f.Size)})
		}
	}
	return l, nil
}

// fieldTag is a field's parsed tag, inherited by an array's elements and
// a nested struct's fields.
type fieldTag struct {
	vis            Vis
	lerp           bool
	min, max, q    string
	hasMin, hasMax bool
}

func parseTag(tag string, in fieldTag) (fieldTag, error) {
	out := in
	if tag == "" {
		return out, nil
	}
	for _, w := range strings.Split(tag, ",") {
		w = strings.TrimSpace(w)
		k, v, hasV := strings.Cut(w, "=")
		switch {
		case w == "all":
			out.vis = VisAll
		case w == "owner":
			out.vis = VisOwner
		case w == "team":
			out.vis = VisTeam
		case w == "-" || w == "none":
			out.vis = VisNone
		case w == "lerp":
			out.lerp = true
		case hasV && k == "min":
			out.min, out.hasMin = v, true
		case hasV && k == "max":
			out.max, out.hasMax = v, true
		case hasV && k == "q":
			out.q = v
		default:
			return out, fmt.Errorf("unknown tag word %q", w)
		}
	}
	return out, nil
}

func (l *Layout) walk(t reflect.Type, off uintptr, name string, tag fieldTag) error {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.Name == "_" {
				continue
			}
			ft, err := parseTag(sf.Tag.Get("lagkit"), tag)
			if err != nil {
				return fmt.Errorf("field %s%s: %w", name, sf.Name, err)
			}
			prefix := name
			if prefix != "" {
				prefix += "."
			}
			if err := l.walk(sf.Type, off+sf.Offset, prefix+sf.Name, ft); err != nil {
				return err
			}
		}
		return nil
	case reflect.Array:
		es := t.Elem().Size()
		for i := range t.Len() {
			if err := l.walk(t.Elem(), off+uintptr(i)*es, fmt.Sprintf("%s[%d]", name, i), tag); err != nil {
				return err
			}
		}
		return nil
	}
	f := Field{Name: name, Offset: off, Size: uint8(t.Size()), Vis: tag.vis, Lerp: tag.lerp}
	var err error
	switch k := t.Kind(); {
	case k == reflect.Bool:
		if tag.hasMin || tag.hasMax || tag.q != "" || tag.lerp {
			return fmt.Errorf("field %s: a bool takes no range, quantum or lerp", name)
		}
		f.Kind, f.Min, f.Max, f.Bits = KindBool, 0, 1, 1
		l.fields = append(l.fields, f)
		return nil
	case t == durationType:
		f.Kind, f.Quantum = KindDuration, float64(time.Microsecond)
		if tag.q != "" {
			d, e := time.ParseDuration(tag.q)
			if e != nil || d <= 0 {
				return fmt.Errorf("field %s: quantum %q is not a positive duration", name, tag.q)
			}
			f.Quantum = float64(d)
		}
		f.Min, f.Max = math.MinInt32, math.MaxInt32
		err = rangeOf(&f, tag, func(s string) (float64, error) {
			d, e := time.ParseDuration(s)
			return float64(d), e
		})
	case k >= reflect.Int && k <= reflect.Int64:
		f.Kind = KindInt
		w := uint(t.Size() * 8)
		f.Min, f.Max = -1<<(w-1), 1<<(w-1)-1
		if tag.q != "" {
			return fmt.Errorf("field %s: an integer takes no quantum", name)
		}
		err = intRange(&f, tag)
	case k >= reflect.Uint && k <= reflect.Uint64 && k != reflect.Uintptr:
		f.Kind = KindUint
		w := uint(t.Size() * 8)
		f.Min, f.Max = 0, int64(min(uint64(math.MaxInt64), 1<<w-1))
		if w == 64 {
			f.Max = -1 // the whole 64 bits: Max is -1 as uint64
		}
		if tag.q != "" {
			return fmt.Errorf("field %s: an integer takes no quantum", name)
		}
		err = intRange(&f, tag)
	case k == reflect.Float32 || k == reflect.Float64:
		f.Kind = KindFloat
		q, e := strconv.ParseFloat(tag.q, 64)
		if tag.q == "" || e != nil || !(q > 0) || math.IsInf(q, 0) {
			return fmt.Errorf("field %s: a float needs a positive quantum (q=0.01)", name)
		}
		f.Quantum = q
		f.Min, f.Max = math.MinInt32, math.MaxInt32
		err = rangeOf(&f, tag, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	default:
		return fmt.Errorf("field %s: %v cannot be declared state (bool, integers, floats, time.Duration, arrays and structs of them)", name, t)
	}
	if err != nil {
		return fmt.Errorf("field %s: %w", name, err)
	}
	span := uint64(f.Max) - uint64(f.Min)
	f.Bits = uint(bits.Len64(span))
	if f.Bits == 0 {
		return fmt.Errorf("field %s: its range holds one value", name)
	}
	l.fields = append(l.fields, f)
	return nil
}

// intRange applies an integer field's min and max tags.
func intRange(f *Field, tag fieldTag) error {
	parse := func(s string) (int64, error) {
		if f.Kind == KindUint {
			v, err := strconv.ParseUint(s, 10, 64)
			return int64(v), err
		}
		return strconv.ParseInt(s, 10, 64)
	}
	lo, hi := f.Min, f.Max
	if tag.hasMin {
		v, err := parse(tag.min)
		if err != nil {
			return fmt.Errorf("min %q: %w", tag.min, err)
		}
		lo = v
	}
	if tag.hasMax {
		v, err := parse(tag.max)
		if err != nil {
			return fmt.Errorf("max %q: %w", tag.max, err)
		}
		hi = v
	}
	if !inRange(f, lo) || !inRange(f, hi) || !lessEq(f, lo, hi) {
		return fmt.Errorf("range %d..%d does not fit a %d-byte %s", lo, hi, f.Size, f.Kind)
	}
	f.Min, f.Max = lo, hi
	return nil
}

// inRange reports whether v fits f's type.
func inRange(f *Field, v int64) bool {
	w := uint(f.Size * 8)
	if f.Kind == KindUint {
		return w == 64 || uint64(v) < 1<<w
	}
	return w == 64 || (v >= -1<<(w-1) && v < 1<<(w-1))
}

func lessEq(f *Field, a, b int64) bool {
	if f.Kind == KindUint {
		return uint64(a) <= uint64(b)
	}
	return a <= b
}

// rangeOf applies a float's or duration's min and max tags, in units of
// its quantum.
func rangeOf(f *Field, tag fieldTag, parse func(string) (float64, error)) error {
	units := func(s string) (int64, error) {
		v, err := parse(s)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", s, err)
		}
		u := math.Round(v / f.Quantum)
		if math.Abs(u) > 1<<52 {
			return 0, fmt.Errorf("%q is too many quanta", s)
		}
		return int64(u), nil
	}
	var err error
	if tag.hasMax && !tag.hasMin {
		f.Min = 0 // a cooldown, a shield: from zero up
	}
	if tag.hasMin {
		if f.Min, err = units(tag.min); err != nil {
			return fmt.Errorf("min %w", err)
		}
	}
	if tag.hasMax {
		if f.Max, err = units(tag.max); err != nil {
			return fmt.Errorf("max %w", err)
		}
	}
	if f.Min > f.Max {
		return fmt.Errorf("min above max")
	}
	return nil
}

// Name returns the declared type's name ("" for none).
func (l *Layout) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

// Hash returns the declaration's stable hash: two builds agree on it
// exactly when they code the same fields the same way. It is 0 for
// none (a nil Layout): a game that keeps no state of its own.
func (l *Layout) Hash() uint64 {
	if l == nil {
		return 0
	}
	return l.hash
}

// Fields returns the declared fields, in order. Do not modify them.
func (l *Layout) Fields() []Field {
	if l == nil {
		return nil
	}
	return l.fields
}

// SentToOthers reports whether any field goes to observers (VisAll).
func (l *Layout) SentToOthers() bool { return l != nil && l.anyAll }

// SentToTeam reports whether any field goes to the owner's team mates
// (VisTeam).
func (l *Layout) SentToTeam() bool { return l != nil && l.anyTeam }

// load returns field f of s as a raw 64-bit value (sign-extended for
// signed integers, the bits for floats).
func load(s *State, f *Field) uint64 { return loadAt(unsafe.Pointer(s), f) }

// loadAt is load of the declared struct at base: a State's or a
// command's (CmdState).
func loadAt(base unsafe.Pointer, f *Field) uint64 {
	p := unsafe.Add(base, f.Offset)
	switch f.Size {
	case 1:
		if f.Kind == KindInt {
			return uint64(int64(*(*int8)(p)))
		}
		return uint64(*(*uint8)(p))
	case 2:
		if f.Kind == KindInt {
			return uint64(int64(*(*int16)(p)))
		}
		return uint64(*(*uint16)(p))
	case 4:
		if f.Kind == KindInt {
			return uint64(int64(*(*int32)(p)))
		}
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// store writes the raw value v into field f of s.
func store(s *State, f *Field, v uint64) { storeAt(unsafe.Pointer(s), f, v) }

// storeAt is store into the declared struct at base.
func storeAt(base unsafe.Pointer, f *Field, v uint64) {
	p := unsafe.Add(base, f.Offset)
	switch f.Size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// Units returns field i of s in wire units, clamped into its range:
// what a snapshot sends of it.
func (l *Layout) Units(s *State, i int) int64 { return l.unitsAt(unsafe.Pointer(s), i) }

// unitsAt is Units of the declared struct at base.
func (l *Layout) unitsAt(base unsafe.Pointer, i int) int64 {
	f := &l.fields[i]
	raw := loadAt(base, f)
	if f.exact {
		return int64(raw) // sign-extended by loadAt
	}
	var u int64
	switch f.Kind {
	case KindBool:
		if raw&1 != 0 {
			return 1
		}
		return 0
	case KindUint:
		if uint64(raw) < uint64(f.Min) {
			return f.Min
		}
		if uint64(raw) > uint64(f.Max) {
			return f.Max
		}
		return int64(raw)
	case KindInt:
		u = int64(raw)
	case KindDuration:
		u = int64(math.Round(float64(int64(raw)) / f.Quantum))
	case KindFloat:
		var v float64
		if f.Size == 4 {
			v = float64(math.Float32frombits(uint32(raw)))
		} else {
			v = math.Float64frombits(raw)
		}
		if v != v {
			v = 0
		}
		v = math.Round(v / f.Quantum)
		v = math.Max(float64(f.Min), math.Min(float64(f.Max), v))
		return int64(v)
	}
	return max(f.Min, min(f.Max, u))
}

// SetUnits writes u, in field i's wire units, into s.
func (l *Layout) SetUnits(s *State, i int, u int64) { l.setUnitsAt(unsafe.Pointer(s), i, u) }

// setUnitsAt is SetUnits into the declared struct at base.
func (l *Layout) setUnitsAt(base unsafe.Pointer, i int, u int64) {
	f := &l.fields[i]
	switch f.Kind {
	case KindDuration:
		storeAt(base, f, uint64(int64(math.Round(float64(u)*f.Quantum))))
	case KindFloat:
		v := float64(u) * f.Quantum
		if f.Size == 4 {
			storeAt(base, f, uint64(math.Float32bits(float32(v))))
		} else {
			storeAt(base, f, math.Float64bits(v))
		}
	default:
		storeAt(base, f, uint64(u))
	}
}

// Snap puts every field of s on its wire grid and within its range, as
// a snapshot delivers it: a step that snaps what it computes predicts
// exactly what the server sends (as SnapPos does for positions).
func (l *Layout) Snap(s *State) {
	if l == nil {
		return
	}
	for _, i := range l.snaps {
		if f := &l.fields[i]; f.qns > 0 {
			// A duration already on its grid and in range, the usual
			// case of a timer the step counts down by whole ticks;
			// within ±2^53 ns the float path would leave it as it is.
			if d := int64(load(s, f)); d%f.qns == 0 && d/f.qns >= f.Min && d/f.qns <= f.Max && d > -1<<53 && d < 1<<53 {
				continue
			}
		}
		l.SetUnits(s, i, l.Units(s, i))
	}
}

// Same reports whether field i agrees in a and b, in wire units.
func (l *Layout) Same(a, b *State, i int) bool {
	f := &l.fields[i]
	if f.Kind == KindFloat || f.Kind == KindDuration {
		return l.Units(a, i) == l.Units(b, i)
	}
	return load(a, f) == load(b, f)
}

// Lerp blends the interpolated (lerp) fields of a and b into out,
// linearly in wire units and rounded to the nearest (ties to even), for
// what a game draws smoothly (a door's angle, a health bar); the others
// it leaves as they are.
func (l *Layout) Lerp(out, a, b *State, frac float64) {
	if l != nil && len(l.lerps) > 0 { // inlined: most layouts have none
		l.lerp(out, a, b, frac)
	}
}

func (l *Layout) lerp(out, a, b *State, frac float64) {
	for _, i := range l.lerps {
		ua, ub := l.Units(a, i), l.Units(b, i)
		l.SetUnits(out, i, ua+int64(math.RoundToEven((float64(ub)-float64(ua))*frac)))
	}
}

// AppendDigest appends every field of s, each in its own width
// little-endian, for state digests: field by field, since the padding
// between them is not part of the state.
func (l *Layout) AppendDigest(b []byte, s *State) []byte {
	if l == nil {
		return b
	}
	if littleEndian {
		// The fields' bytes are their values little-endian already:
		// each run of adjacent fields is copied at once.
		for _, r := range l.runs {
			b = append(b, unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(s), r.off)), r.n)...)
		}
		return b
	}
	return l.appendFields(b, s)
}

// appendFields is AppendDigest field by field, on any machine.
func (l *Layout) appendFields(b []byte, s *State) []byte {
	for i := range l.fields {
		f := &l.fields[i]
		v := load(s, f)
		switch f.Size {
		case 1:
			b = append(b, byte(v))
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

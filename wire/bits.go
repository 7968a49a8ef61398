package wire

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// The bit stream packs fields least significant bit first: a field's low
// bit goes into the lowest free bit of the current byte, and an n-bit field
// written at a byte boundary lands in the bytes in little-endian order. The
// final byte is padded with zero bits.

// bitWriter appends a bit stream to buf.
type bitWriter struct {
	buf  []byte
	free uint // unused high bits of buf's last byte (0 to 7)
}

// pos returns the number of bits in buf, counting from buf's first byte.
func (w *bitWriter) pos() int { return len(w.buf)*8 - int(w.free) }

// truncate drops everything written after bit position p (from pos).
func (w *bitWriter) truncate(p int) {
	w.buf = w.buf[:(p+7)/8]
	w.free = uint(-p & 7)
	if w.free != 0 {
		w.buf[len(w.buf)-1] &= byte(1)<<(8-w.free) - 1
	}
}

// patch overwrites n bits at bit position p (from pos) with v. The bits
// must have been written before.
func (w *bitWriter) patch(p int, v uint64, n uint) {
	if at := p >> 3; n <= 56 && at+8 <= len(w.buf) {
		// The eight bytes holding the bits at once: with at most 7 bits
		// of offset, 56 bits always fit.
		mask := (uint64(1)<<n - 1) << (p & 7)
		b := w.buf[at : at+8]
		binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)&^mask|v<<(p&7)&mask)
		return
	}
	for i := range n {
		b := &w.buf[(p+int(i))/8]
		mask := byte(1) << ((p + int(i)) & 7)
		if v>>i&1 != 0 {
			*b |= mask
		} else {
			*b &^= mask
		}
	}
}

// writeBits writes the low n bits of v (n <= 64): first into the free
// high bits of the last byte, then whole bytes.
func (w *bitWriter) writeBits(v uint64, n uint) {
	if n < 64 {
		v &= 1<<n - 1
	}
	if w.free != 0 {
		w.buf[len(w.buf)-1] |= byte(v << (8 - w.free))
		if n <= w.free {
			w.free -= n
			return
		}
		v >>= w.free
		n -= w.free
		w.free = 0
	}
	if n > 56 && n <= 64 {
		// Exactly eight bytes: one append.
		w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
		w.free = 64 - n
		return
	}
	if l := len(w.buf); n > 8 && cap(w.buf)-l >= 8 {
		// Several bytes, with room for eight: one eight-byte append, cut
		// back to the bytes the bits take (those after them are zero and
		// dropped). Without the room the bytes go one by one, growing buf
		// no more than they need.
		w.buf = binary.LittleEndian.AppendUint64(w.buf, v)[:l+int(n+7)/8]
		w.free = -n & 7
		return
	}
	for n >= 8 {
		w.buf = append(w.buf, byte(v))
		v >>= 8
		n -= 8
	}
	if n > 0 {
		w.buf = append(w.buf, byte(v))
		w.free = 8 - n
	}
}

func (w *bitWriter) writeBool(b bool) {
	var v byte
	if b {
		v = 1
	}
	if w.free != 0 {
		w.buf[len(w.buf)-1] |= v << (8 - w.free)
		w.free--
		return
	}
	w.buf = append(w.buf, v)
	w.free = 7
}

// zigzag maps signed integers to unsigned ones so that small magnitudes of
// either sign get small codes: 0, -1, 1, -2, 2 ... become 0, 1, 2, 3, 4
// (the encoding of Protocol Buffers' sint types).
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// writeUvarint writes v in groups of 7 bits, low group first, each followed
// by a bit that says whether another group follows: the LEB128 scheme of
// encoding/binary's Uvarint, at bit granularity.
func (w *bitWriter) writeUvarint(v uint64) {
	for v >= 0x80 {
		w.writeBits(v&0x7f|0x80, 8)
		v >>= 7
	}
	w.writeBits(v, 8)
}

// writeBucketed writes v with a bucket code: a unary bucket number (i one
// bits then a zero, or len(widths)-1 one bits for the last bucket) and then
// zigzag(v) in that bucket's width. It picks the first bucket wide enough;
// v must fit the last one. Deltas of slowly changing values are mostly
// small, so most of them take the short buckets. Each code with its value
// must fit 64 bits (len(widths) + the widest width <= 64).
func (w *bitWriter) writeBucketed(v int64, widths []uint) {
	w.writeBits(bucketCode(v, widths))
}

// bucketCode returns the bits writeBucketed writes for v and their count:
// i one bits, the closing zero unless i is the last bucket, then zigzag(v)
// in bucket i's width.
func bucketCode(v int64, widths []uint) (uint64, uint) {
	u := zigzag(v)
	last := len(widths) - 1
	for i, n := range widths {
		if i == last || u < 1<<n {
			code, codeLen := uint64(1)<<i-1, uint(i)
			if i < last {
				codeLen++
			}
			if n < 64 {
				u &= 1<<n - 1
			}
			return code | u<<codeLen, codeLen + n
		}
	}
	return 0, 0
}

// bucketTable is a bucket code precomputed by the bit length of the zigzag
// value, so that coding a value is a table look-up with no loop: for the
// encoder's hot loop. The small zigzag values, most deltas of a moving
// player, have their whole codes in a second table.
type bucketTable struct {
	byLen [65]struct {
		code uint64 // the bucket number's bits
		mask uint64 // the bucket's width in one bits
		// codeLen is the bucket number's bit count, n the whole code's.
		codeLen, n uint8
	}
	// small holds the code of v in [-smallCodes/2, smallCodes/2), at
	// v+smallCodes/2: its bits in the low 24 bits, its length above.
	small [smallCodes]uint32
}

// smallCodes is how many small values a bucketTable codes whole: those
// whose zigzag value is under it, -256 to 255, the 9-bit bucket of
// positions and angles.
const smallCodes = 512

// newBucketTable returns the table of the bucket code of widths.
func newBucketTable(widths []uint) *bucketTable {
	var t bucketTable
	for l := range t.byLen {
		// The widest value of bit length l picks the same bucket as every
		// other value of that length.
		var u uint64
		if l > 0 {
			u = 1<<(l-1) | (1<<(l-1) - 1)
		}
		code, n := bucketCode(int64(u>>1)^-int64(u&1), widths)
		i := 0
		for i < len(widths)-1 && u >= 1<<widths[i] {
			i++
		}
		width := widths[i]
		t.byLen[l].codeLen, t.byLen[l].n = uint8(n-width), uint8(n)
		t.byLen[l].code = code & (1<<(n-width) - 1)
		t.byLen[l].mask = 1<<width - 1 // all ones for a width of 64
	}
	for v := range int64(smallCodes) {
		code, n := bucketCode(v-smallCodes/2, widths)
		if n > 24 {
			panic("wire: bucket code of a small value longer than 24 bits")
		}
		t.small[v] = uint32(code) | uint32(n)<<24
	}
	return &t
}

// code returns the bits and bit count of v in the table's bucket code:
// the same as bucketCode with the table's widths.
func (t *bucketTable) code(v int64) (uint64, uint) {
	if k := uint64(v + smallCodes/2); k < smallCodes {
		e := t.small[k]
		return uint64(e & (1<<24 - 1)), uint(e >> 24)
	}
	u := zigzag(v)
	e := &t.byLen[bits.Len64(u)]
	// codeLen is under 64 (a code with its value fits 64 bits): the mask
	// tells the compiler so, sparing the test for longer shifts.
	return e.code | u&e.mask<<(e.codeLen&63), uint(e.n)
}

// wordWriter continues a bitWriter's stream for a run of many short
// fields, such as a snapshot's entity entries: the bits gather in a word,
// which goes to buf eight bytes at a time, the same bits with far fewer
// writes. Take one with bitWriter.words and give the stream back with
// done.
type wordWriter struct {
	buf []byte
	acc uint64 // bits not yet in buf, the first written lowest
	n   uint   // bits in acc, under 64
	// count makes the writer only count: full words are dropped, their
	// bits added to counted.
	count   bool
	counted int
}

// words hands w's stream to a wordWriter: its partial last byte moves
// into the word.
func (w *bitWriter) words() wordWriter {
	ww := wordWriter{buf: w.buf}
	if w.free != 0 {
		last := len(w.buf) - 1
		ww.acc, ww.n, ww.buf = uint64(w.buf[last]), 8-w.free, w.buf[:last]
	}
	return ww
}

// done hands the stream back to w.
func (ww *wordWriter) done(w *bitWriter) {
	buf := ww.buf
	for k := uint(0); k < ww.n; k += 8 {
		buf = append(buf, byte(ww.acc>>k))
	}
	w.buf, w.free = buf, uint(-int(ww.n)&7)
}

// put adds the low n bits of v (n <= 64; v has no bits above them).
func (ww *wordWriter) put(v uint64, n uint) {
	ww.acc |= v << (ww.n & 63)
	if ww.n+n < 64 {
		ww.n += n
		return
	}
	if ww.count {
		ww.counted += 64
	} else {
		ww.buf = binary.LittleEndian.AppendUint64(ww.buf, ww.acc)
	}
	ww.acc = v >> (64 - ww.n) // the bits that did not fit (none when n was 0)
	ww.n += n - 64
}

// putUvarint puts v as writeUvarint writes it.
func (ww *wordWriter) putUvarint(v uint64) {
	for v >= 0x80 {
		ww.put(v&0x7f|0x80, 8)
		v >>= 7
	}
	ww.put(v, 8)
}

// gather adds the n0 bits of v0 after the n bits of v and returns the
// result, unless they do not fit in 64 bits: then it puts v in ww and
// returns v0 alone. A caller gathering fields in a register word this way
// writes to ww a third as often.
func (ww *wordWriter) gather(v uint64, n uint, v0 uint64, n0 uint) (uint64, uint) {
	if n+n0 > 64 {
		ww.put(v, n)
		return v0, n0
	}
	// n is under 64 unless v0 is empty: the mask spares the compiler's
	// test of longer shifts.
	return v | v0<<(n&63), n + n0
}

// pos returns the bit position, as bitWriter.pos does.
func (ww *wordWriter) pos() int { return len(ww.buf)*8 + ww.counted + int(ww.n) }

// A wordMark is a position of a wordWriter to go back to.
type wordMark struct {
	len int
	acc uint64
	n   uint
}

// mark returns the current position.
func (ww *wordWriter) mark() wordMark { return wordMark{len(ww.buf), ww.acc, ww.n} }

// reset drops everything written since m.
func (ww *wordWriter) reset(m wordMark) { ww.buf, ww.acc, ww.n = ww.buf[:m.len], m.acc, m.n }

// writeString writes a length in lenBits bits and then the bytes of s.
func (w *bitWriter) writeString(s string, lenBits uint) {
	w.writeBits(uint64(len(s)), lenBits)
	for i := 0; i < len(s); i++ {
		w.writeBits(uint64(s[i]), 8)
	}
}

// align pads with zero bits up to the next byte boundary.
func (w *bitWriter) align() { w.free = 0 }

// appendAligned appends whole bytes; the stream must be byte aligned.
func (w *bitWriter) appendAligned(b []byte) { w.buf = append(w.buf, b...) }

// bitReader reads a bit stream written by bitWriter. Its error is sticky:
// after a read past the end or a failed check every read returns zero, so
// a decoder may read a whole message and look at err once.
type bitReader struct {
	b    []byte
	pos  int    // bits consumed
	name string // what is being decoded, as errors name it ("snapshot")
	err  error
}

// newReader returns a reader of datagram b, positioned after its type byte,
// with err set unless b is a datagram of type t within MaxDatagram.
func newReader(b []byte, t MsgType) bitReader {
	r := bitReader{b: b, name: t.String()}
	switch {
	case len(b) == 0:
		r.failf("empty datagram")
	case len(b) > MaxDatagram:
		r.failf("datagram of %d bytes exceeds MaxDatagram", len(b))
	case MsgType(b[0]) != t:
		r.failf("message type is %v", MsgType(b[0]))
	}
	r.pos = 8
	return r
}

// newEventReader returns a reader of event data b (an Event's Data, which
// has no type byte), with err set if b is longer than MaxEventData; name
// names the event in errors.
func newEventReader(b []byte, name string) bitReader {
	r := bitReader{b: b, name: name}
	if len(b) > MaxEventData {
		r.failf("data of %d bytes exceeds MaxEventData", len(b))
	}
	return r
}

// failf records an error unless one is already recorded.
func (r *bitReader) failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("wire: %s: %s", r.name, fmt.Sprintf(format, args...))
	}
}

func (r *bitReader) readBits(n uint) uint64 {
	if r.err != nil {
		return 0
	}
	if int(n) > len(r.b)*8-r.pos {
		r.failf("truncated")
		return 0
	}
	if at := r.pos >> 3; n <= 56 && at+8 <= len(r.b) {
		// One load of the eight bytes holding the field: with at most 7
		// bits of offset, 56 bits always fit.
		v := binary.LittleEndian.Uint64(r.b[at:]) >> (r.pos & 7)
		r.pos += int(n)
		return v & (1<<(n&63) - 1) // n is under 64: the mask spares the compiler's test
	}
	var v uint64
	for got := uint(0); got < n; {
		off := uint(r.pos & 7)
		k := min(n-got, 8-off)
		v |= uint64(r.b[r.pos>>3]>>off) & (1<<k - 1) << got
		got += k
		r.pos += int(k)
	}
	return v
}

func (r *bitReader) readBool() bool {
	if at := r.pos >> 3; r.err == nil && at < len(r.b) {
		// The bit's byte is there: readBits' checks pass.
		v := r.b[at] >> (r.pos & 7) & 1
		r.pos++
		return v == 1
	}
	return r.readBits(1) == 1
}

// readUvarint reads a value written by writeUvarint.
func (r *bitReader) readUvarint() uint64 {
	if at := r.pos >> 3; r.err == nil && at+8 <= len(r.b) {
		// Up to seven groups, the usual values, in one load: with at most
		// 7 bits of offset, 56 bits always fit.
		w := binary.LittleEndian.Uint64(r.b[at:]) >> (r.pos & 7)
		var v uint64
		for k := uint(0); k < 7; k++ {
			g := w >> (k * 8) & 0xff
			v |= (g & 0x7f) << (k * 7)
			if g < 0x80 {
				r.pos += int(k+1) * 8
				return v
			}
		}
	}
	var v uint64
	for shift := uint(0); ; shift += 7 {
		g := r.readBits(8)
		if shift == 63 && g > 1 {
			r.failf("varint overflows 64 bits")
			return 0
		}
		v |= (g & 0x7f) << shift
		if g < 0x80 {
			return v
		}
	}
}

// readBucketed reads a value written by writeBucketed with the same widths.
func (r *bitReader) readBucketed(widths []uint) int64 {
	if at := r.pos >> 3; r.err == nil && at+8 <= len(r.b) {
		// The code and its value in one load when they fit the 57 bits
		// it always holds: the bucket number is the run of one bits.
		v := binary.LittleEndian.Uint64(r.b[at:]) >> (r.pos & 7)
		last := len(widths) - 1
		i := min(bits.TrailingZeros64(^v), last)
		codeLen := uint(i)
		if i < last {
			codeLen++
		}
		if n := widths[i]; codeLen+n <= 57 {
			r.pos += int(codeLen + n)
			// Both shifts are under 64: the masks spare the compiler's tests.
			return unzigzag(v >> (codeLen & 63) & (1<<(n&63) - 1))
		}
	}
	i := 0
	for i < len(widths)-1 && r.readBool() {
		i++
	}
	return unzigzag(r.readBits(widths[i]))
}

// readString reads a string written by writeString, checking that it has
// at most max bytes of valid UTF-8; field names it in errors.
func (r *bitReader) readString(lenBits uint, max int, field string) string {
	s := r.readBytes(lenBits, max, field)
	if !utf8.ValidString(s) {
		r.failf("%s is not valid UTF-8", field)
		return ""
	}
	return s
}

// readBytes reads bytes written by writeString, of any content (opaque
// tokens), checking that there are at most max; field names it in errors.
func (r *bitReader) readBytes(lenBits uint, max int, field string) string {
	n := int(r.readBits(lenBits))
	if n > max {
		r.failf("%s of %d bytes exceeds %d", field, n, max)
	}
	if r.err != nil || n == 0 {
		return ""
	}
	if n*8 > len(r.b)*8-r.pos {
		r.failf("truncated")
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.readBits(8))
	}
	return string(b)
}

// align skips to the next byte boundary; the skipped bits must be zero.
func (r *bitReader) align() {
	if r.pos&7 != 0 && r.readBits(uint(-r.pos&7)) != 0 {
		r.failf("nonzero padding")
	}
}

// readAligned returns the next n bytes of the input (not a copy); the
// stream must be byte aligned.
func (r *bitReader) readAligned(n int) []byte {
	if r.err != nil {
		return nil
	}
	i := r.pos >> 3
	if n > len(r.b)-i {
		r.failf("truncated")
		return nil
	}
	r.pos += n * 8
	return r.b[i : i+n : i+n]
}

// finish returns the reader's error, or an error if anything but zero
// padding bits follows the last field.
func (r *bitReader) finish() error {
	if r.err != nil {
		return r.err
	}
	if end := (r.pos + 7) / 8; end < len(r.b) {
		r.failf("%d trailing bytes", len(r.b)-end)
	} else if r.pos&7 != 0 && r.b[len(r.b)-1]>>(r.pos&7) != 0 {
		r.failf("nonzero padding")
	}
	return r.err
}

// The snapshot's entity entries are read through a word that holds the
// next bits of the stream (acc, the first lowest; fill of them counted)
// up to byte at of the input, refilled by one eight-byte load when a
// field may not fit, rather than each field loaded and shifted by its
// bit position: Fabian Giesen's "variant 4" ("Reading bits in far too
// many ways, part 2", 2018). The word lives in the reading function's
// registers, handed from one step to the next by value.

// refillWord returns acc, which holds fill bits of b's stream up to byte
// at, topped up to at least 56 bits with the bytes after them. The bits
// above the count are the stream's next ones, so that the next load can
// OR over them. Past b's end the stream reads as zero bits: a caller
// checks the position (at*8 - fill) against the end before trusting
// what it read.
func refillWord(b []byte, acc uint64, fill uint, at int) (uint64, uint, int) {
	var w uint64
	if at+8 <= len(b) {
		w = binary.LittleEndian.Uint64(b[at:])
	} else {
		w = tailWord(b, at)
	}
	return acc | w<<(fill&63), fill | 56, at + int(63-fill)>>3
}

// wordAt returns the word of b's stream from bit pos on, as refillWord
// fills it.
func wordAt(b []byte, pos int) (acc uint64, fill uint, at int) {
	acc, fill, at = refillWord(b, 0, 0, pos>>3)
	return acc >> (pos & 7), fill - uint(pos&7), at
}

// tailWord returns the eight bytes of b from at as refillWord loads
// them, zero past b's end. Only the last bytes of the input take it.
func tailWord(b []byte, at int) uint64 {
	var w uint64
	for k := 0; k < 8 && at+k < len(b); k++ {
		w |= uint64(b[at+k]) << (8 * k)
	}
	return w
}

// bucketReads is a bucket code's reading by its first three bits (the
// longest bucket number of at most four buckets): for each value of
// them, what to drop before the value, the value's mask and the whole
// code's bit count, so that a field is a look-up, two shifts and a mask.
type bucketReads [8]struct {
	mask       uint64 // the bucket's width in one bits
	skip, bits uint32 // the bucket number's bit count, the whole code's
}

// newBucketReads returns the reading of the bucket code of widths (at
// most four buckets, each code with its value within 57 bits).
func newBucketReads(widths []uint) bucketReads {
	last := len(widths) - 1
	if last > 3 {
		panic("wire: bucket code of more than four buckets")
	}
	var t bucketReads
	for x := range uint64(8) {
		i := min(bits.TrailingZeros64(^x), last) // the run of one bits
		codeLen := uint(i)
		if i < last {
			codeLen++
		}
		if codeLen+widths[i] > 57 {
			panic("wire: bucket code too long for a word")
		}
		t[x].mask = 1<<widths[i] - 1
		t[x].skip, t[x].bits = uint32(codeLen), uint32(codeLen+widths[i])
	}
	return t
}

// read returns the value of the bucket code at the bottom of acc, as
// readBucketed does, and the code's bit count.
func (t *bucketReads) read(acc uint64) (int64, uint) {
	e := &t[acc&7]
	// Every count is under 64: the masks spare the compiler's tests of
	// longer shifts, here and where the caller drops the code.
	return unzigzag(acc >> (e.skip & 63) & e.mask), uint(e.bits & 63)
}

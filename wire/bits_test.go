package wire

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// field is one value of a random bit stream.
type field struct {
	kind int // 0 bits, 1 uvarint, 2 bucketed
	v    uint64
	n    uint
}

func TestBitsRoundTrip(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 2))
		fields := make([]field, rng.IntN(100))
		w := bitWriter{buf: []byte{0xEE}} // appends after existing bytes
		for i := range fields {
			f := field{kind: rng.IntN(3)}
			switch f.kind {
			case 0:
				f.n = uint(rng.IntN(65))
				f.v = rng.Uint64() >> (64 - f.n) >> rng.IntN(2)
				if f.n == 0 {
					f.v = 0
				}
				w.writeBits(f.v, f.n)
			case 1:
				f.v = rng.Uint64() >> rng.IntN(64)
				w.writeUvarint(f.v)
			case 2:
				f.v = uint64(rng.Int64N(1<<27) - 1<<26)
				w.writeBucketed(int64(f.v), coordBuckets)
			}
			fields[i] = f
		}
		if w.buf[0] != 0xEE || len(w.buf) != 1+(w.pos()-8+7)/8 {
			t.Fatalf("seed %d: writer broke dst or miscounted: %d bytes for %d bits", seed, len(w.buf), w.pos())
		}
		r := bitReader{b: w.buf, pos: 8}
		for i, f := range fields {
			var got uint64
			switch f.kind {
			case 0:
				got = r.readBits(f.n)
			case 1:
				got = r.readUvarint()
			case 2:
				got = uint64(r.readBucketed(coordBuckets))
			}
			if got != f.v {
				t.Fatalf("seed %d: field %d (kind %d, %d bits): got %x, want %x", seed, i, f.kind, f.n, got, f.v)
			}
		}
		if err := r.finish(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func TestBucketSizes(t *testing.T) {
	tests := []struct {
		v    int64
		bits int
	}{
		{0, 1}, {-1, 11}, {255, 11}, {-256, 11}, {256, 19}, {-257, 19},
		{32767, 19}, {-32768, 19}, {32768, 30}, {2 * MaxCoord, 30}, {-2 * MaxCoord, 30},
	}
	for _, tt := range tests {
		w := bitWriter{}
		w.writeBucketed(tt.v, coordBuckets)
		r := bitReader{b: w.buf}
		if w.pos() != tt.bits || r.readBucketed(coordBuckets) != tt.v {
			t.Errorf("%d: %d bits, want %d, or wrong value", tt.v, w.pos(), tt.bits)
		}
	}
}

func TestUvarintLimits(t *testing.T) {
	w := bitWriter{}
	w.writeUvarint(math.MaxUint64)
	r := bitReader{b: w.buf}
	if got := r.readUvarint(); got != math.MaxUint64 || r.finish() != nil {
		t.Errorf("MaxUint64: got %x, %v", got, r.err)
	}
	// Ten groups whose last carries more than 64 bits' worth.
	over := append(bytes.Repeat([]byte{0xff}, 9), 0x02)
	r = bitReader{b: over, name: "commands"}
	if r.readUvarint(); r.err == nil || r.err.Error() != "wire: commands: varint overflows 64 bits" {
		t.Errorf("overflow: %v", r.err)
	}
}

func TestTruncateAndPatch(t *testing.T) {
	w := bitWriter{}
	w.writeBits(0b101, 3)
	mark := w.pos()
	w.writeBits(0x1ff, 9)
	w.writeBits(0xffff, 16)
	w.truncate(mark)
	if w.pos() != 3 || !bytes.Equal(w.buf, []byte{0b101}) {
		t.Fatalf("after truncate: %d bits %x", w.pos(), w.buf)
	}
	w.writeBits(0, 9)
	w.writeBits(1, 1)
	w.patch(mark, 0x155, 9)
	r := bitReader{b: w.buf}
	if a, b, c := r.readBits(3), r.readBits(9), r.readBits(1); a != 0b101 || b != 0x155 || c != 1 {
		t.Errorf("read %b %x %d", a, b, c)
	}
	w.truncate(0)
	if w.pos() != 0 || len(w.buf) != 0 {
		t.Errorf("truncate(0) left %d bits", w.pos())
	}
}

func TestReaderStickyAndPadding(t *testing.T) {
	r := bitReader{b: []byte{0xff}, name: "reject"}
	if r.readBits(4) != 0xf || r.readBits(5) != 0 || r.readBits(1) != 0 {
		t.Error("read past the end returned data")
	}
	if r.err == nil || r.err.Error() != "wire: reject: truncated" {
		t.Errorf("err = %v", r.err)
	}
	r = bitReader{b: []byte{0x0f}, name: "reject"}
	r.readBits(4)
	if err := r.finish(); err != nil {
		t.Errorf("zero padding rejected: %v", err)
	}
	r = bitReader{b: []byte{0x1f}, name: "reject"}
	r.readBits(4)
	if err := r.finish(); err == nil || err.Error() != "wire: reject: nonzero padding" {
		t.Errorf("nonzero padding: %v", err)
	}
	r = bitReader{b: []byte{0x1f, 0xf0}, name: "reject"}
	r.readBits(4)
	r.align()
	if r.err == nil {
		t.Error("align accepted nonzero padding")
	}
}

// TestPatchChangesOnlyItsBits patches fields at every offset of buffers
// of every length up to 24 bytes and checks each bit against a patch of
// one bit at a time.
func TestPatchChangesOnlyItsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for size := 1; size <= 24; size++ {
		for p := 0; p < size*8; p++ {
			for _, n := range []uint{1, 6, 9, 32, 56, 57, 64} {
				if p+int(n) > size*8 {
					continue
				}
				buf := make([]byte, size)
				for i := range buf {
					buf[i] = byte(rng.Uint32())
				}
				want := bytes.Clone(buf)
				v := rng.Uint64()
				if n < 64 {
					v &= 1<<n - 1
				}
				for i := range n {
					bit := p + int(i)
					want[bit/8] = want[bit/8]&^(1<<(bit%8)) | byte(v>>i&1)<<(bit%8)
				}
				w := bitWriter{buf: buf}
				w.patch(p, v, n)
				if !bytes.Equal(w.buf, want) {
					t.Fatalf("%d bytes, %d bits at %d: got %x, want %x", size, n, p, w.buf, want)
				}
			}
		}
	}
}

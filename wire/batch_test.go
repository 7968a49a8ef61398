package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestBucketTableMatchesBucketCode checks the table form of the bucket
// codes against the loop form on every bit length and random values.
func TestBucketTableMatchesBucketCode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, widths := range [][]uint{coordBuckets, angleBuckets, {2, 5}, {0, 3, 7, 12, 20}} {
		tab := newBucketTable(widths)
		limit := int64(1) << (widths[len(widths)-1] - 1) // the last bucket's range
		for k := range 20000 {
			v := rng.Int64N(2*limit) - limit
			if k < 200 {
				v = int64(k - 100)
			}
			gc, gn := tab.code(v)
			wc, wn := bucketCode(v, widths)
			if gc != wc || gn != wn {
				t.Fatalf("widths %v, v %d: table gives %#x in %d bits, loop %#x in %d", widths, v, gc, gn, wc, wn)
			}
		}
	}
}

// TestWordWriterMatchesWriter checks that fields put through a
// wordWriter come out as the same bits as the same fields written one by
// one, at every starting bit offset, and that going back to a mark drops
// exactly what was put since.
func TestWordWriterMatchesWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		lead := uint(k % 8)
		one, worded := bitWriter{}, bitWriter{}
		one.writeBits(0x55, lead)
		worded.writeBits(0x55, lead)
		ww := worded.words()
		for ww.pos() < 300 {
			n := uint(rng.IntN(65))
			v := rng.Uint64()
			if n < 64 {
				v &= 1<<n - 1
			}
			if rng.IntN(5) == 0 { // put, then take back
				m := ww.mark()
				ww.put(rng.Uint64()>>1, 63)
				ww.reset(m)
			}
			one.writeBits(v, n)
			ww.put(v, n)
			if ww.pos() != one.pos() {
				t.Fatalf("case %d: at bit %d, one by one at %d", k, ww.pos(), one.pos())
			}
		}
		ww.done(&worded)
		if !bytes.Equal(one.buf, worded.buf) || one.free != worded.free {
			t.Fatalf("case %d: worded %x (free %d), one by one %x (free %d)", k, worded.buf, worded.free, one.buf, one.free)
		}
	}
}

// TestBucketReadsMatchWriter checks the word reading of bucket codes
// against the writer's codes, on every bucket's edges and random values.
func TestBucketReadsMatchWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, widths := range [][]uint{coordBuckets, angleBuckets, {2, 5}, {0, 3, 7, 12}, {6}, {0, 54}} {
		reads := newBucketReads(widths)
		limit := int64(1) << (widths[len(widths)-1] - 1) // the last bucket's range
		var vs []int64
		for _, w := range widths {
			if w > 0 {
				e := int64(1) << (w - 1)
				vs = append(vs, e-1, -e, min(e, limit-1), max(-e-1, -limit))
			}
		}
		for range 5000 {
			vs = append(vs, rng.Int64N(2*limit)-limit)
		}
		for _, v := range vs {
			tail := rng.Uint64() // the bits of the fields after it
			code, n := bucketCode(v, widths)
			acc := code | tail<<n
			if n == 64 {
				acc = code
			}
			got, gn := reads.read(acc)
			if got != v || gn != n {
				t.Fatalf("widths %v, v %d: read %d in %d bits, want %d bits", widths, v, got, gn, n)
			}
		}
	}
}

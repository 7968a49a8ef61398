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

// TestBitBatchMatchesWriter checks that fields gathered in a bitBatch come
// out as the same bits as the same fields written one by one, at every
// starting bit offset.
func TestBitBatchMatchesWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		lead := uint(k % 8)
		one, batched := bitWriter{}, bitWriter{}
		one.writeBits(0x55, lead)
		batched.writeBits(0x55, lead)
		var b bitBatch
		for b.n < 256 {
			n := uint(rng.IntN(65))
			v := rng.Uint64()
			if n < 64 {
				v &= 1<<n - 1
			}
			one.writeBits(v, n)
			b.put(v, n)
		}
		b.writeTo(&batched)
		if !bytes.Equal(one.buf, batched.buf) || one.free != batched.free {
			t.Fatalf("case %d: batched %x (free %d), one by one %x (free %d)", k, batched.buf, batched.free, one.buf, one.free)
		}
	}
}

package outbox

import (
	"bytes"
	"fmt"
	"testing"
)

// TestQueueCopiesAndKeepsUntilNextDrain checks that a datagram is copied
// when queued (its buffer may be reused at once) and that what one Drain
// returned survives the Adds before the next.
func TestQueueCopiesAndKeepsUntilNextDrain(t *testing.T) {
	var q Queue[int]
	buf := make([]byte, 4)
	for i := range 3 {
		copy(buf, fmt.Sprintf("pkt%d", i))
		q.Add(i, buf)
	}
	if q.Len() != 3 {
		t.Fatalf("Len %d, want 3", q.Len())
	}
	var got [][]byte
	var keys []int
	q.Drain(func(k int, b []byte) { keys, got = append(keys, k), append(got, b) })
	for i := range 5 {
		q.Add(9, []byte(fmt.Sprintf("new%d", i))) // must not touch what Drain returned
	}
	for i, b := range got {
		if want := fmt.Sprintf("pkt%d", i); !bytes.Equal(b, []byte(want)) || keys[i] != i {
			t.Errorf("datagram %d: key %d %q, want %d %q", i, keys[i], b, i, want)
		}
	}
	n := 0
	q.Drain(func(k int, b []byte) {
		if want := fmt.Sprintf("new%d", n); k != 9 || string(b) != want {
			t.Errorf("second drain %d: %d %q, want 9 %q", n, k, b, want)
		}
		n++
	})
	if n != 5 || q.Len() != 0 {
		t.Errorf("second drain gave %d, left %d; want 5 and 0", n, q.Len())
	}
}

func BenchmarkQueue(b *testing.B) {
	b.ReportAllocs()
	var q Queue[int]
	pkt := make([]byte, 400)
	for b.Loop() {
		for i := range 64 {
			q.Add(i, pkt)
		}
		q.Drain(func(int, []byte) {})
	}
}

package walltest

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestLockExcludes checks that two holders never overlap.
func TestLockExcludes(t *testing.T) {
	var inside, overlaps atomic.Int32
	for i := range 4 {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			Lock(t)
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(time.Duration(5+i) * time.Millisecond)
			inside.Add(-1)
		})
	}
	t.Cleanup(func() {
		if n := overlaps.Load(); n > 0 {
			t.Errorf("%d holders found the lock already held", n)
		}
	})
}

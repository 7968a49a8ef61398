package realtime

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no match, reader or bot goroutine outlives the
// tests: matches that end wait for everything they started.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

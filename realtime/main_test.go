package realtime

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no match, reader or bot goroutine outlives the
// tests: matches that end wait for everything they started. With
// LAGKIT_FLOOD_CHILD set, the binary is TestFlood's flooder instead.
func TestMain(m *testing.M) {
	if os.Getenv(floodChild) != "" {
		floodChildMain()
	}
	goleak.VerifyTestMain(m)
}

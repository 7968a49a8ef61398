// Package testlock lets a game's own tests take the lock lagkit's
// wall-clock and browser tests take, from a module of its own (lagkit's
// internal packages are not importable there): a live match's test and
// a headless browser's then run one at a time on a loaded machine.
package testlock

import (
	"testing"

	"github.com/lagkit/lagkit/internal/walltest"
)

// Lock takes the machine-wide wall-clock test lock for the rest of t,
// waiting while another test, of lagkit or of a game, holds it.
func Lock(t testing.TB) { walltest.Lock(t) }

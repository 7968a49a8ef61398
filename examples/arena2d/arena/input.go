package arena

import (
	"math"

	"github.com/lagkit/lagkit/game"
)

// Move returns the Forward and Side of a command that runs along the
// world direction (dx, dy) (any length; zero stands) for a player
// facing yaw: a top-down game's keys move along the screen's axes
// whichever way the player aims.
func Move(dx, dy float64, yaw uint16) (forward, side int8) {
	l := math.Hypot(dx, dy)
	if l == 0 {
		return 0, 0
	}
	dx, dy = dx/l, dy/l
	sin, cos := math.Sincos(game.AngleToRad(int32(yaw)))
	// Forward is (cos, sin) and right (sin, -cos), as game.Step takes them.
	f := dx*cos + dy*sin
	s := dx*sin - dy*cos
	return int8(math.Round(127 * f)), int8(math.Round(127 * s))
}

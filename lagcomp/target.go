package lagcomp

import "github.com/lagkit/lagkit/game"

// Target is a player a shot may hit, with its pose at the time the
// shot is tested: what a world adjustment at hit registration (a scaled
// hitbox, an assisted aim) tests beside the true hitboxes.
type Target struct {
	ID   int
	Pose game.PlayerState
}

package scenario

import (
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/sim"
)

// script is a scenario player's brain: it carries out its timed actions
// using only what its own client shows.
type script struct {
	f       *File
	self    int
	driver  *sim.Driver
	actions []Action
	next    int

	moveTo   geom.Vec3
	moving   bool
	crouch   bool
	aimAt    int // player index, -1: none
	aimPart  game.PartKind
	aimPoint *geom.Vec3
	yaw      uint16
	pitch    int16
	fire     int // shots still to fire
}

func newScript(f *File, self int) *script {
	acts := slices.Clone(f.Players[self].Do)
	slices.SortStableFunc(acts, func(a, b Action) int { return int(a.At.Duration - b.At.Duration) })
	// The view starts where the scenario places the player: the client
	// learns the placement a round trip later, and commands sent before
	// then must not turn the player back to where it spawned.
	yaw := game.YawUnits(f.Players[self].YawDeg * math.Pi / 180)
	return &script{f: f, self: self, actions: acts, aimAt: -1, yaw: yaw}
}

// Input applies the actions due by now and steers toward their goals.
func (s *script) Input(now time.Duration, c *client.Client) game.UserCmd {
	for s.next < len(s.actions) && s.actions[s.next].At.Duration <= now {
		s.apply(&s.actions[s.next])
		s.next++
	}
	st := c.Predicted()
	var cmd game.UserCmd
	if target, ok := s.aimTarget(now, c); ok {
		d := target.Sub(game.EyePos(st, nil))
		s.yaw = game.YawUnits(math.Atan2(d.Y, d.X))
		s.pitch = game.PitchUnits(math.Atan2(d.Z, math.Hypot(d.X, d.Y)))
	}
	cmd.Yaw, cmd.Pitch = s.yaw, s.pitch
	if s.moving {
		to := s.moveTo.Sub(st.Pos)
		to.Z = 0
		if to.Len() < 0.05 {
			s.moving = false
		} else {
			// Walk along the world direction to the goal whatever the view.
			dir := math.Atan2(to.Y, to.X) - game.AngleToRad(int32(cmd.Yaw))
			cmd.Forward = int8(math.Round(127 * math.Cos(dir)))
			cmd.Side = int8(math.Round(-127 * math.Sin(dir)))
		}
	}
	if s.crouch {
		cmd.Buttons |= game.BtnCrouch
	}
	if s.fire > 0 {
		cmd.Buttons |= game.BtnFire
	}
	if c.Fired() && s.fire > 0 {
		// The previous tick's command fired one of them.
		s.fire--
		if s.fire == 0 {
			cmd.Buttons &^= game.BtnFire
		}
	}
	return cmd
}

func (s *script) apply(a *Action) {
	if a.MoveTo != nil {
		s.moveTo, s.moving = geom.V(a.MoveTo[0], a.MoveTo[1], 0), true
	}
	if a.Stop {
		s.moving = false
	}
	switch a.Stance {
	case "crouch":
		s.crouch = true
	case "stand":
		s.crouch = false
	}
	if a.AimAt != "" {
		s.aimAt = slices.IndexFunc(s.f.Players, func(p Player) bool { return p.Name == a.AimAt })
		s.aimPart, _ = partByName(a.AimPart)
		s.aimPoint = nil
	}
	if a.AimPoint != nil {
		p := vec(*a.AimPoint)
		s.aimPoint, s.aimAt = &p, -1
	}
	if a.YawDeg != nil {
		s.yaw, s.aimAt, s.aimPoint = game.YawUnits(*a.YawDeg*math.Pi/180), -1, nil
	}
	if a.PitchDeg != nil {
		s.pitch, s.aimAt, s.aimPoint = game.PitchUnits(*a.PitchDeg*math.Pi/180), -1, nil
	}
	s.fire += a.Fire
}

// aimTarget returns the point the script aims at now: a fixed point, or
// the chosen part of a player as this client draws it.
func (s *script) aimTarget(now time.Duration, c *client.Client) (geom.Vec3, bool) {
	if s.aimPoint != nil {
		return *s.aimPoint, true
	}
	if s.aimAt < 0 {
		return geom.Vec3{}, false
	}
	other := s.driver.Players[s.aimAt].Client
	if other.Phase() != client.Connected {
		return geom.Vec3{}, false
	}
	st, ok := c.Remote(other.ID(), c.ViewTime(now))
	if !ok {
		return geom.Vec3{}, false
	}
	return game.Hitboxes(st, nil)[s.aimPart].Origin, true
}

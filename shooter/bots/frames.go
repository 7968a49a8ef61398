package bots

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// MaxFrameRate is the highest display rate a bot aims at.
const MaxFrameRate = 1000

// The crosshair's motion at frame rate: a damped spring toward the aim
// point, under-damped so that a flick overshoots and comes back, as
// people's aiming movements do (a fast ballistic phase, then corrections;
// Woodworth's two-component model, and Fitts' law's movement times of a
// few hundred milliseconds for a flick across the screen). With these a
// 30 degree flick peaks near 400 degrees a second, crosses its aim point
// after about 150 ms and overshoots it by about a fifth.
const (
	flickOmega = 2 * math.Pi * 3 // natural angular frequency, rad/s
	flickZeta  = 0.45            // damping ratio
	// tapHold is how long a tap holds the trigger: shorter than the
	// rifle's fire interval, so a tap fires one shot.
	tapHold = 40 * time.Millisecond
	// clickRadius is the half-width, in metres at the target, within
	// which the crosshair must come to the aim point to click: about a
	// torso's half-width.
	clickRadius = 0.2
)

// frameAim is a bot's aim and trigger at frame rate.
type frameAim struct {
	visible           bool // the target was in sight at the last tick
	yawVel, pitchVel  float64
	lastOff           float64       // the crosshair's angle off the aim point at the last frame
	held              bool          // the trigger is down
	releaseAt         time.Duration // when the tap lets go
	latched           bool          // a press waits for the next tick (no sub-tick input)
	nextPress         time.Duration // the earliest next tap
	presses, untagged []PressRecord
}

// PressRecord is a fire press a bot made at a frame: the instant and aim
// the bot meant its shot to have, whatever the command carried.
type PressRecord struct {
	// Tick is the command that fired it.
	Tick uint32
	// At is the local time of the frame; ViewTime the server time the
	// client drew at that instant.
	At, ViewTime time.Duration
	// Yaw and Pitch are the aim at the press, in angle units.
	Yaw   uint16
	Pitch int16
	// Speed is how fast the crosshair swept at the press, in degrees a
	// second: high in a flick's crossing, low when settled or tracking.
	Speed float64
}

// FrameRate returns the bot's display rate (Config.FrameRate): the
// simulation driver calls Frame this often, 0 never.
func (b *Bot) FrameRate() int { return b.cfg.FrameRate }

// Presses returns the presses sent in commands since the last call and
// forgets them.
func (b *Bot) Presses() []PressRecord {
	out := b.frames.presses
	b.frames.presses = nil
	return out
}

// Frame moves the bot's crosshair through one display frame at now and
// decides whether to pull the trigger at it: at the first frame the
// crosshair, within clickRadius of the aim point (the target as its
// client draws it at this instant, plus the bot's aim error), no longer
// closes on it (a flick's crossing, a settled or tracking aim: where a
// person sees the crosshair on the target and clicks), once the bot has
// reacted to the target, the weapon is loaded and the last tap is past
// its fire interval and a short pause. Each tap is followed by a
// new aim error, so every shot is a flick and a click. With SubTick the
// frame is reported to the client (client.Client.Frame).
func (b *Bot) Frame(now time.Duration, c *client.Client) {
	f := &b.frames
	if f.held && now >= f.releaseAt {
		f.held = false
	}
	defer func() {
		if b.cfg.SubTick {
			c.Frame(now, game.YawUnits(b.yaw), game.PitchUnits(b.pitch), f.held)
		}
	}()
	st := c.Predicted()
	if st.Flags&game.FlagDead != 0 || !f.visible || b.target < 0 {
		f.lastOff = math.Inf(1)
		return
	}
	vt := c.ViewTime(now)
	rs, ok := c.Remote(b.target, vt)
	if !ok || rs.Flags&game.FlagDead != 0 {
		f.lastOff = math.Inf(1)
		return
	}
	if now < b.reactAt {
		// Reaction time is the time before the hand moves: the flick
		// toward a new target starts when it is over, and so the click
		// at its crossing comes a flick's time after it.
		f.yawVel, f.pitchVel, f.lastOff = 0, 0, math.Inf(1)
		return
	}
	eye := game.EyePos(st, b.params)
	to := game.TorsoOrigin(rs, b.params).Add(b.aimErr).Sub(eye)
	dt := (time.Second / time.Duration(b.cfg.FrameRate)).Seconds()
	b.flick(to, dt)
	dist := to.Len()
	aim := game.AimDir(game.YawUnits(b.yaw), game.PitchUnits(b.pitch))
	off := math.Acos(math.Max(-1, math.Min(1, aim.Dot(to)/math.Max(dist, 1e-9))))
	closing := off < f.lastOff
	f.lastOff = off
	ready := now >= f.nextPress && st.Flags&weapon.FlagReloading == 0 && weapon.ArmsOf(&st).Ammo > 0
	if f.held || !ready || closing || off > math.Atan2(clickRadius, dist) {
		return
	}
	f.held, f.releaseAt, f.latched = true, now+tapHold, !b.cfg.SubTick
	f.nextPress = now + b.weapon.FireInterval + time.Duration(100+b.rng.IntN(200))*time.Millisecond
	f.untagged = append(f.untagged, PressRecord{At: now, ViewTime: vt, Yaw: game.YawUnits(b.yaw), Pitch: game.PitchUnits(b.pitch),
		Speed: math.Hypot(f.yawVel*math.Cos(b.pitch), f.pitchVel) * 180 / math.Pi})
	b.aimErrAt = now // aim afresh for the next tap
}

// flick moves the crosshair one frame of dt seconds along the spring
// toward direction d (semi-implicit Euler, stable for flickOmega dt < 2).
func (b *Bot) flick(d geom.Vec3, dt float64) {
	f := &b.frames
	ey := math.Remainder(math.Atan2(d.Y, d.X)-b.yaw, 2*math.Pi)
	ep := math.Atan2(d.Z, math.Hypot(d.X, d.Y)) - b.pitch
	f.yawVel += (flickOmega*flickOmega*ey - 2*flickZeta*flickOmega*f.yawVel) * dt
	f.pitchVel += (flickOmega*flickOmega*ep - 2*flickZeta*flickOmega*f.pitchVel) * dt
	b.yaw = math.Remainder(b.yaw+f.yawVel*dt, 2*math.Pi)
	maxPitch := game.AngleToRad(game.MaxPitch)
	b.pitch = math.Max(-maxPitch, math.Min(maxPitch, b.pitch+f.pitchVel*dt))
}

// fightFrames is fight for a bot aiming at frame rate: each tick it
// re-draws the aim error when due, reloads, and holds the trigger in
// the command while a tap holds it, or, without sub-tick input, when a
// tap came and went since the last tick (the press quantised to the
// tick, fired with the aim at the tick). The presses sent are tagged
// with their command.
func (b *Bot) fightFrames(now time.Duration, c *client.Client, st *game.PlayerState, eye, at geom.Vec3, visible bool, cmd *game.UserCmd) {
	f := &b.frames
	f.visible = visible
	if !visible {
		f.yawVel, f.pitchVel, f.held, f.latched = 0, 0, false, false
		b.fight(now, st, eye, at, false, cmd)
	} else {
		b.drawAimErr(now, at.Sub(eye).Len())
		if weapon.ArmsOf(st).Ammo == 0 && st.Flags&weapon.FlagReloading == 0 {
			cmd.Buttons |= game.BtnReload
		}
	}
	if f.held || f.latched {
		cmd.Buttons |= game.BtnFire
	}
	f.latched = false
	tick := c.LastCmd().Tick + 1 // the command this input becomes
	for _, p := range f.untagged {
		p.Tick = tick
		f.presses = append(f.presses, p)
	}
	f.untagged = f.untagged[:0]
}

// Package bots is lagkit's shooter's computer players. A Bot is a
// bot.Policy for any of lagkit's harnesses (the simulation driver, a live
// match's server-side bots, the load tool): it plays through a real
// client core, seeing only what that client shows (its own predicted
// state, remote players where the client draws them, line of sight
// through the map, the events and scoreboard the server sent), and
// answers with the input a person would give: where to look, where to
// walk, when to crouch and fire.
//
// Bots go for the mode's objectives along paths on the navigation grid,
// running as people do (rounding corners at a finite turn rate, the
// heading wandering a little around the way to go), take cover when reloading in a fight, react to a newly seen enemy after a
// human reaction time (about 190 ms), aim with an error set by their
// skill, fire in bursts, and strafe while fighting, so shots at moving
// targets and dashes into cover happen often, as in the studies' rounds.
// Everything random comes from the bot's own seeded generator.
package bots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// Config sets a bot's character. Zero values take the defaults.
type Config struct {
	// Skill from 0 to 1 scales aim error: 0 sprays, 1 rarely misses a
	// still target (default 0.5).
	Skill float64
	// Reaction is the mean time from an enemy coming into view to the
	// first shot (default 190 ms), ReactionSpread its standard deviation
	// (default 40 ms).
	Reaction, ReactionSpread time.Duration
	// Attacker makes the bot go for the enemy's objectives rather than
	// defend its own (capture the flag).
	Attacker bool
	// FrameRate, when set, makes the bot aim and pull the trigger at a
	// display rate between ticks (frames per second, e.g. 144), as a
	// person at a fast screen does: its crosshair flicks to the target
	// and it clicks (a tap of one shot) at the frame the crosshair comes
	// onto its aim point (see Frame). The simulation driver calls Frame
	// at that rate. 0 aims and fires once a tick.
	FrameRate int
	// SubTick reports each press to the client at its frame (client
	// Frame), so that the command carries its instant and aim; without
	// it the press waits for the next tick and fires with the aim at the
	// tick. It needs FrameRate.
	SubTick bool
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Skill == 0 {
		out.Skill = 0.5
	}
	if out.Reaction == 0 {
		out.Reaction = 190 * time.Millisecond
	}
	if out.ReactionSpread == 0 {
		out.ReactionSpread = 40 * time.Millisecond
	}
	if !(out.Skill >= 0 && out.Skill <= 1) || out.Reaction < 0 || out.ReactionSpread < 0 {
		return out, fmt.Errorf("bots: config: skill %v outside 0..1 or negative reaction", out.Skill)
	}
	if out.FrameRate < 0 || out.FrameRate > MaxFrameRate || out.SubTick && out.FrameRate == 0 {
		return out, fmt.Errorf("bots: config: frame rate %d, want 0 to %d (and above 0 for sub-tick input)", out.FrameRate, MaxFrameRate)
	}
	return out, nil
}

// Bot is one computer player's brain.
type Bot struct {
	cfg    Config
	rng    *rand.Rand
	m      *world.Map
	nav    *nav.Grid
	finder *nav.Finder
	params *game.Params
	weapon *weapon.Weapon

	// movement
	moveDir  geom.Vec3 // the world direction to walk in, zero to stand
	path     []geom.Vec3
	goal     geom.Vec3
	hasGoal  bool
	replanAt time.Duration
	wander   time.Duration // when a roaming goal is next changed
	lastPos  geom.Vec3
	stuckAt  time.Duration
	strafe   int8
	strafeAt time.Duration
	crouch   bool
	run      runner
	from     geom.Vec3 // where the path's current leg starts
	cover    geom.Vec3
	inCover  bool
	coverTil time.Duration

	// combat
	target    int // remote slot, -1: none
	seenAt    time.Duration
	reactAt   time.Duration
	aimErr    geom.Vec3 // current aim offset at the target, metres
	aimErrAt  time.Duration
	burstLeft int
	pauseTil  time.Duration
	// standFire makes the bot stop to fire its bursts in this engagement,
	// as players do to shoot straight; otherwise it strafes throughout.
	standFire bool
	yaw       float64
	pitch     float64

	ids  []int
	seen []sighting // perceive's scratch
	// blocker holds, by enemy slot, one more than the index of the map
	// box that last blocked the bot's line of sight to it, 0 for none
	// (see blocked).
	blocker []int32
	spots   []nav.CoverSpot

	frames frameAim // aiming and firing at FrameRate
}

// New returns a bot for map m with navigation grid g, seeded by seed.
func New(cfg Config, m *world.Map, g *nav.Grid, p *game.Params, w *weapon.Weapon, seed uint64) (*Bot, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Bot{
		cfg: c, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)),
		m: m, nav: g, finder: g.NewFinder(), params: p, weapon: w,
		target: -1,
	}, nil
}

// Input decides this tick's input from what client c shows.
func (b *Bot) Input(now time.Duration, c *client.Client) game.UserCmd {
	st := c.Predicted()
	// st is passed on by pointer and its flags tested directly: a copy of
	// a struct just stored field by field stalls (see game.Move).
	if st.Flags&game.FlagDead != 0 {
		b.path, b.hasGoal, b.target, b.inCover = b.path[:0], false, -1, false
		b.frames = frameAim{presses: b.frames.presses}
		return game.UserCmd{}
	}
	eye := game.EyePos(st, b.params)
	_, enemyPos, visible := b.perceive(now, c, eye)

	cmd := game.UserCmd{}
	b.steer(now, c, &st, enemyPos, visible, &cmd)
	if b.cfg.FrameRate > 0 {
		b.fightFrames(now, c, &st, eye, enemyPos, visible, &cmd)
	} else {
		b.fight(now, &st, eye, enemyPos, visible, &cmd)
	}
	if cmd.Buttons.Has(game.BtnFire) && b.standFire && st.Flags&mode.FlagCarrier == 0 {
		b.moveDir = geom.Vec3{}
	}
	b.walk(&cmd)
	cmd.Yaw = game.YawUnits(b.yaw)
	cmd.Pitch = game.PitchUnits(b.pitch)
	return cmd
}

// turnToward turns the view toward direction d at a human turn rate
// (about 540 degrees a second), reporting the remaining angle.
func (b *Bot) turnToward(d geom.Vec3, dt float64) float64 {
	wantYaw := math.Atan2(d.Y, d.X)
	wantPitch := math.Atan2(d.Z, math.Hypot(d.X, d.Y))
	maxTurn := 3 * math.Pi * dt
	dy := math.Remainder(wantYaw-b.yaw, 2*math.Pi)
	dp := wantPitch - b.pitch
	b.yaw += math.Max(-maxTurn, math.Min(maxTurn, dy))
	b.pitch += math.Max(-maxTurn, math.Min(maxTurn, dp))
	return math.Hypot(dy, dp)
}

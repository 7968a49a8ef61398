package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// Fired reports whether the newest command fired a shot. It is true only
// on the tick the shot is first predicted, so sounds and effects play once
// however often reconciliation replays the command.
func (c *Client) Fired() bool { return c.fired }

// reconcile restarts prediction from the server's state after the last
// command it executed and replays the commands it has not executed yet.
func (c *Client) reconcile(sn *wire.Snapshot) {
	if sn.LastCmd < c.lastAck {
		return // reordered: we already reconciled past it
	}
	first := !c.hasSelf
	if first {
		c.hasSelf, c.scored = true, c.nextCmd
	}
	if sn.LastCmd > c.lastAck && sn.LastCmd >= c.scored && sn.LastCmd+cmdRing > c.nextCmd && sn.LastCmd < c.nextCmd && !c.settings.PredictionOff {
		p := c.predicted[sn.LastCmd%cmdRing]
		r := c.ready.cur
		r.PredictionErrors = append(r.PredictionErrors, p.Pos.Dist(sn.Self.Pos))
		r.Predictions++
		c.countMisses(&p, &sn.Self)
	}
	// Replaying the commands since from the server's state gives what
	// was predicted for them when it is the state predicted for
	// LastCmd: then the prediction stands.
	agreed := c.chained && !first && !c.settings.PredictionOff &&
		sn.LastCmd < c.nextCmd && c.nextCmd-sn.LastCmd < cmdRing && c.chainState(sn.LastCmd) == sn.Self
	c.lastAck, c.ackState = sn.LastCmd, sn.Self
	if agreed {
		c.blend(c.pred, false)
		return
	}
	c.repredict(first)
}

// step predicts cmd from st with the game's step, its declared state
// snapped onto the wire's grid as the server snaps it.
func (c *Client) step(st game.PlayerState, cmd game.UserCmd) (game.PlayerState, bool) {
	ctx := &c.stepCtx // kept: a local would escape through the step and allocate
	ctx.Grid, ctx.Params = c.cfg.Map.Grid, c.cfg.Movement
	ctx.Slot, ctx.Team = c.id, int(c.settings.Team)
	ctx.Tick, ctx.Time = cmd.Tick, time.Duration(cmd.Tick)*c.tickDur
	ctx.View = &c.view
	st, fired := c.cfg.Step(st, cmd, ctx)
	c.cfg.Game.Snap(&st.Game)
	return st, fired
}

// chainState returns the state predicted after command t, lastAck or
// one of the commands since: ackState, or the prediction for t.
func (c *Client) chainState(t uint32) game.PlayerState {
	if t == c.lastAck {
		return c.ackState
	}
	return c.predicted[t%cmdRing]
}

// repredict predicts the present again from ackState, the server's state
// after command lastAck, replaying the commands issued since that the
// server runs (none while prediction is off; held commands never), and
// blends the change into the view. first reports that there was no
// present before to blend from.
func (c *Client) repredict(first bool) {
	before := c.pred
	st := c.ackState
	predict := !c.settings.PredictionOff
	start := max(c.lastAck+1, c.nextCmd-min(c.nextCmd, cmdRing-1))
	for t := start; t < c.nextCmd; t++ {
		if predict && !c.held[t%cmdRing] {
			st, _ = c.step(st, c.cmds[t%cmdRing])
		}
		c.predicted[t%cmdRing] = st
	}
	c.pred = st
	// Each command since lastAck is now predicted from the one before,
	// as Tick goes on to do, unless there were too many to keep.
	c.chained = start == c.lastAck+1
	c.blend(before, first)
}

// blend blends the change of the predicted present from before into the
// view; first reports that there was no present before to blend from.
func (c *Client) blend(before game.PlayerState, first bool) {
	st := c.pred
	if first || c.settings.PredictionOff {
		// Prediction starts here, or there is none: no present to
		// correct.
		c.smooth = geom.Vec3{}
		return
	}
	delta := before.Pos.Sub(st.Pos)
	d := delta.Len()
	if d > 0.001 {
		c.stats.Corrections++
		c.snap.Corrections++
	}
	if d > c.cfg.SnapDistance || before.Teleport != st.Teleport {
		c.smooth = geom.Vec3{}
	} else {
		c.smooth = c.smooth.Add(delta)
	}
}

// frameInput is what Frame has seen of the fire button since the last
// command.
type frameInput struct {
	down     bool // the button was down at the last frame or command
	pressed  bool // it went down since the last command, at press
	pressAt  time.Duration
	press    game.Press // Offset not yet known
	reported bool       // Frame was called since the last command
}

// Frame reports the local input at a display frame drawn at local time
// now, between two ticks: the view angles the frame is drawn with and
// whether the fire button is down. A driver that draws faster than the
// tick rate (a browser at 60 to 240 Hz against a 64 Hz server) calls it
// every frame and Tick every tick as before, passing Tick the input at
// the tick. The first frame since the last command that finds the button
// down after it was up is a fire press: the client keeps its instant, its
// angles and the view time drawn at that instant (ViewTime(now)), and the
// next command carries them as its Press and holds BtnFire, even if the
// button came up again before the tick. The server traces that shot with
// the press's aim and rewinds to the press's view time, so the shot goes
// where and when the player clicked (sub-tick input, as Counter-Strike
// 2's sub-tick commands keep it). Later presses before the tick are not
// kept: a weapon fires at most once a command. A driver that never calls
// Frame sends commands without presses, the shot leaving at the tick.
// Presses change nothing in movement or firing, so prediction is as exact
// with them as without.
func (c *Client) Frame(now time.Duration, yaw uint16, pitch int16, fire bool) {
	in := &c.input
	if c.phase != Connected {
		*in = frameInput{}
		return
	}
	in.reported = true
	if fire && !in.down && !in.pressed {
		in.pressed, in.pressAt = true, now
		in.press = game.Press{
			Yaw: yaw, Pitch: max(-game.MaxPitch, min(game.MaxPitch, pitch)),
			ViewTime: c.ViewTime(now).Truncate(time.Microsecond),
		}
	}
	in.down = fire
}

// takePress fills cmd's press, issued at now, from the frames since the
// last command, and readies the input for the next command's frames.
func (c *Client) takePress(now time.Duration, cmd *game.UserCmd) {
	in := &c.input
	held := cmd.Buttons.Has(game.BtnFire)
	if in.pressed {
		p := in.press
		start := now - cmd.Duration
		p.Offset = max(0, min(cmd.Duration, in.pressAt-start)).Truncate(time.Microsecond)
		cmd.HasPress, cmd.Press = true, p
		cmd.Buttons |= game.BtnFire
	}
	// The button is down for the next frames if the command's input holds
	// it or the last frame found it down.
	*in = frameInput{down: held || in.reported && in.down}
}

// Tick issues this tick's user command from the local input (view angles,
// move intents, buttons and weapon; the client fills in Tick, Duration and
// ViewTime, and a fire press since the last command reported by Frame),
// predicts its effect and queues the command packet. A command whose
// predicted shot is a hitscan weapon's carries the client's own verdict
// on it (game.UserCmd.Shown; see ownVerdict). It also retries a pending
// Connect. It hands over what happened since the previous handover
// (Ready), this tick's command packet and shot with it; the Ready is
// valid until the next handover.
func (c *Client) Tick(now time.Duration, input game.UserCmd) *Ready {
	c.tick(now, input)
	return c.Ready()
}

// tick is Tick without the handover.
func (c *Client) tick(now time.Duration, input game.UserCmd) {
	switch c.phase {
	case Connecting:
		c.input = frameInput{}
		if now-c.connectAt >= c.cfg.ConnectRetry {
			c.sendConnect(now)
		}
		return
	case Connected:
	default:
		c.input = frameInput{}
		return
	}
	c.resendReports(now)
	c.resendAppeals(now)
	c.sendGameEvents(now)
	cmd := input
	cmd.Tick = c.nextCmd
	cmd.Duration = c.tickDur
	cmd.ViewTime = c.ViewTime(now)
	c.takeGame(&cmd)
	c.takePress(now, &cmd)
	if c.settings.Paused {
		hold(&cmd, c.cmds[(cmd.Tick-1)%cmdRing].Weapon)
	}
	c.nextCmd++
	c.cmds[cmd.Tick%cmdRing] = cmd
	c.cmdTime[cmd.Tick%cmdRing] = now
	c.held[cmd.Tick%cmdRing] = c.settings.Paused
	// Before the first snapshot the command is only sent: the first
	// reconciliation predicts it from the player's authoritative state.
	// While paused, or with prediction off, the present stays the
	// server's.
	c.fired = false
	if c.hasSelf {
		if !c.settings.Paused && !c.settings.PredictionOff {
			before := c.pred
			c.pred, c.fired = c.step(c.pred, cmd)
			if c.fired {
				c.stats.Shots++
				// The command carries what this client showed of its
				// shot: the server records it beside its own verdict.
				cmd.Shown = c.ownVerdict(before, c.pred, cmd)
				c.cmds[cmd.Tick%cmdRing].Shown = cmd.Shown
				c.ready.cur.Shots = append(c.ready.cur.Shots, Shot{Cmd: cmd, State: c.pred})
			}
		}
		c.predicted[cmd.Tick%cmdRing] = c.pred
		c.smooth = c.smooth.Scale(c.decay)
	}

	first := cmd.Tick - min(cmd.Tick-1, uint32(c.cfg.Redundancy))
	first = max(first, c.lastAck+1)
	m := wire.Commands{ClientTime: now}
	if c.hasNewest {
		m.AckTick, m.AckDelay = c.newest, min(now-c.newestAt, wire.MaxDelay)
	}
	var batch [wire.MaxCmdsPerPacket]game.UserCmd
	n := 0
	for t := first; t <= cmd.Tick; t++ {
		batch[n] = c.cmds[t%cmdRing]
		n++
	}
	m.Cmds = batch[:n]
	m.Game, m.Parts = c.cfg.Cmd, c.cfg.Shape.Parts
	var sights [wire.MaxSightings]wire.Sighting
	m.Sightings = c.nextSightings(&sights)
	buf, err := wire.AppendCommands(c.cmdBuf[:0], &m)
	if err != nil {
		// Only a caller's out-of-range input (say, a pitch beyond
		// MaxPitch) gets here; the command is still predicted and kept,
		// and the next packet repeats it.
		c.stats.EncodeErrors++
		return
	}
	c.cmdBuf = buf
	c.sendAs(true, buf)
	c.stats.CommandsSent++
	c.sentSightings(len(m.Sightings))
}

// takeGame puts cmd's game part in the form the server will decode
// (game.CmdLayout.Snap), so that prediction steps what the server
// steps. A part with a field outside its declared range is refused:
// the command carries the previous command's part, and CmdError says
// which field.
func (c *Client) takeGame(cmd *game.UserCmd) {
	l := c.cfg.Cmd
	if l == nil {
		cmd.Game = game.CmdState{}
		return
	}
	if err := l.Check(&cmd.Game); err != nil {
		c.stats.CmdRefused++
		c.cmdErr = err
		cmd.Game = c.lastGame
		return
	}
	l.Snap(&cmd.Game)
	c.lastGame = cmd.Game
}

// CmdError returns why the last refused command's game part was
// refused (nil: none was): the field outside its declared range.
func (c *Client) CmdError() error { return c.cmdErr }

// LastCmd returns the newest command issued (zero before the first), as
// sent: with its Tick, Duration, ViewTime and any fire press.
func (c *Client) LastCmd() game.UserCmd { return c.cmds[(c.nextCmd-1)%cmdRing] }

// Predicted returns the predicted present state of the local player.
func (c *Client) Predicted() game.PlayerState { return c.pred }

// Acked returns the local player's state as the newest snapshot gave it:
// the server's, after the last command it executed. Its view angles are
// the server's own after a spawn or a placement (Teleport changed) until
// the commands issued before the client heard of it reach the server.
func (c *Client) Acked() game.PlayerState { return c.ackState }

// DisplayPos returns where to draw the local player: the predicted
// position plus what remains of recent corrections being smoothed out.
func (c *Client) DisplayPos() geom.Vec3 { return c.pred.Pos.Add(c.smooth) }

// Misprediction is how many measured predictions had one field of the
// player's state wrong.
type Misprediction struct {
	// Field is lagkit's name of one of its own fields (pos, vel, yaw,
	// pitch, flags, teleport, health) or a declared game field's
	// (game.Field.Name).
	Field string
	Wrong int
}

// lagkitFields name the fields of PlayerState that countMisses checks
// before the game's own, in its order.
var lagkitFields = [...]string{"pos", "vel", "yaw", "pitch", "flags", "teleport", "health"}

// newMisses returns a zero count for every field of a state declared by
// l, lagkit's first.
func newMisses(l *game.Layout) []Misprediction {
	m := make([]Misprediction, 0, len(lagkitFields)+len(l.Fields()))
	for _, f := range lagkitFields {
		m = append(m, Misprediction{Field: f})
	}
	for _, f := range l.Fields() {
		m = append(m, Misprediction{Field: f.Name})
	}
	return m
}

// countMisses counts each field in which the prediction p differs from
// the server's state s: a field predicted wrong is corrected as the
// position is, and counted even when the position was right. A game
// field never sent (game.VisNone) is not the client's to predict.
func (c *Client) countMisses(p, s *game.PlayerState) {
	m := c.ready.cur.Mispredictions
	for k, diff := range [len(lagkitFields)]bool{
		p.Pos != s.Pos, p.Vel != s.Vel, p.Yaw != s.Yaw, p.Pitch != s.Pitch, p.Flags != s.Flags,
		p.Teleport != s.Teleport, p.Health != s.Health,
	} {
		if diff {
			m[k].Wrong++
		}
	}
	l := c.cfg.Game
	if p.Game == s.Game {
		return
	}
	for i, f := range l.Fields() {
		if f.Vis != game.VisNone && !l.Same(&p.Game, &s.Game, i) {
			m[len(lagkitFields)+i].Wrong++
		}
	}
}

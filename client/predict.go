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
	if sn.LastCmd > c.lastAck && sn.LastCmd >= c.scored && sn.LastCmd+cmdRing > c.nextCmd && sn.LastCmd < c.nextCmd {
		p := c.predicted[sn.LastCmd%cmdRing]
		c.predErrs = append(c.predErrs, p.Pos.Dist(sn.Self.Pos))
	}
	c.lastAck = sn.LastCmd
	before := c.pred
	st := sn.Self
	for t := max(sn.LastCmd+1, c.nextCmd-min(c.nextCmd, cmdRing-1)); t < c.nextCmd; t++ {
		st, _ = game.Step(st, c.cmds[t%cmdRing], c.cfg.Map.Grid, c.cfg.Movement, c.cfg.Weapons)
		c.predicted[t%cmdRing] = st
	}
	c.pred = st
	if first {
		// Prediction starts here: there was no present to correct.
		c.smooth = geom.Vec3{}
		return
	}
	delta := before.Pos.Sub(st.Pos)
	d := delta.Len()
	if d > 0.001 {
		c.stats.Corrections++
	}
	if d > c.cfg.SnapDistance || before.Teleport != st.Teleport {
		c.smooth = geom.Vec3{}
	} else {
		c.smooth = c.smooth.Add(delta)
	}
}

// Tick issues this tick's user command from the local input (view angles,
// move intents, buttons and weapon; the client fills in Tick, Duration and
// ViewTime), predicts its effect and queues the command packet. It also
// retries a pending Connect.
func (c *Client) Tick(now time.Duration, input game.UserCmd) {
	switch c.phase {
	case Connecting:
		if now-c.connectAt >= c.cfg.ConnectRetry {
			c.sendConnect(now)
		}
		return
	case Connected:
	default:
		return
	}
	cmd := input
	cmd.Tick = c.nextCmd
	cmd.Duration = c.tickDur
	cmd.ViewTime = c.ViewTime(now)
	c.nextCmd++
	c.cmds[cmd.Tick%cmdRing] = cmd
	c.cmdTime[cmd.Tick%cmdRing] = now
	// Before the first snapshot the command is only sent: the first
	// reconciliation predicts it from the player's authoritative state.
	c.fired = false
	if c.hasSelf {
		c.pred, c.fired = game.Step(c.pred, cmd, c.cfg.Map.Grid, c.cfg.Movement, c.cfg.Weapons)
		if c.fired {
			c.stats.Shots++
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
	buf, err := wire.AppendCommands(c.cmdBuf[:0], &m)
	if err != nil {
		// Only a caller's out-of-range input (say, a pitch beyond
		// MaxPitch) gets here; the command is still predicted and kept,
		// and the next packet repeats it.
		c.stats.EncodeErrors++
		return
	}
	c.cmdBuf = buf
	c.send(buf)
	c.stats.CommandsSent++
}

// Predicted returns the predicted present state of the local player.
func (c *Client) Predicted() game.PlayerState { return c.pred }

// DisplayPos returns where to draw the local player: the predicted
// position plus what remains of recent corrections being smoothed out.
func (c *Client) DisplayPos() geom.Vec3 { return c.pred.Pos.Add(c.smooth) }

// PredictionErrors returns the prediction errors measured since the last
// call and forgets them: for each command the server reported executed, the
// distance between the position predicted for it and the server's. The
// slice is valid until the next call to Step.
func (c *Client) PredictionErrors() []float64 {
	out := c.predErrs
	c.predErrs = c.predErrs[:0]
	return out
}

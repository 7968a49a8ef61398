package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// TestPredictionIsAReplayFromTheServersState: after every tick, what
// the client predicts for each command the server has not executed, and
// for the present, is what replaying them from the server's state gives,
// whether the client replayed them (the server disagreed: commands were
// lost) or kept its prediction because the server's state was the one
// predicted.
func TestPredictionIsAReplayFromTheServersState(t *testing.T) {
	p := newPair(t, 30*time.Millisecond)
	p.dropUp = func(n int) bool { return n%61 >= 55 } // six in a row: beyond the redundancy
	checked := 0
	for range 1500 {
		p.run(p.s.TickDuration(), busy)
		c := p.c
		if !c.hasSelf || c.nextCmd-c.lastAck >= cmdRing {
			continue
		}
		st := c.ackState
		for k := c.lastAck + 1; k < c.nextCmd; k++ {
			if !c.held[k%cmdRing] {
				st, _ = c.cfg.Step(st, c.cmds[k%cmdRing], &game.StepCtx{Grid: c.cfg.Map.Grid, Params: c.cfg.Movement})
			}
			if c.predicted[k%cmdRing] != st {
				t.Fatalf("tick %d: command %d (server at %d) predicted %+v, a replay gives %+v", p.ticks, k, c.lastAck, c.predicted[k%cmdRing], st)
			}
		}
		if c.pred != st {
			t.Fatalf("tick %d: present predicted %+v, a replay gives %+v", p.ticks, c.pred, st)
		}
		checked++
	}
	if st := p.c.Stats(); st.Corrections == 0 || checked < 1000 {
		t.Fatalf("%d corrections, %d ticks checked: the lost commands did not test replaying", st.Corrections, checked)
	}
}

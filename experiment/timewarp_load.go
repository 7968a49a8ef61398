package experiment

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// warpLoad measures the server's time per tick with n scripted players
// (warpCrowd's: walking in circles, turning, firing in bursts) for
// ticks ticks, in two arms on fresh crowds: no warps, and the study's
// time warp test (section 3.5.1): n warps a second, each warpLoadRewind
// back, for one player after another. Each tick's time is the server's
// work: receiving every player's command, the tick, its snapshots and
// records, and the warps due; the commands are encoded beforehand.
func warpLoad(n, ticks int) (CellResult, error) {
	warpTiming.Lock()
	defer warpTiming.Unlock()
	m := map[string]float64{"players": float64(n)}
	for _, arm := range []string{"nowarp", "warp"} {
		s, err := warpCrowd(n)
		if err != nil {
			return CellResult{}, err
		}
		tick := s.TickDuration()
		rewind := int(math.Round(float64(warpLoadRewind) / float64(tick)))
		bufs := make([][]byte, n)
		var due float64
		next := 0
		var spent time.Duration
		runtime.GC()
		for k := range ticks {
			now := s.NextTick()
			ct := uint32(161 + k) // the crowd's commands were ticks 1 to 160
			for i := range n {
				cmd := game.UserCmd{Tick: ct, Duration: tick, Forward: 127,
					Yaw: uint16(int(ct)*400 + i*6000), Weapon: uint8(i % 2)}
				if (int(ct)/32+i)%2 == 0 {
					cmd.Buttons = game.BtnFire
				}
				if bufs[i], err = wire.AppendCommands(bufs[i][:0], &wire.Commands{ClientTime: now, Cmds: []game.UserCmd{cmd}}); err != nil {
					return CellResult{}, err
				}
			}
			start := time.Now()
			for i := range n {
				if err := s.Step(now-time.Microsecond, server.Peer(i), bufs[i]); err != nil {
					return CellResult{}, err
				}
			}
			s.Advance(now)
			if arm == "warp" {
				for due += float64(n) * tick.Seconds(); due >= 1; due-- {
					if _, err := s.Resimulate(next, rewind); err != nil {
						return CellResult{}, err
					}
					next = (next + 1) % n
				}
			}
			spent += time.Since(start)
		}
		us := float64(spent.Nanoseconds()) / 1e3 / float64(ticks)
		m["tick_us_"+arm] = us
		m["load_"+arm] = us / (float64(tick.Nanoseconds()) / 1e3)
	}
	return CellResult{Metrics: m}, nil
}

// summariseWarpLoad tabulates time per tick against players, with and
// without warps, and extrapolates from a power law fitted to each arm
// the players at which a tick would take its whole duration (a load of
// 1: one core saturated, as the study's server was at 45 AI).
func summariseWarpLoad(r *Results, g groups) {
	tbl := Table{Name: "timewarp_load", Title: "Server time per tick against players (µs, this machine; load = share of the 15.625 ms tick)",
		Columns: []string{"players", "tick_us_nowarp", "tick_us_warp", "load_nowarp", "load_warp"}}
	xs := map[string][]float64{}
	ys := map[string][]float64{}
	for _, n := range warpLoadPlayers {
		name := fmt.Sprintf("load_players%d", n)
		if len(g.cells[name]) == 0 {
			continue
		}
		met := map[string]float64{}
		for _, k := range []string{"tick_us_nowarp", "tick_us_warp", "load_nowarp", "load_warp"} {
			met[k] = g.mean(name, k)
		}
		for _, arm := range []string{"nowarp", "warp"} {
			xs[arm], ys[arm] = append(xs[arm], float64(n)), append(ys[arm], met["tick_us_"+arm])
		}
		r.Conditions = append(r.Conditions, g.condition(name, "runs", len(g.cells[name]), met))
		tbl.Rows = append(tbl.Rows, []string{fmt.Sprint(n), fnum(met["tick_us_nowarp"]), fnum(met["tick_us_warp"]),
			fnum(met["load_nowarp"]), fnum(met["load_warp"])})
	}
	if len(tbl.Rows) == 0 {
		return
	}
	tickUS := float64((time.Second / 64).Nanoseconds()) / 1e3
	fitMet := map[string]float64{}
	for _, arm := range []string{"nowarp", "warp"} {
		e := Exponent(xs[arm], ys[arm])
		if math.IsNaN(e) {
			continue
		}
		var lx, ly []float64
		for i := range xs[arm] {
			if ys[arm][i] > 0 {
				lx, ly = append(lx, math.Log(xs[arm][i])), append(ly, math.Log(ys[arm][i]))
			}
		}
		_, b := fit(lx, ly)
		fitMet["load_exponent_"+arm] = e
		if e > 0 {
			fitMet["saturation_players_"+arm] = math.Exp((math.Log(tickUS) - b) / e)
		}
	}
	r.Conditions = append(r.Conditions, Condition{Name: "load_fit", Metrics: fitMet, N: len(tbl.Rows), NUnit: "crowd sizes",
		Params: map[string]any{"fit": "least squares of log time per tick on log players, per arm; saturation where a tick takes 15.625 ms"}})
	r.Tables = append(r.Tables, tbl)
	r.Plots = append(r.Plots, Plot{Name: "timewarp_load", Title: "Server load against players, with and without a warp per player a second",
		Kind: "line", Table: "timewarp_load", X: "players", Y: "load_warp", XLabel: "players", YLabel: "share of a 64 Hz tick"})
}

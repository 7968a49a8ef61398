package experiment

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// warpLoadBlock is how many ticks an arm of the load part runs before
// the other takes its turn.
const warpLoadBlock = 20

// warpLoad measures the server's time per tick with n scripted players
// (warpCrowd's: walking in circles, turning, firing in bursts) for
// ticks ticks, in two arms, each on a fresh crowd: no warps, and the
// study's time warp test (section 3.5.1): n warps a second, each
// warpLoadRewind back, for one player after another. The arms take
// turns in blocks of warpLoadBlock ticks, so that whatever else the
// machine does falls on both alike (run one after the other, the two
// arms swapped order between runs of a busy machine). Each tick's time
// is the server's work: receiving every player's command, the tick,
// its snapshots and records, and the warps due; the commands are
// encoded beforehand.
func warpLoad(n, ticks int) (CellResult, error) {
	warpTiming.Lock()
	defer warpTiming.Unlock()
	type armState struct {
		name  string
		s     *server.Server
		bufs  [][]byte
		due   float64
		next  int
		done  int
		spent time.Duration
	}
	arms := []*armState{{name: "nowarp"}, {name: "warp"}}
	for _, a := range arms {
		s, err := warpCrowd(n)
		if err != nil {
			return CellResult{}, err
		}
		a.s, a.bufs = s, make([][]byte, n)
	}
	tick := arms[0].s.TickDuration()
	rewind := int(math.Round(float64(warpLoadRewind) / float64(tick)))
	runtime.GC()
	for arms[0].done < ticks || arms[1].done < ticks {
		for _, a := range arms {
			for range min(warpLoadBlock, ticks-a.done) {
				s := a.s
				now := s.NextTick()
				ct := uint32(161 + a.done) // the crowd's commands were ticks 1 to 160
				for i := range n {
					cmd := game.UserCmd{Tick: ct, Duration: tick, Forward: 127,
						Yaw: uint16(int(ct)*400 + i*6000), Weapon: uint8(i % 2)}
					if (int(ct)/32+i)%2 == 0 {
						cmd.Buttons = game.BtnFire
					}
					var err error
					if a.bufs[i], err = wire.AppendCommands(a.bufs[i][:0], &wire.Commands{ClientTime: now, Cmds: []game.UserCmd{cmd}}); err != nil {
						return CellResult{}, err
					}
				}
				start := time.Now()
				for i := range n {
					if err := s.Step(now-time.Microsecond, server.Peer(i), a.bufs[i]); err != nil {
						return CellResult{}, err
					}
				}
				s.Advance(now)
				if a.name == "warp" {
					for a.due += float64(n) * tick.Seconds(); a.due >= 1; a.due-- {
						if _, err := s.Resimulate(a.next, rewind); err != nil {
							return CellResult{}, err
						}
						a.next = (a.next + 1) % n
					}
				}
				a.spent += time.Since(start)
				a.done++
			}
		}
	}
	m := map[string]float64{"players": float64(n)}
	for _, a := range arms {
		us := float64(a.spent.Nanoseconds()) / 1e3 / float64(ticks)
		m["tick_us_"+a.name] = us
		m["load_"+a.name] = us / (float64(tick.Nanoseconds()) / 1e3)
	}
	return CellResult{Metrics: m}, nil
}

// summariseWarpLoad tabulates time per tick against players, with and
// without warps, as the median over the timing repeats with their
// range, and whether the warp arm was the slower in every repeat; and
// fits, within each repeat, a power law to each arm, extrapolating the
// players at which a tick would take its whole duration (a load of 1:
// one core saturated, as the study's server was at 45 AI), reported as
// the median over repeats with their range.
func summariseWarpLoad(r *Results, g groups) {
	tbl := Table{Name: "timewarp_load", Title: "Server time per tick against players (µs, this machine; median over timing repeats and range; load = share of the 15.625 ms tick)",
		Columns: []string{"players", "tick_us_nowarp", "tick_us_nowarp_min", "tick_us_nowarp_max", "tick_us_warp", "tick_us_warp_min", "tick_us_warp_max",
			"load_nowarp", "load_warp", "repeats_warp_slower", "repeats"}}
	// per repeat, per arm: players and time per tick
	xs := map[int]map[string][]float64{}
	ys := map[int]map[string][]float64{}
	for _, n := range warpLoadPlayers {
		name := fmt.Sprintf("load_players%d", n)
		if len(g.cells[name]) == 0 {
			continue
		}
		met := map[string]float64{}
		slower := 0
		for _, c := range g.cells[name] {
			rep := c.Cell.Replicate
			if xs[rep] == nil {
				xs[rep], ys[rep] = map[string][]float64{}, map[string][]float64{}
			}
			for _, arm := range []string{"nowarp", "warp"} {
				xs[rep][arm], ys[rep][arm] = append(xs[rep][arm], float64(n)), append(ys[rep][arm], c.Metrics["tick_us_"+arm])
			}
			if c.Metrics["tick_us_warp"] > c.Metrics["tick_us_nowarp"] {
				slower++
			}
		}
		for _, k := range []string{"tick_us_nowarp", "tick_us_warp", "load_nowarp", "load_warp"} {
			var vs []float64
			for _, c := range g.cells[name] {
				vs = append(vs, c.Metrics[k])
			}
			met[k], met[k+"_min"], met[k+"_max"] = medianRange(vs)
		}
		reps := len(g.cells[name])
		met["repeats_warp_slower"] = float64(slower)
		r.Conditions = append(r.Conditions, g.condition(name, "timing repeats", reps, met))
		tbl.Rows = append(tbl.Rows, []string{fmt.Sprint(n), fnum(met["tick_us_nowarp"]), fnum(met["tick_us_nowarp_min"]), fnum(met["tick_us_nowarp_max"]),
			fnum(met["tick_us_warp"]), fnum(met["tick_us_warp_min"]), fnum(met["tick_us_warp_max"]),
			fnum(met["load_nowarp"]), fnum(met["load_warp"]), fmt.Sprint(slower), fmt.Sprint(reps)})
	}
	if len(tbl.Rows) == 0 {
		return
	}
	tickUS := float64((time.Second / 64).Nanoseconds()) / 1e3
	fitMet := map[string]float64{}
	for _, arm := range []string{"nowarp", "warp"} {
		var es, sats []float64
		for _, rep := range slices.Sorted(maps.Keys(xs)) {
			e := Exponent(xs[rep][arm], ys[rep][arm])
			if math.IsNaN(e) {
				continue
			}
			var lx, ly []float64
			for i := range xs[rep][arm] {
				if ys[rep][arm][i] > 0 {
					lx, ly = append(lx, math.Log(xs[rep][arm][i])), append(ly, math.Log(ys[rep][arm][i]))
				}
			}
			_, b := fit(lx, ly)
			es = append(es, e)
			if e > 0 {
				sats = append(sats, math.Exp((math.Log(tickUS)-b)/e))
			}
		}
		if len(es) > 0 {
			k := "load_exponent_" + arm
			fitMet[k], fitMet[k+"_min"], fitMet[k+"_max"] = medianRange(es)
		}
		if len(sats) > 0 {
			k := "saturation_players_" + arm
			fitMet[k], fitMet[k+"_min"], fitMet[k+"_max"] = medianRange(sats)
		}
	}
	r.Conditions = append(r.Conditions, Condition{Name: "load_fit", Metrics: fitMet, N: len(xs), NUnit: "timing repeats",
		Params: map[string]any{"fit": "least squares of log time per tick on log players, per arm, within each timing repeat; saturation where a tick takes 15.625 ms; the median over repeats, with _min and _max their range"}})
	r.Tables = append(r.Tables, tbl)
	r.Plots = append(r.Plots, Plot{Name: "timewarp_load", Title: "Server load against players, with and without a warp per player a second",
		Kind: "line", Table: "timewarp_load", X: "players", Y: "load_warp", XLabel: "players", YLabel: "share of a 64 Hz tick",
		Caption: "Median over timing repeats of the warp arm's time per tick, as a share of the tick."})
}

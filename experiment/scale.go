package experiment

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/sim"
)

var _ = register(&Experiment{
	Name:  "scale",
	Title: "What does the server cost?",
	Design: "Scripted walkers (the lagkit sim workload: every player moving all the time, so " +
		"every snapshot carries every player) on metro with a 100 ms round trip, sweeping the " +
		"number of players at 64 Hz and the tick rate at 16 players. tick_time_us is the wall " +
		"time of one server tick on this machine (simulation, hit registration, snapshot " +
		"encoding for every client): compare cells within one run, not across machines. " +
		"bytes_per_s_per_client counts server-to-client bytes including 28 bytes of IPv4 and " +
		"UDP header per datagram.",
	Cells: func(quick bool) []Cell {
		players, ticks, seconds := []int{2, 8, 16, 32, 64, 128}, []int{20, 32, 64, 128}, 30
		if quick {
			players, ticks, seconds = []int{2, 8, 32, 64}, []int{20, 64, 128}, 8
		}
		var cells []Cell
		for _, n := range players {
			cells = append(cells, Cell{Index: len(cells), Condition: fmt.Sprintf("players%d_tick64", n),
				Params: map[string]any{"players": n, "tick_hz": 64, "seconds": seconds, "sweep": "players"}})
		}
		for _, t := range ticks {
			cells = append(cells, Cell{Index: len(cells), Condition: fmt.Sprintf("players16_tick%d", t),
				Params: map[string]any{"players": 16, "tick_hz": t, "seconds": seconds, "sweep": "tick rate"}})
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		res, err := sim.Run(sim.Config{
			Players: int(param(c, "players")), TickRate: int(param(c, "tick_hz")), Seed: c.Seed,
			Duration: time.Duration(param(c, "seconds") * float64(time.Second)), RTT: 100 * time.Millisecond,
		})
		if err != nil {
			return CellResult{}, err
		}
		return CellResult{Metrics: map[string]float64{
			"tick_time_us": res.TickTimeUS, "bytes_per_s_per_client": res.BytesPerSPerClient,
			"snapshot_bytes_mean": res.SnapshotBytesMean, "prediction_error_mean_m": res.PredictionErrorMeanM,
			"interp_error_mean_m": res.InterpErrorMeanM,
		}}, nil
	},
	Summarise: func(r *Results, cells []CellResult) {
		g := group(cells)
		cols := []string{"condition", "players", "tick_hz", "tick_time_us", "bytes_per_s_per_client", "snapshot_bytes_mean", "cpu_share"}
		byPlayers := Table{Name: "scale_players", Title: "Server cost by players at 64 Hz", Columns: cols}
		byTick := Table{Name: "scale_tick_rate", Title: "Server cost by tick rate at 16 players", Columns: cols}
		for _, name := range g.names {
			c0 := g.cells[name][0].Cell
			met := map[string]float64{
				"tick_time_us":           g.mean(name, "tick_time_us"),
				"bytes_per_s_per_client": g.mean(name, "bytes_per_s_per_client"),
				"snapshot_bytes_mean":    g.mean(name, "snapshot_bytes_mean"),
			}
			// The share of one core the server needs at this tick rate.
			met["cpu_share"] = met["tick_time_us"] * param(c0, "tick_hz") / 1e6
			r.Conditions = append(r.Conditions, g.condition(name, "runs", len(g.cells[name]), met))
			row := []string{name, fnum(param(c0, "players")), fnum(param(c0, "tick_hz")),
				fnum(met["tick_time_us"]), fnum(met["bytes_per_s_per_client"]), fnum(met["snapshot_bytes_mean"]), fnum(met["cpu_share"])}
			if c0.Params["sweep"] == "players" {
				byPlayers.Rows = append(byPlayers.Rows, row)
			} else {
				byTick.Rows = append(byTick.Rows, row)
			}
		}
		r.Tables = append(r.Tables, byPlayers, byTick)
		var xs, ys []float64
		for _, c := range cells {
			if c.Cell.Params["sweep"] == "players" {
				xs, ys = append(xs, param(c.Cell, "players")), append(ys, c.Metrics["tick_time_us"])
			}
		}
		addPearson(r, "tick_time_us", "players", "tick_time_us", xs, ys, "players sweep at 64 Hz")
		r.Plots = append(r.Plots,
			Plot{Name: "scale_tick_time", Title: "Server tick time against players (64 Hz)", Kind: "line", Table: "scale_players",
				X: "players", Y: "tick_time_us", XLabel: "players", YLabel: "tick time (µs)"},
			Plot{Name: "scale_bytes", Title: "Bytes per second per client against players (64 Hz)", Kind: "line", Table: "scale_players",
				X: "players", Y: "bytes_per_s_per_client", XLabel: "players", YLabel: "bytes/s per client"},
			Plot{Name: "scale_tick_rate", Title: "Server tick time against tick rate (16 players)", Kind: "line", Table: "scale_tick_rate",
				X: "tick_hz", Y: "tick_time_us", XLabel: "tick rate (Hz)", YLabel: "tick time (µs)"},
		)
	},
})

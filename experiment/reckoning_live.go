package experiment

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
)

// runLiveReckoning plays a live cell: a match whose server replicates
// players by the cell's method over links with the cell's loss.
func runLiveReckoning(c Cell) (CellResult, error) {
	method, _ := c.Params["method"].(string)
	rep, err := server.ThresholdReplication(method, "metro")
	if err != nil {
		return CellResult{}, err
	}
	minutes := param(c, "minutes")
	res, err := match.Run(match.Config{
		Map: "metro", Mode: mode.CTF, Bots: int(param(c, "bots")), Seed: c.Seed,
		BaseRTTms: param(c, "rtt_ms"), Loss: param(c, "loss"), Replication: rep,
		Duration: time.Duration(minutes * float64(time.Minute)),
	}, nil)
	if err != nil {
		return CellResult{}, err
	}
	seconds := minutes * 60
	met := map[string]float64{"clients": float64(len(res.Players)), "client_seconds": seconds * float64(len(res.Players))}
	series := map[string][]float64{}
	for _, p := range res.Players {
		met["updates"] += float64(p.UpdatesSent)
		met["bytes_per_s_sum"] += p.BytesPerS
		met["error_sum_m"] += p.DisplayErrorM * float64(p.DisplaySamples)
		met["samples"] += float64(p.DisplaySamples)
		series["updates_per_s"] = append(series["updates_per_s"], float64(p.UpdatesSent)/seconds)
		series["position_error_mean_m"] = append(series["position_error_mean_m"], p.DisplayErrorM)
		series["bytes_per_s_per_client"] = append(series["bytes_per_s_per_client"], p.BytesPerS)
	}
	met["updates_per_s"] = safeDiv(met["updates"], met["client_seconds"])
	met["position_error_mean_m"] = safeDiv(met["error_sum_m"], met["samples"])
	met["bytes_per_s_per_client"] = safeDiv(met["bytes_per_s_sum"], met["clients"])
	return CellResult{Metrics: met, Series: series}, nil
}

// summariseLive adds the live conditions, their table by method and
// loss, the plots against loss, and at each loss the paired tests of
// dead against led and of each against full snapshots' bytes.
func summariseLive(r *Results, g groups) {
	tbl := Table{Name: "reckoning_live", Title: "Live matches: threshold replication against full snapshots, by loss (pooled)",
		Columns: []string{"method", "loss_pct", "updates_per_s", "position_error_mean_m", "bytes_per_s_per_client",
			"bytes_per_s_per_client_ci95", "updates_vs_full", "bytes_vs_full", "updates_vs_dead", "error_vs_dead", "clients"}}
	for _, loss := range liveLosses {
		full := liveCondition("full", loss)
		dead := liveCondition("dead", loss)
		if len(g.cells[dead]) == 0 {
			continue
		}
		for _, method := range reckoning.Replications.Names() {
			name := liveCondition(method, loss)
			if len(g.cells[name]) == 0 {
				continue
			}
			met := map[string]float64{
				"updates_per_s":          g.ratio(name, "updates", "client_seconds"),
				"position_error_mean_m":  g.ratio(name, "error_sum_m", "samples"),
				"bytes_per_s_per_client": g.ratio(name, "bytes_per_s_sum", "clients"),
				"clients":                g.sum(name, "clients"),
			}
			r.Conditions = append(r.Conditions, g.condition(name, "clients", int(met["clients"]), met))
			// Full replication is the baseline of the first two
			// comparisons; led is set against dead at equal middle
			// thresholds in the last two.
			vs := func(metric, num, den, base string) string {
				if len(g.cells[base]) == 0 {
					return ""
				}
				return fnum(safeDiv(met[metric], g.ratio(base, num, den)) - 1)
			}
			updDead, errDead := "", ""
			if method != "full" {
				updDead = vs("updates_per_s", "updates", "client_seconds", dead)
				errDead = vs("position_error_mean_m", "error_sum_m", "samples", dead)
			}
			tbl.Rows = append(tbl.Rows, []string{method, fmt.Sprintf("%g", 100*loss),
				fnum(met["updates_per_s"]), fnum(met["position_error_mean_m"]), fnum(met["bytes_per_s_per_client"]),
				fnum(g.ci(name, "bytes_per_s_per_client")),
				vs("updates_per_s", "updates", "client_seconds", full),
				vs("bytes_per_s_per_client", "bytes_per_s_sum", "clients", full),
				updDead, errDead, fnum(met["clients"])})
		}
		const note = "paired by player (replicate and player index)"
		led := liveCondition("led", loss)
		for _, metric := range []string{"updates_per_s", "position_error_mean_m", "bytes_per_s_per_client"} {
			xa, xb := pairPlayers(g, dead, led, metric)
			AddPaired(r, metric, dead, led, xa, xb, note)
		}
		// What threshold replication saves against full snapshots.
		for _, b := range []string{dead, led} {
			xa, xb := pairPlayers(g, full, b, "bytes_per_s_per_client")
			AddPaired(r, "bytes_per_s_per_client", full, b, xa, xb, note)
		}
	}
	if len(tbl.Rows) == 0 {
		return
	}
	r.Tables = append(r.Tables, tbl)
	r.Plots = append(r.Plots,
		Plot{Name: "reckoning_live_updates", Title: "Player states sent per client per second against loss", Kind: "line",
			Table: "reckoning_live", X: "loss_pct", Y: "updates_per_s", Series: "method", XLabel: "loss per direction (%)", YLabel: "updates per second per client"},
		Plot{Name: "reckoning_live_error", Title: "Mean display error of remote players against loss", Kind: "line",
			Table: "reckoning_live", X: "loss_pct", Y: "position_error_mean_m", Series: "method", XLabel: "loss per direction (%)", YLabel: "mean error (m)"},
		Plot{Name: "reckoning_live_bytes", Title: "Bytes per second per client against loss", Kind: "line",
			Table: "reckoning_live", X: "loss_pct", Y: "bytes_per_s_per_client", Series: "method", XLabel: "loss per direction (%)", YLabel: "bytes per second per client"},
	)
}

// pairPlayers pairs metric's per-player values of conditions a and b:
// the same player of the same replicate.
func pairPlayers(g groups, a, b, metric string) (xa, xb []float64) {
	for _, ca := range g.cells[a] {
		for _, cb := range g.cells[b] {
			if ca.Cell.Replicate != cb.Cell.Replicate {
				continue
			}
			sa, sb := ca.Series[metric], cb.Series[metric]
			for i := range min(len(sa), len(sb)) {
				xa, xb = append(xa, sa[i]), append(xb, sb[i])
			}
		}
	}
	return xa, xb
}

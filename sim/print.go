package sim

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes r for people, one figure a line.
func (r *Result) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, v any) { fmt.Fprintf(tw, "%s\t"+format+"\n", k, v) }
	row("players", "%d", r.Players)
	row("simulated", "%.1f s", r.DurationS)
	row("wall time", "%.2f s", r.WallS)
	row("speed", "%.0fx real time", r.DurationS/max(r.WallS, 1e-9))
	row("ticks", "%d", r.Ticks)
	row("prediction error mean", "%.5f m", r.PredictionErrorMeanM)
	row("prediction error p99", "%.5f m", r.PredictionErrorP99M)
	row("corrections", "%d", r.Corrections)
	row("interpolation error mean", "%.4f m", r.InterpErrorMeanM)
	row("bandwidth per client", "%.0f B/s", r.BytesPerSPerClient)
	row("snapshot size mean", "%.1f B", r.SnapshotBytesMean)
	row("commands lost", "%d", r.CommandsLost)
	row("player states per client", "%.1f /s", r.UpdatesPerSPerClient)
	row("server RTT mean", "%.1f ms", r.ServerRTTMeanMS)
	row("client RTT mean", "%.1f ms", r.ClientRTTMeanMS)
	if r.TickCPUUS > 0 {
		row("server tick CPU", "%.1f µs", r.TickCPUUS)
	}
	row("state hash", "%s", r.StateHash)
	tw.Flush()
}

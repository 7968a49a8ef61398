package livebench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Report is what lagkit bench --live and --capacity measured: the
// reference workload's time, the live runs and the capacity search.
type Report struct {
	RayCapsuleNS float64   `json:"ray_capsule_ns"`
	Runs         []*Result `json:"runs,omitempty"`
	Capacity     *Capacity `json:"capacity,omitempty"`
}

// liveGoals are the goals of the live server's CPU per tick, in core
// ticks, by transport.
var liveGoals = map[string]float64{"udp": 1.5, "wt": 2.5}

// WriteText writes f for people: each run's CPU per tick against the
// core's, in µs and in ray-capsule tests, and the capacity search.
func (f *Report) WriteText(w io.Writer) {
	ref := f.RayCapsuleNS / 1e3 // µs
	fmt.Fprintf(w, "reference: one ray-capsule test %.1f ns (figures in µs and in ray-capsule tests, rc)\n", f.RayCapsuleNS)
	if len(f.Runs) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "transport\tbots\tserver CPU per tick\tcore tick\tratio (goal)\tmatch goroutine per tick\tlateness p99\toverruns\tper client\tallocations per datagram")
		for _, r := range f.Runs {
			goal := "-"
			if g, ok := liveGoals[r.Transport]; ok {
				met := "met"
				if r.Ratio > g {
					met = "not met"
				}
				goal = fmt.Sprintf("≤ %gx, %s", g, met)
			}
			perDG := 0.0
			if r.DatagramsPerTick > 0 {
				perDG = r.AllocsPerTick / r.DatagramsPerTick
			}
			fmt.Fprintf(tw, "%s\t%d at %d Hz\t%.0f µs (%.0f rc)\t%.0f µs (%.0f rc)\t%.2fx (%s)\t%.0f µs\t%.0f µs\t%d of %d\t%.0f B/s\t%.2f\n",
				r.Transport, r.Players, r.TickRate, r.CPUPerTickUS, r.CPUPerTickUS/ref, r.CoreTickUS, r.CoreTickUS/ref, r.Ratio, goal,
				r.MatchCPUPerTickUS, r.LatenessP99US, r.Overruns, r.Ticks, r.BytesPerSPerClient, perDG)
		}
		tw.Flush()
	}
	if c := f.Capacity; c != nil {
		for _, r := range c.Tried {
			fmt.Fprintf(w, "  %d matches: lateness p99 %.0f µs, %d overruns, server CPU %.2f cores, %.0f µs (%.0f rc) a match tick: %.1f matches per core\n",
				r.Matches, r.LatenessP99US, r.Overruns, r.Cores, r.CPUPerTickUS, r.CPUPerTickUS/ref, r.MatchesPerCore)
		}
		if c.Best == nil {
			fmt.Fprintf(w, "capacity: not even %d 10-player 128 Hz match held tick-start lateness p99 ≤ %.0f µs with no overrun\n", c.Tried[0].Matches, c.MaxLatenessUS)
			return
		}
		b := c.Best
		fmt.Fprintf(w, "capacity: %d 10-player 128 Hz matches held (lateness p99 %.0f µs ≤ %.0f µs, no overrun) on %.2f cores of server CPU: %.1f matches per core (goal ≥ 20)\n",
			c.Held, b.LatenessP99US, c.MaxLatenessUS, b.Cores, b.MatchesPerCore)
	}
}

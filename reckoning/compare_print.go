package reckoning

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes rep for people: a row per method against dead
// reckoning at the first threshold, then the comparison at equal error.
func (rep Comparison) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "replayed %d players (%.0f s) against trend maps from %d others\n", rep.Players, rep.Seconds, rep.Trainers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tthreshold (m)\tupdates/s\tmean error (m)\tupdates vs dead\terror vs dead")
	base := rep.Methods[0]
	for _, r := range rep.Methods {
		th := fmt.Sprintf("%.3f", r.EtaM)
		if r.Method == "led" {
			th = fmt.Sprintf("%.3f-%.3f", r.EtaMinM, r.EtaMaxM)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.4f\t%+.1f%%\t%+.1f%%\n", r.Method, th, r.UpdatesPerS, r.PositionErrorMeanM,
			100*(Ratio(r.UpdatesPerS, base.UpdatesPerS)-1), 100*(Ratio(r.PositionErrorMeanM, base.PositionErrorMeanM)-1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "per path (%d paths of %v or more, the study's unit: mean ± standard deviation over paths)\n", rep.Paths, MinPathDuration)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tthreshold (m)\tupdates/s\tmean error (m)")
	for _, r := range rep.Methods {
		th := fmt.Sprintf("%.3f", r.EtaM)
		if r.Method == "led" {
			th = fmt.Sprintf("%.3f-%.3f", r.EtaMinM, r.EtaMaxM)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f ± %.3f\t%.4f ± %.4f\n", r.Method, th, r.PathUpdatesPerS, r.PathUpdatesPerSSD,
			r.PathPositionErrorMeanM, r.PathPositionErrorSDM)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if e := rep.EqualError; e != nil {
		fmt.Fprintf(w, "at led reckoning's error (%.4f m), dead reckoning (threshold %.3f m) sends %.3f updates/s; led sends %+.1f%%\n",
			e.ErrorM, e.DeadEtaM, e.DeadUpdatesPerS, 100*e.LedVsDeadUpdates)
	} else {
		fmt.Fprintln(w, "led reckoning's error lies outside the thresholds replayed: widen --frontier to compare at equal error")
	}
	return nil
}

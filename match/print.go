package match

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes r for people: the match, a row per player, the
// per-client figures, the duels when followed and the state hash.
func (r *Result) WriteTable(w io.Writer) {
	m := r.Match
	fmt.Fprintf(w, "%s on %s under %s: score %d-%d, %d captures, %.0f s simulated in %.1f s\n",
		m.Mode, m.Map, m.Policy, m.Score[0], m.Score[1], m.Captures, m.DurationS, m.WallS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "id\tteam\trtt\tshots\thits\taccuracy\tkills\tdeaths\tscore\thit by\tsbc\tdistance\t")
	for _, p := range r.Players {
		fmt.Fprintf(tw, "%d\t%d\t%.0f ms\t%d\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%.0f m\t\n",
			p.ID, p.Team, p.RTTms, p.Shots, p.Hits, 100*p.HitAccuracy, p.Kills, p.Deaths, p.Score,
			p.HitsReceived, p.SBCReceived, p.DistanceM)
	}
	tw.Flush()
	var bytes, updates, disp, samples float64
	for _, p := range r.Players {
		bytes += p.BytesPerS
		updates += float64(p.UpdatesSent)
		disp += p.DisplayErrorM * float64(p.DisplaySamples)
		samples += float64(p.DisplaySamples)
	}
	if n := float64(len(r.Players)); n > 0 {
		fmt.Fprintf(w, "per client: %.0f B/s, %.1f player updates/s, display error %.4f m\n",
			bytes/n, updates/n/max(m.DurationS, 1e-9), disp/max(samples, 1))
	}
	if d := r.Duels; d != nil {
		fmt.Fprintf(w, "duels: %d, %d both saw; the first to draw ahead by %.1f ms (Riot's account: %.1f ms), hit first in %.0f%%, won %.0f%%\n",
			d.Count, d.BothSaw, d.AdvantageMeanMS, d.ExpectedMeanMS, 100*d.FirstHitShare, 100*d.FirstWinShare)
	}
	fmt.Fprintln(w, "state hash", m.StateHash)
}

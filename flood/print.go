package flood

import (
	"fmt"
	"io"
	"slices"
)

// WriteText writes r for people: what was sent, what came back and the
// amplification, then the counts by kind and by reply type.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "flooded %s for %.1f s from %d sources (%s)\n", r.Target, r.DurationS, r.Sources, r.Mode)
	fmt.Fprintf(w, "sent      %d datagrams (%.0f/s), %d bytes", r.Sent, r.Rate(), r.SentBytes)
	if r.SendErrors > 0 {
		fmt.Fprintf(w, ", %d refused by the system", r.SendErrors)
	}
	fmt.Fprintf(w, "\nreceived  %d datagrams, %d bytes\namplification %.4f\n", r.Received, r.ReceivedBytes, r.Amplification())
	for _, m := range []struct {
		title  string
		counts map[string]int64
	}{{"sent by kind", r.Kinds}, {"replies by type", r.Replies}} {
		if len(m.counts) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", m.title)
		keys := make([]string, 0, len(m.counts))
		for k := range m.counts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %-14s %d\n", k, m.counts[k])
		}
	}
}

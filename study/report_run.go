package study

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/record"
)

// RunInfo is how the study was run: the build that ran it, whether
// --quick cut its rounds, how long it took on the wall clock, and its
// timeline.
type RunInfo struct {
	// Version, Revision, Modified and BuildNote are the build's, as the
	// study stored them (studies.csv).
	Version   string `json:"lagkit_version"`
	Revision  string `json:"vcs_revision"`
	Modified  bool   `json:"vcs_modified"`
	BuildNote string `json:"build_note,omitempty"`
	// ShortenedS is the cap --quick put on every round, 0 without.
	ShortenedS float64 `json:"shortened_s"`
	// WallS is the time from the study's start to the last thing it
	// recorded (a round's end, an event), stops and the time to the
	// resuming run included.
	WallS float64 `json:"wall_s"`
	// Timeline lists, in order of time, the rounds' starts and ends and
	// the study's events: the admin's start, pauses, skips and
	// extensions, stops, crashes found at a rerun, resumptions and the
	// end.
	Timeline []TimelineEntry `json:"timeline"`
}

// TimelineEntry is one moment of a study's run.
type TimelineEntry struct {
	At time.Time `json:"at"`
	// Round is the round (from 1) being or next played.
	Round  int    `json:"round"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
}

// Timeline kinds besides the events' (record.EventStart, ...).
const (
	TimelineRoundStart = "round start"
	TimelineRoundEnd   = "round end"
)

// runInfo builds the run's information from the study record, its
// rounds and its events.
func runInfo(st record.Study, rounds []record.Round, events []record.Event) RunInfo {
	ri := RunInfo{Version: st.Version, Revision: st.Revision, Modified: st.Modified, BuildNote: st.BuildNote,
		ShortenedS: st.Shortened.Seconds()}
	for _, r := range rounds {
		if !r.Started.IsZero() {
			ri.Timeline = append(ri.Timeline, TimelineEntry{At: r.Started.UTC(), Round: r.Index + 1, Kind: TimelineRoundStart, Detail: r.Name})
		}
		if !r.Ended.IsZero() {
			ri.Timeline = append(ri.Timeline, TimelineEntry{At: r.Ended.UTC(), Round: r.Index + 1, Kind: TimelineRoundEnd, Detail: r.Name})
		}
	}
	for _, e := range events {
		ri.Timeline = append(ri.Timeline, TimelineEntry{At: e.At.UTC(), Round: e.Round + 1, Kind: e.Kind, Detail: e.Detail})
	}
	// Stable: a round's end and the event at the same instant keep the
	// order they were recorded in.
	slices.SortStableFunc(ri.Timeline, func(a, b TimelineEntry) int { return a.At.Compare(b.At) })
	if n := len(ri.Timeline); n > 0 && !st.Started.IsZero() {
		ri.WallS = ri.Timeline[n-1].At.Sub(st.Started).Seconds()
	}
	return ri
}

// markdownRun writes the run's section: the build, --quick, the wall
// time and the timeline.
func (r *Report) markdownRun(b *strings.Builder) {
	ri := &r.Run
	b.WriteString("\n## Run\n\n")
	rev := ri.Revision
	switch {
	case rev == "":
		rev = "unknown"
	case ri.Modified:
		rev += " (modified tree)"
	}
	fmt.Fprintf(b, "lagkit %s, revision %s.", ri.Version, rev)
	if ri.BuildNote != "" {
		fmt.Fprintf(b, " %s%s.", strings.ToUpper(ri.BuildNote[:1]), ri.BuildNote[1:])
	}
	if ri.ShortenedS > 0 {
		fmt.Fprintf(b, "\n\nQuick run: yes. `--quick` cut every round's measured part to at most %s and dropped warm-ups and intervals: rounds.csv's planned_s is the cut length, not the schedule's.", secs(ri.ShortenedS))
	} else {
		b.WriteString("\n\nQuick run: no (every round as long as the schedule says).")
	}
	clock := "Wall time"
	if r.Simulated {
		clock = "Time on the simulation's clock"
	}
	fmt.Fprintf(b, " %s %s, from the start to the last thing recorded, stops and resumptions included (a pooled report: its sessions' times summed).\n",
		clock, secs(math.Round(ri.WallS*10)/10))
	if len(ri.Timeline) == 0 {
		return
	}
	b.WriteString("\nTimeline (UTC):\n\n| time | round | what | detail |\n|---|---|---|---|\n")
	for _, e := range ri.Timeline {
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", e.At.Format("15:04:05.000"), e.Round, e.Kind, cellText(e.Detail))
	}
}

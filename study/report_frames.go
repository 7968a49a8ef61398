package study

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
)

// FrameRow is how one participant's page drew one round (record.Frames)
// beside its display's refresh rate and its own round trip, flagged
// when it ran under the schedule's frame-rate floor.
type FrameRow struct {
	Round     int     `json:"round"` // from 1
	Technique string  `json:"technique"`
	Seat      int     `json:"seat"`
	Frames    int     `json:"frames"`
	MeanMS    float64 `json:"frame_mean_ms"`
	P95MS     float64 `json:"frame_p95_ms"`
	MaxMS     float64 `json:"frame_max_ms"`
	RefreshHz float64 `json:"refresh_hz"`
	RTTMeanMS float64 `json:"client_rtt_mean_ms"`
	// BelowFloor is set when the page's mean frame time was above
	// 1000/MinFPS ms: the round's figures for that participant are not
	// the technique's alone.
	BelowFloor bool `json:"below_floor"`
}

// frameRows returns the pages' frame times by round and seat, flagged
// against the floor of minFPS frames a second.
func (s *Summariser) frameRows(minFPS float64) []FrameRow {
	refresh := map[int]float64{}
	for _, c := range s.rep.Clients {
		refresh[c.Seat] = c.RefreshHz
	}
	var out []FrameRow
	for _, f := range s.design.frames {
		row := FrameRow{Round: f.Round + 1, Seat: f.Seat, Frames: f.Frames, MeanMS: f.MeanMS, P95MS: f.P95MS, MaxMS: f.MaxMS,
			RefreshHz: refresh[f.Seat], RTTMeanMS: f.RTTMeanMS, BelowFloor: f.Frames > 0 && f.MeanMS > 1000/minFPS}
		if rt := s.byIndex[f.Round]; rt != nil {
			row.Technique, _ = s.sched.technique(rt.rec)
		}
		out = append(out, row)
	}
	slices.SortStableFunc(out, func(a, b FrameRow) int { return cmp.Or(a.Round-b.Round, a.Seat-b.Seat) })
	return out
}

// markdownFrames writes the pages' frame times, refresh rates and round
// trips, with the rounds under the floor flagged.
func (r *Report) markdownFrames(b *strings.Builder) {
	if len(r.Frames) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Frame times, refresh rates and round trips\n\nEach participant's page per round: its frames and the time between them "+
		"through the measured part, its display's refresh rate and its own round-trip estimate. Rounds drawn at a mean frame time above %.1f ms "+
		"(under the schedule's floor of %s frames a second, min_fps) are flagged: that participant's figures in that round are not the technique's alone.\n\n",
		1000/r.MinFPS, num(r.MinFPS))
	b.WriteString("| round | technique | seat | frames | mean (ms) | p95 (ms) | max (ms) | refresh (Hz) | client RTT (ms) | below floor |\n|---|---|---|---|---|---|---|---|---|---|\n")
	flagged := 0
	for _, f := range r.Frames {
		flag := ""
		if f.BelowFloor {
			flag, flagged = "**yes**", flagged+1
		}
		fmt.Fprintf(b, "| %d | %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", f.Round, f.Technique, f.Seat, f.Frames, f.MeanMS, f.P95MS, f.MaxMS,
			f.RefreshHz, f.RTTMeanMS, flag)
	}
	fmt.Fprintf(b, "\n%d of %d participant-rounds below the floor.\n", flagged, len(r.Frames))
}

// frameResults adds the frame table to res.
func (r *Report) frameResults(res *experiment.Results) {
	if len(r.Frames) == 0 {
		return
	}
	t := experiment.Table{Name: "study_frames", Title: fmt.Sprintf("Frame times, refresh rate and round trip per participant per round; below_floor: a mean frame time above %.1f ms (min_fps %s)", 1000/r.MinFPS, num(r.MinFPS)),
		Columns: []string{"round", "technique", "seat", "frames", "frame_mean_ms", "frame_p95_ms", "frame_max_ms", "refresh_hz", "client_rtt_mean_ms", "below_floor"}}
	for _, f := range r.Frames {
		t.Rows = append(t.Rows, []string{strconv.Itoa(f.Round), f.Technique, strconv.Itoa(f.Seat), strconv.Itoa(f.Frames), num(f.MeanMS), num(f.P95MS),
			num(f.MaxMS), num(f.RefreshHz), num(f.RTTMeanMS), strconv.FormatBool(f.BelowFloor)})
	}
	res.Tables = append(res.Tables, t)
}

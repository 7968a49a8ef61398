package study

import (
	"strings"
	"testing"

	"github.com/lagkit/lagkit/record"
)

// TestFrameTimesInReport: the pages' frame times, refresh rates and
// round trips are in the report per participant and round (the README
// said so; they were not), and a round a page drew at 446 ms a frame is
// flagged under the schedule's floor (min_fps 30: 33.3 ms) while one at
// 16.7 ms is not; a floor the schedule sets is used, and a bad one is
// refused.
func TestFrameTimesInReport(t *testing.T) {
	sched := strings.Replace(policySchedule(2), `name = "policy"`, "name = \"policy\"\nmin_fps = 50", 1)
	if _, err := Parse("bad.toml", []byte(strings.Replace(sched, "min_fps = 50", "min_fps = -1", 1))); err == nil || !strings.Contains(err.Error(), "min_fps") {
		t.Fatalf("min_fps -1: %v", err)
	}
	for _, tc := range []struct {
		schedule string
		floor    float64
		flagged  []bool
	}{
		{policySchedule(2), 30, []bool{true, false, false}},
		{sched, 50, []bool{true, false, true}},
	} {
		var sum Summariser
		sum.Put(record.Study{Name: "policy", Schedule: tc.schedule, Started: epoch})
		sum.Put(record.Round{Index: 0, Name: "a", Technique: "tlc", Setting: "policy=tlc", Started: epoch})
		for seat := range 2 {
			sum.Put(record.Participant{Seat: seat, Round: 0, LatencyMS: 10})
		}
		sum.Put(record.Client{Seat: 0, Round: 0, RefreshHz: 60})
		sum.Put(record.Frames{Seat: 0, Round: 0, Frames: 40, MeanMS: 446, P95MS: 530, MaxMS: 900, RTTMeanMS: 31, RTTSamples: 10})
		sum.Put(record.Frames{Seat: 1, Round: 0, Frames: 1200, MeanMS: 16.7, P95MS: 18, MaxMS: 40})
		sum.Put(record.Frames{Seat: 1, Round: 1, Frames: 1200, MeanMS: 25, P95MS: 30, MaxMS: 40})
		rep, err := sum.Report()
		if err != nil {
			t.Fatal(err)
		}
		if rep.MinFPS != tc.floor || len(rep.Frames) != 3 {
			t.Fatalf("floor %v, frames %+v", rep.MinFPS, rep.Frames)
		}
		for i, f := range rep.Frames {
			if f.BelowFloor != tc.flagged[i] {
				t.Errorf("floor %v: frame row %+v: below floor %v, want %v", tc.floor, f, f.BelowFloor, tc.flagged[i])
			}
		}
		if f := rep.Frames[0]; f.RefreshHz != 60 || f.RTTMeanMS != 31 || f.Technique != "tlc" {
			t.Errorf("row %+v", f)
		}
		md := rep.Markdown()
		if !strings.Contains(md, "## Frame times, refresh rates and round trips") || !strings.Contains(md, "| 1 | tlc | 0 | 40 | 446.0 | 530.0 | 900.0 | 60.0 | 31.0 | **yes** |") {
			t.Errorf("study.md lacks the frame table:\n%s", md)
		}
	}
}

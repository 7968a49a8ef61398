package wire

import (
	"math"
	"strings"
	"testing"
)

func reportAcks() []ReportAck {
	return []ReportAck{
		{},
		{Kept: true},
		{Report: Report{Seen: true, SBC: true, Shooter: 255, ShotTick: math.MaxUint32}, Kept: true},
		{Report: Report{Seen: true, Shooter: 3, ShotTick: 77}},
	}
}

func TestReportAckRoundTrip(t *testing.T) {
	eventRoundTrip(t, reportAcks(), AppendReportAck, DecodeReportAck)
}

func TestReportAckRejects(t *testing.T) {
	if _, err := AppendReportAck(nil, &ReportAck{Report: Report{Shooter: 2}}); err == nil {
		t.Error("a report of no hit naming a shooter encoded")
	}
	valid, err := AppendReportAck(nil, &ReportAck{Report: Report{Seen: true, Shooter: 1, ShotTick: 9}, Kept: true})
	if err != nil {
		t.Fatal(err)
	}
	unseen := []byte{0b10 | 0b1<<2, 0, 0, 0, 0, 0} // SBC set, Seen not
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short", valid[:3], "report ack event"},
		{"trailing", append(valid[:len(valid):len(valid)], 0), "trailing bytes"},
		{"sbc without a hit", unseen, "no hit seen"},
	} {
		var e ReportAck
		if err := DecodeReportAck(tc.b, &e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func FuzzDecodeReportAck(f *testing.F) {
	fuzzEvent(f, reportAcks(), AppendReportAck, DecodeReportAck)
}

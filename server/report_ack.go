package server

import "github.com/lagkit/lagkit/wire"

// reportMemory is how many of a client's newest answered reports the
// server remembers against copies: reports are rate limited (a burst of
// reportBurst, then one per reportRefill), so a copy the network delays
// past that many newer reports is older than a minute.
const reportMemory = 8

// ReportCounts counts the SBC reports the server received.
type ReportCounts struct {
	Kept    int // kept for SBCReports and answered as kept
	Refused int // over the client's report rate, answered as not kept
	// Copies are datagrams repeating a report already answered (a
	// duplicate the network made, or a replay): neither kept nor
	// answered again.
	Copies int
}

// answered reports whether c's report m repeats one already answered,
// and counts it if so. A client sends each report once, and a report
// names the newest hit its client had heard of, so two reports that say
// the same are one.
func (s *Server) answered(c *client, m *wire.Report) bool {
	for _, r := range c.reports.answered {
		if r == *m {
			s.stats.Reports.Copies++
			return true
		}
	}
	return false
}

// answerReport tells c, by a reliable ReportAck event, that its report m
// was kept or not, and remembers m against copies.
func (s *Server) answerReport(c *client, m *wire.Report, kept bool) {
	if kept {
		s.stats.Reports.Kept++
	} else {
		s.stats.Reports.Refused++
	}
	b := &c.reports
	if len(b.answered) == reportMemory {
		b.answered = append(b.answered[:0], b.answered[1:]...)
	}
	b.answered = append(b.answered, *m)
	data, err := wire.AppendReportAck(nil, &wire.ReportAck{Report: *m, Kept: kept})
	if err != nil {
		return // a decoded report always encodes
	}
	s.sendEvent(c, wire.EventReportAck, data)
}

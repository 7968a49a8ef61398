package client

import (
	"time"

	"github.com/lagkit/lagkit/wire"
)

// A report the server has not answered is sent again every reportResend,
// or every two round trips when that is longer, so a report lost on the
// way still arrives; the server keeps a copy of one it already answered
// for what it is, and its answer, a reliable event, arrives once.
const reportResend = 250 * time.Millisecond

// maxUnanswered bounds the reports waiting for an answer; the oldest is
// given up beyond it. The server answers a burst of 3 and then one per
// 10 s, so an honest player never has this many out.
const maxUnanswered = 8

// pendingReport is a report not yet answered, and when it was last sent
// (timed false: by ReportSBC, which has no clock).
type pendingReport struct {
	m      wire.Report
	sentAt time.Duration
	timed  bool
}

// awaitAnswer keeps m, just sent, until the server answers it.
func (c *Client) awaitAnswer(m wire.Report) {
	if len(c.unacked) == maxUnanswered {
		c.unacked = append(c.unacked[:0], c.unacked[1:]...)
	}
	c.unacked = append(c.unacked, pendingReport{m: m})
}

// resendReports sends again the oldest report the server has not
// answered in time. It sends at most one every reportResend/2, so
// however many are waiting, the copies stay far below the server's
// Limits.Reports (default 16 a second).
func (c *Client) resendReports(now time.Duration) {
	every := max(reportResend, 2*c.rtt.Smoothed())
	for i := range c.unacked {
		p := &c.unacked[i]
		if !p.timed {
			p.sentAt, p.timed = now, true
			continue
		}
		if now-p.sentAt < every || c.resent && now-c.resentAt < reportResend/2 {
			continue
		}
		buf, err := wire.AppendReport(nil, &p.m)
		if err != nil {
			continue // it encoded when first sent
		}
		c.send(buf)
		p.sentAt = now
		c.resent, c.resentAt = true, now
		c.stats.ReportsResent++
	}
}

// reportAck hands over and counts the server's answer to one of the
// player's reports and stops sending that report.
func (c *Client) reportAck(data []byte) {
	var e wire.ReportAck
	if wire.DecodeReportAck(data, &e) != nil {
		c.stats.Malformed++
		return
	}
	c.ready.cur.ReportAnswers = append(c.ready.cur.ReportAnswers, e)
	if e.Kept {
		c.stats.ReportsKept++
	} else {
		c.stats.ReportsRefused++
	}
	for i, p := range c.unacked {
		if p.m == e.Report {
			c.unacked = append(c.unacked[:i], c.unacked[i+1:]...)
			break
		}
	}
}

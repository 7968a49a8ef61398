package realtime

import (
	"fmt"
	"sync"
	"testing"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// sessionLog collects the statistics of every client session a test's
// bots play.
type sessionLog struct {
	mu sync.Mutex
	s  []ClientStats
}

func (l *sessionLog) add(s ClientStats) {
	l.mu.Lock()
	l.s = append(l.s, s)
	l.mu.Unlock()
}

// errorer is what checkDelivery needs of a *testing.T.
type errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

// failures is an errorer that counts the errors.
type failures int

func (f *failures) Helper()               {}
func (f *failures) Errorf(string, ...any) { *f++ }

// delivery sums up an exactly-once check.
type delivery struct {
	sessions, events, acked, delivered, undelivered         int
	reportsSent, reportsKept, reportsRefused, reportsResent int
	reportCopies                                            int // copies the server ignored
	recorded                                                int // SBC reports in the sink
	// verdicts are the appeal verdicts queued, appealed the appealed
	// shots in the sink.
	verdicts, appealed int
}

func (d delivery) String() string {
	return fmt.Sprintf("%d sessions: %d events queued, %d acknowledged, %d delivered (%d queued at a session's end never reached it); reports %d sent (%d copies resent, %d copies ignored), %d kept, %d refused, %d recorded; %d verdicts for %d appealed shots",
		d.sessions, d.events, d.acked, d.delivered, d.undelivered, d.reportsSent, d.reportsResent, d.reportCopies, d.reportsKept, d.reportsRefused, d.recorded, d.verdicts, d.appealed)
}

// checkDelivery checks that every session got exactly what the server
// sent it: the events the client delivered are, entry for entry (sequence
// number, kind, digest of the data), the first events the server queued
// for that session, no duplicate, no gap, at least all those the client
// acknowledged; and that the SBC reports are recorded exactly once: each
// report the server kept (answered kept) is in the sink once, and each
// seat has in the sink at least the reports its clients saw answered
// kept and at most those plus the answers still in flight when its
// sessions ended; and that no appealed shot had two verdicts sent.
func checkDelivery(t errorer, srvAcc, cliAcc *Account, sessions []ClientStats, sink []record.Record, st server.Stats) delivery {
	t.Helper()
	var d delivery
	srv, cli := srvAcc.Sessions(), cliAcc.Sessions()
	inFlight := map[int]int{} // report answers never delivered, by seat
	for nonce, list := range srv {
		// The client joined one of the server's sessions under its
		// nonce: the one at its seat whose first event it delivered. The
		// others it never heard of, and so acknowledged nothing of.
		var c SessionEvents
		if cs := cli[nonce]; len(cs) > 0 {
			c = cs[0]
			if len(cs) > 1 {
				t.Errorf("session %x: the client delivered %d sequences", nonce, len(cs))
			}
		}
		joined := -1
		for i, s := range list {
			if len(c.Events) > 0 && c.Seat == s.Seat && len(s.Events) > 0 && c.Events[0] == s.Events[0] {
				joined = i
			}
		}
		if len(c.Events) > 0 && joined < 0 {
			t.Errorf("session %x: the client (seat %d) delivered events of none of the %d server sessions", nonce, c.Seat, len(list))
		}
		delete(cli, nonce)
		for i, s := range list {
			d.sessions++
			d.events += len(s.Events)
			d.acked += s.Acked
			for j, e := range s.Events {
				if e.Kind == wire.EventVerdict {
					d.verdicts++
				}
				if e.Seq != uint32(j+1) {
					t.Errorf("session %x: the server's event %d has sequence number %d", nonce, j, e.Seq)
					break
				}
			}
			var got []EventEntry
			if i == joined {
				got = c.Events
			}
			d.delivered += len(got)
			for j, e := range got {
				if j >= len(s.Events) {
					t.Errorf("session %x: the client delivered %d events, the server queued %d", nonce, len(got), len(s.Events))
					break
				}
				if e != s.Events[j] {
					t.Errorf("session %x: delivered event %d is %+v, the server queued %+v", nonce, j, e, s.Events[j])
					break
				}
			}
			// An acknowledged event the client did not deliver waits
			// behind one it never received, which the server had not
			// seen acknowledged when the session ended.
			if len(got) < len(s.Events) && s.AckedSeq[s.Events[len(got)].Seq] {
				t.Errorf("session %x at seat %d: event %d acknowledged, never delivered (%d delivered)", nonce, s.Seat, s.Events[len(got)].Seq, len(got))
			}
			for _, e := range s.Events[min(len(got), len(s.Events)):] {
				d.undelivered++
				if e.Kind == wire.EventReportAck {
					inFlight[s.Seat]++
				}
			}
		}
	}
	for nonce, cs := range cli {
		t.Errorf("session %x (seat %d) delivered %d events the server never queued", nonce, cs[0].Seat, len(cs[0].Events))
	}
	answered := map[int]int{} // reports answered kept, by seat
	for _, s := range sessions {
		d.reportsSent += s.Reports
		d.reportsKept += s.ReportsKept
		d.reportsRefused += s.ReportsRefused
		d.reportsResent += s.ReportsResent
		if s.ReportsKept+s.ReportsRefused > s.Reports {
			t.Errorf("session %x: %d reports sent, %d kept and %d refused", s.Nonce, s.Reports, s.ReportsKept, s.ReportsRefused)
		}
		if s.ReportsKept > 0 {
			answered[s.Seat] += s.ReportsKept
		}
	}
	recorded := map[int]int{}
	for _, r := range sink {
		switch r := r.(type) {
		case record.SBCReport:
			recorded[r.Reporter]++
			d.recorded++
		case record.Shot:
			if r.Appeal != "" {
				d.appealed++
			}
		}
	}
	if d.verdicts > d.appealed {
		t.Errorf("%d appeal verdicts sent for %d appealed shots", d.verdicts, d.appealed)
	}
	d.reportCopies = st.Reports.Copies
	if d.recorded != st.Reports.Kept {
		t.Errorf("%d SBC reports recorded, the server kept %d", d.recorded, st.Reports.Kept)
	}
	seats := map[int]bool{}
	for _, m := range []map[int]int{recorded, answered, inFlight} {
		for seat := range m {
			seats[seat] = true
		}
	}
	for seat := range seats {
		if r, a := recorded[seat], answered[seat]; r < a || r > a+inFlight[seat] {
			t.Errorf("seat %d: %d SBC reports recorded, its clients saw %d kept, %d answers in flight", seat, r, a, inFlight[seat])
		}
	}
	return d
}

// TestCheckDeliveryCatches: the soak's check fails on a duplicate, a gap,
// changed content, an acknowledged event never delivered, a session the
// server never had, and an SBC report recorded twice; it passes the
// honest account.
func TestCheckDeliveryCatches(t *testing.T) {
	const nonce = 7
	queue := func(a *Account, seat int, events ...string) {
		for i, e := range events {
			a.add(nonce, seat, uint32(i+1), wire.EventKill, []byte(e), false)
		}
	}
	report := record.SBCReport{Reporter: 2}
	played := []ClientStats{{Seat: 2, Nonce: nonce, Reports: 1, ReportsKept: 1}}
	cases := []struct {
		name      string
		delivered []string
		extra     bool // a session the server never had
		recorded  int
		ok        bool
	}{
		{"honest", []string{"a", "b"}, false, 1, true},
		{"duplicate", []string{"a", "a", "b"}, false, 1, false},
		{"gap", []string{"a", "c"}, false, 1, false},
		{"changed", []string{"a", "B"}, false, 1, false},
		{"acknowledged, not delivered", []string{"a"}, false, 1, false},
		{"foreign session", []string{"a", "b"}, true, 1, false},
		{"recorded twice", []string{"a", "b"}, false, 2, false},
	}
	for _, tc := range cases {
		srv, cli := NewAccount(), NewAccount()
		queue(srv, 2, "a", "b", "c")
		srv.add(nonce, 2, 1, 0, nil, true)
		srv.add(nonce, 2, 2, 0, nil, true)
		queue(cli, 2, tc.delivered...)
		if tc.extra {
			cli.add(nonce+1, 3, 1, wire.EventKill, nil, false)
		}
		var sink []record.Record
		for range tc.recorded {
			sink = append(sink, report)
		}
		var f failures
		checkDelivery(&f, srv, cli, played, sink, server.Stats{Reports: server.ReportCounts{Kept: 1}})
		if (f == 0) != tc.ok {
			t.Errorf("%s: %d failures, want them %v", tc.name, f, !tc.ok)
		}
	}
	// An event acknowledged behind a gap: the client held it, waiting
	// for the one before it, when the session ended. Honest.
	{
		srv, cli := NewAccount(), NewAccount()
		queue(srv, 2, "a", "b", "c")
		srv.add(nonce, 2, 1, 0, nil, true)
		srv.add(nonce, 2, 3, 0, nil, true)
		queue(cli, 2, "a")
		var f failures
		checkDelivery(&f, srv, cli, played, []record.Record{report}, server.Stats{Reports: server.ReportCounts{Kept: 1}})
		if f != 0 {
			t.Errorf("held behind a gap: %d failures, want none", f)
		}
	}
	// Two server sessions under one nonce (the first ended before its
	// client heard the Accept): the client joined the second, at seat 3.
	for _, tc := range []struct {
		name        string
		firstAcked  bool
		clientFirst string
		ok          bool
	}{
		{"joined the second", false, "x", true},
		{"joined neither", false, "q", false},
		{"the first acknowledged, unheard", true, "x", false},
	} {
		srv, cli := NewAccount(), NewAccount()
		queue(srv, 2, "a", "b")
		if tc.firstAcked {
			srv.add(nonce, 2, 1, 0, nil, true)
		}
		queue(srv, 3, "x", "y")
		queue(cli, 3, tc.clientFirst, "y")
		var f failures
		checkDelivery(&f, srv, cli, nil, nil, server.Stats{})
		if (f == 0) != tc.ok {
			t.Errorf("%s: %d failures, want them %v", tc.name, f, !tc.ok)
		}
	}
	// Two verdicts for one appealed shot.
	srv, cli := NewAccount(), NewAccount()
	for _, a := range []*Account{srv, cli} {
		a.add(nonce, 2, 1, wire.EventVerdict, []byte{1}, false)
		a.add(nonce, 2, 2, wire.EventVerdict, []byte{1}, false)
	}
	var f failures
	checkDelivery(&f, srv, cli, nil, []record.Record{record.Shot{Appeal: "confirmed"}}, server.Stats{})
	if f == 0 {
		t.Error("two verdicts for one appealed shot passed")
	}
}

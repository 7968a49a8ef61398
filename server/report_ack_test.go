package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// notesOf collects a server's event notes, copying their data.
func notesOf(s *Server) *[]EventNote {
	var notes []EventNote
	s.SetEventNotes(func(n *EventNote) {
		c := *n
		c.Data = append([]byte(nil), n.Data...)
		notes = append(notes, c)
	})
	return &notes
}

// TestReportCopiesKeptOnce: a report the network duplicated, or a copy
// of it arriving after a newer report, is kept once and answered once;
// the answers are reliable events naming the report, and an answer says
// whether the report was kept.
func TestReportCopiesKeptOnce(t *testing.T) {
	d := newDuel(t, Config{})
	notes := notesOf(d.s)
	a := wire.Report{Seen: true, Shooter: 0, ShotTick: 40, SBC: true}
	b := wire.Report{}
	for _, m := range []wire.Report{a, a, b, a, b} {
		if err := d.sendReport(2, m); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(d.s.Ready().Reports); got != 2 {
		t.Fatalf("%d reports kept of two sent, each twice or more", got)
	}
	if st := d.s.Stats().Reports; st != (ReportCounts{Kept: 2, Copies: 3}) {
		t.Errorf("report counts %+v, want 2 kept and 3 copies", st)
	}
	// Beyond the burst: refused, and answered as such.
	for i := range reportBurst {
		if err := d.sendReport(2, wire.Report{Seen: true, ShotTick: uint32(50 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if st := d.s.Stats().Reports; st.Kept != reportBurst || st.Refused != 2 {
		t.Errorf("report counts %+v, want %d kept and 2 refused", st, reportBurst)
	}
	d.run(200 * time.Millisecond)
	var acks []wire.ReportAck
	queued, acked := map[uint32]bool{}, 0
	for _, n := range *notes {
		if n.Seat != 1 || n.Kind != wire.EventReportAck {
			continue
		}
		if n.Acked {
			if !queued[n.Seq] {
				t.Errorf("event %d acknowledged before it was queued", n.Seq)
			}
			acked++
			continue
		}
		queued[n.Seq] = true
		var e wire.ReportAck
		if err := wire.DecodeReportAck(n.Data, &e); err != nil {
			t.Fatal(err)
		}
		acks = append(acks, e)
	}
	want := []wire.ReportAck{{Report: a, Kept: true}, {Report: b, Kept: true},
		{Report: wire.Report{Seen: true, ShotTick: 50}, Kept: true},
		{Report: wire.Report{Seen: true, ShotTick: 51}}, {Report: wire.Report{Seen: true, ShotTick: 52}}}
	if len(acks) != len(want) {
		t.Fatalf("answers %+v, want %+v", acks, want)
	}
	for i := range want {
		if acks[i] != want[i] {
			t.Errorf("answer %d: %+v, want %+v", i, acks[i], want[i])
		}
	}
	if acked != len(want) {
		t.Errorf("%d answers acknowledged of %d", acked, len(want))
	}
}

// TestEventNotesFollowTheStream: the notes of a session are its events
// in sequence order, each queued once, and the acknowledged ones are a
// prefix of them, in the same order.
func TestEventNotesFollowTheStream(t *testing.T) {
	d := newDuel(t, Config{})
	notes := notesOf(d.s)
	for range 3 {
		d.shoot(nil)
		d.run(300 * time.Millisecond)
	}
	next := map[int]uint32{}
	ackNext := map[int]uint32{}
	sessions := map[int]uint64{}
	for _, n := range *notes {
		if s, ok := sessions[n.Seat]; ok && s != n.Session {
			t.Fatalf("seat %d: notes of sessions %x and %x", n.Seat, s, n.Session)
		}
		sessions[n.Seat] = n.Session
		if n.Acked {
			if ackNext[n.Seat] != 0 && n.Seq != ackNext[n.Seat] || n.Seq >= next[n.Seat] {
				t.Fatalf("seat %d: acknowledged %d, after %d, queued up to %d", n.Seat, n.Seq, ackNext[n.Seat]-1, next[n.Seat]-1)
			}
			ackNext[n.Seat] = n.Seq + 1
			continue
		}
		if next[n.Seat] != 0 && n.Seq != next[n.Seat] {
			t.Fatalf("seat %d: queued %d after %d", n.Seat, n.Seq, next[n.Seat]-1)
		}
		next[n.Seat] = n.Seq + 1
	}
	if len(d.hits[2]) == 0 || next[1] == 0 || ackNext[1] == 0 || sessions[0] == 0 {
		t.Fatalf("no hit or no notes: hits %d, queued up to %v, acknowledged up to %v", len(d.hits[2]), next, ackNext)
	}
}

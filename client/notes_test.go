package client

import (
	"bytes"
	"testing"

	"github.com/lagkit/lagkit/wire"
)

// TestEventNotesOncePerEvent: the notes name each reliable event once, in
// sequence order, with its data, however often and in whatever order the
// snapshots carrying it arrive.
func TestEventNotesOncePerEvent(t *testing.T) {
	c := connected(t, Config{})
	type note struct {
		seq  uint32
		kind uint16
		data []byte
	}
	var notes []note
	c.SetEventNotes(func(seq uint32, kind uint16, data []byte) {
		notes = append(notes, note{seq, kind, append([]byte(nil), data...)})
	})
	kill := func(k, v uint8) wire.Event {
		return event(t, wire.EventKill, &wire.KillEvent{Killer: k, Victim: v}, wire.AppendKillEvent)
	}
	evs := []wire.Event{kill(1, 2), kill(2, 3), kill(3, 4)}
	feedEvents(t, c, 10, 1, evs[:2])
	feedEvents(t, c, 11, 1, evs[:2]) // repeated until acknowledged
	feedEvents(t, c, 13, 2, evs[1:]) // the first acknowledged
	feedEvents(t, c, 12, 1, evs)     // older: ignored
	if len(notes) != 3 {
		t.Fatalf("%d notes, want 3: %+v", len(notes), notes)
	}
	for i, n := range notes {
		if n.seq != uint32(i+1) || n.kind != wire.EventKill || !bytes.Equal(n.data, evs[i].Data) {
			t.Errorf("note %d: %+v, want event %d %+v", i, n, i+1, evs[i])
		}
	}
}

// TestReportAnswered: a hit is reported once (ErrReported after, with
// nothing sent), and the server's answers are counted.
func TestReportAnswered(t *testing.T) {
	c := connected(t, Config{})
	if err := c.ReportSBC(); err != nil {
		t.Fatal(err)
	}
	c.Outbox()
	if err := c.ReportSBC(); err != ErrReported || len(c.Outbox()) != 0 {
		t.Fatalf("the same report again: %v", err)
	}
	ack := func(kept bool) wire.Event {
		return event(t, wire.EventReportAck, &wire.ReportAck{Kept: kept}, wire.AppendReportAck)
	}
	feedEvents(t, c, 10, 1, []wire.Event{ack(true), ack(false), {Kind: wire.EventReportAck, Data: []byte{0xff}}})
	if st := c.Stats(); st.Reports != 1 || st.ReportsKept != 1 || st.ReportsRefused != 1 || st.Malformed != 1 {
		t.Errorf("stats %+v, want 1 report sent, 1 kept, 1 refused, 1 malformed", st)
	}
}

package client

import (
	"bytes"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
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
	take := func() {
		for _, n := range c.Ready().Notes {
			notes = append(notes, note{n.Seq, n.Kind, append([]byte(nil), n.Data...)})
		}
	}
	kill := func(k, v uint8) wire.Event {
		return event(t, wire.EventKill, &wire.KillEvent{Killer: k, Victim: v}, wire.AppendKillEvent)
	}
	evs := []wire.Event{kill(1, 2), kill(2, 3), kill(3, 4)}
	feedEvents(t, c, 10, 1, evs[:2])
	take()
	feedEvents(t, c, 11, 1, evs[:2]) // repeated until acknowledged
	feedEvents(t, c, 13, 2, evs[1:]) // the first acknowledged
	take()
	feedEvents(t, c, 12, 1, evs) // older: ignored
	take()
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
// nothing sent), and the server's answers are handed over and counted.
func TestReportAnswered(t *testing.T) {
	c := connected(t, Config{})
	if err := c.ReportSBC(); err != nil {
		t.Fatal(err)
	}
	c.Ready()
	if err := c.ReportSBC(); err != ErrReported || len(sent(c)) != 0 {
		t.Fatalf("the same report again: %v", err)
	}
	ack := func(kept bool) wire.Event {
		return event(t, wire.EventReportAck, &wire.ReportAck{Kept: kept}, wire.AppendReportAck)
	}
	feedEvents(t, c, 10, 1, []wire.Event{ack(true), ack(false), {Kind: wire.EventReportAck, Data: []byte{0xff}}})
	r := c.Ready()
	if a := r.ReportAnswers; len(a) != 2 || !a[0].Kept || a[1].Kept || r.Counts.ReportsKept != 1 || r.Counts.ReportsRefused != 1 {
		t.Errorf("answers %+v, counts %+v: want one kept, one refused", a, r.Counts)
	}
	if st := c.Stats(); st.Reports != 1 || st.ReportsKept != 1 || st.ReportsRefused != 1 || st.Malformed != 1 {
		t.Errorf("stats %+v, want 1 report sent, 1 kept, 1 refused, 1 malformed", st)
	}
}

// TestReportSentUntilAnswered: a report the server has not answered goes
// again every reportResend, and no more once the answer came.
func TestReportSentUntilAnswered(t *testing.T) {
	c := connected(t, Config{})
	if err := c.ReportSBC(); err != nil {
		t.Fatal(err)
	}
	c.Ready()
	reports := func(from, to time.Duration) int {
		n := 0
		for now := from; now < to; now += tick {
			for _, b := range bodies(c.Tick(now, game.UserCmd{}).Messages) {
				if typ, _ := wire.PeekType(b); typ == wire.MsgReport {
					n++
				}
			}
		}
		return n
	}
	if n := reports(tick, 600*time.Millisecond); n != 2 || c.Stats().ReportsResent != 2 {
		t.Fatalf("%d reports sent again in 600 ms unanswered (counted %d), want 2", n, c.Stats().ReportsResent)
	}
	ack := event(t, wire.EventReportAck, &wire.ReportAck{Kept: true}, wire.AppendReportAck)
	feedEvents(t, c, 40, 1, []wire.Event{ack})
	if n := reports(700*time.Millisecond, 2*time.Second); n != 0 {
		t.Errorf("%d reports sent after the answer", n)
	}
}

// TestReportResendsPaced: however many reports wait for an answer, the
// copies go at most one every reportResend/2.
func TestReportResendsPaced(t *testing.T) {
	c := connected(t, Config{})
	for i := range maxUnanswered + 2 {
		h := wire.HitEvent{Shooter: 1, ShotTick: uint32(40 + i), Part: game.PartTorso, Damage: 1, ShooterEye: geom.V(14, 0, 1.640625)}
		feedEvents(t, c, uint32(10+i), uint32(1+i), []wire.Event{event(t, wire.EventHit, &h, wire.AppendHitEvent)})
		if err := c.ReportSBC(); err != nil {
			t.Fatal(err)
		}
	}
	c.Ready()
	if len(c.unacked) != maxUnanswered {
		t.Fatalf("%d reports waiting, want the newest %d", len(c.unacked), maxUnanswered)
	}
	n := 0
	for now := time.Second; now < 3*time.Second; now += tick {
		for _, b := range bodies(c.Tick(now, game.UserCmd{}).Messages) {
			if typ, _ := wire.PeekType(b); typ == wire.MsgReport {
				n++
			}
		}
	}
	if want := int(2 * time.Second / (reportResend / 2)); n > want || n < want/2 {
		t.Errorf("%d copies in 2 s, want at most %d (and most of that)", n, want)
	}
}

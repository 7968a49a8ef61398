package wire

import (
	"bytes"
	"strings"
	"testing"
)

func TestGameEventsRoundTrip(t *testing.T) {
	m := GameEvents{First: 41, Events: []Event{
		{Kind: EventGameMin, Data: []byte("dash")},
		{Kind: 0xffff},
		{Kind: EventGameMin + 300, Data: bytes.Repeat([]byte{7}, MaxGameEventData)},
	}}
	b, err := AppendGameEvents(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	var got GameEvents
	if err := DecodeGameEvents(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.First != 41 || len(got.Events) != 3 {
		t.Fatalf("decoded %+v", got)
	}
	for i, ev := range got.Events {
		if ev.Seq != 41+uint32(i) || ev.Kind != m.Events[i].Kind || !bytes.Equal(ev.Data, m.Events[i].Data) {
			t.Errorf("event %d: %+v, want %+v", i, ev, m.Events[i])
		}
	}
	a := AppendGameEventAck(nil, &GameEventAck{Through: 1 << 31})
	var ack GameEventAck
	if err := DecodeGameEventAck(a, &ack); err != nil || ack.Through != 1<<31 {
		t.Fatalf("ack %+v, %v", ack, err)
	}
}

func TestGameEventsErrors(t *testing.T) {
	for _, m := range []GameEvents{
		{},
		{Events: make([]Event, MaxGameEvents+1)},
		{Events: []Event{{Kind: EventHit}}},
		{Events: []Event{{Kind: EventGameMin, Data: make([]byte, MaxGameEventData+1)}}},
		{Events: []Event{{Kind: EventGameMin, Data: make([]byte, 250)}, {Kind: EventGameMin, Data: make([]byte, 250)},
			{Kind: EventGameMin, Data: make([]byte, 250)}, {Kind: EventGameMin, Data: make([]byte, 250)}, {Kind: EventGameMin, Data: make([]byte, 250)}}},
	} {
		if b, err := AppendGameEvents([]byte{9}, &m); err == nil || len(b) != 1 {
			t.Errorf("%d events accepted", len(m.Events))
		}
	}
	good, _ := AppendGameEvents(nil, &GameEvents{First: 1, Events: []Event{{Kind: EventGameMin, Data: []byte{1, 2, 3}}}})
	w := bitWriter{}
	w.writeBits(uint64(MsgGameEvents), 8)
	w.writeBits(1, 32)
	w.writeBits(1, gameEventCountBits)
	w.writeUvarint(uint64(EventHit))
	w.writeBits(0, 8)
	lagkits := w.buf
	var m GameEvents
	for name, b := range map[string][]byte{
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte(nil), good...), 0),
		"lagkit's":  lagkits,
		"no events": {byte(MsgGameEvents), 0, 0, 0, 0, 0},
		"empty":     {},
		"other":     {byte(MsgReport)},
	} {
		err := DecodeGameEvents(b, &m)
		if err == nil {
			t.Errorf("%s: decoded %+v", name, m)
		}
		if name == "lagkit's" && !strings.Contains(err.Error(), "not a game's") {
			t.Errorf("lagkit's kind: %v", err)
		}
	}
}

// FuzzDecodeGameEvents: whatever decodes encodes again to the same
// datagram; nothing panics.
func FuzzDecodeGameEvents(f *testing.F) {
	good, _ := AppendGameEvents(nil, &GameEvents{First: 3, Events: []Event{{Kind: EventGameMin, Data: []byte("x")}, {Kind: 0xffff}}})
	f.Add(good)
	f.Add(AppendGameEventAck(nil, &GameEventAck{Through: 9}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m GameEvents
		if DecodeGameEvents(b, &m) != nil {
			return
		}
		again, err := AppendGameEvents(nil, &m)
		if err != nil {
			t.Fatalf("decoded events do not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x, was %x", again, b)
		}
	})
}

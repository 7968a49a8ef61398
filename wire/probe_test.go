package wire

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProbe: a probe's datagrams round-trip, are byte aligned as a
// page's script writes them, and bad ones are refused with the field.
func TestProbe(t *testing.T) {
	for _, tt := range []struct {
		m    Probe
		want []byte
	}{
		{Probe{Ticket: "ab"}, []byte{byte(MsgProbe), 0, 0, 0, 0, 0, 2, 'a', 'b'}},
		{Probe{Seq: 0x01020304}, []byte{byte(MsgProbe), 4, 3, 2, 1, 0, 0}},
		{Probe{Seq: 3, Done: true, RTT: 300 * time.Microsecond}, []byte{byte(MsgProbe), 3, 0, 0, 0, 1, 0xac, 0x02, 0}},
	} {
		b, err := AppendProbe(nil, &tt.m)
		if err != nil || !bytes.Equal(b, tt.want) {
			t.Errorf("AppendProbe(%+v) = %x, %v; want %x", tt.m, b, err, tt.want)
			continue
		}
		var got Probe
		if err := DecodeProbe(b, &got); err != nil || got != tt.m {
			t.Errorf("DecodeProbe(%x) = %+v, %v; want %+v", b, got, err, tt.m)
		}
	}
	for _, tt := range []struct {
		b    []byte
		want string
	}{
		{[]byte{byte(MsgProbe), 1, 0, 0, 0, 2, 0}, "done flag"},
		{[]byte{byte(MsgProbe), 1, 0, 0, 0, 0, 65}, "ticket of 65 bytes exceeds 64"},
		{[]byte{byte(MsgProbe), 1, 0, 0, 0, 0, 0, 9}, "trailing"},
		{[]byte{byte(MsgProbe), 1, 0}, "truncated"},
		{[]byte{byte(MsgCommands), 1, 0, 0, 0, 0, 0}, "probe"},
	} {
		var m Probe
		if err := DecodeProbe(tt.b, &m); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("DecodeProbe(%x) = %v, want an error with %q", tt.b, err, tt.want)
		}
	}
	if _, err := AppendProbe(nil, &Probe{Ticket: strings.Repeat("x", 65)}); err == nil {
		t.Error("a ticket of 65 bytes encodes")
	}
	if _, err := AppendProbe(nil, &Probe{RTT: time.Millisecond}); err == nil {
		t.Error("a round trip without Done encodes")
	}
}

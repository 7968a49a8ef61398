package wire

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSessionRoundTrip(t *testing.T) {
	name32 := strings.Repeat("é", 16) // 32 bytes of two-byte runes
	reason := strings.Repeat("r", MaxReasonLen)
	tests := []struct {
		name string
		run  func() (any, any, error)
	}{
		{"connect", func() (any, any, error) {
			return roundTripMsg(&Connect{Version: Version, Name: "alice", SnapshotRate: 64, InterpDelay: 100 * time.Millisecond}, AppendConnect, DecodeConnect)
		}},
		{"connect edges", func() (any, any, error) {
			return roundTripMsg(&Connect{Version: Version, Name: name32, SnapshotRate: 65535, InterpDelay: MaxDelay}, AppendConnect, DecodeConnect)
		}},
		{"connect zero", func() (any, any, error) {
			return roundTripMsg(&Connect{Version: Version}, AppendConnect, DecodeConnect)
		}},
		{"connect rejoin", func() (any, any, error) {
			return roundTripMsg(&Connect{Version: Version, Name: "bob", Rejoin: Rejoin{Asked: true, Seat: 255, Team: 1}}, AppendConnect, DecodeConnect)
		}},
		{"connect longest rejoin", func() (any, any, error) {
			return roundTripMsg(&Connect{Version: Version, Nonce: 1 << 63, Token: strings.Repeat("t", MaxTokenLen), Name: name32, SnapshotRate: 65535,
				InterpDelay: MaxDelay, Key: strings.Repeat("k", KeySize), Rejoin: Rejoin{Asked: true, Seat: 7}}, AppendConnect, DecodeConnect)
		}},
		{"accept", func() (any, any, error) {
			return roundTripMsg(&Accept{ClientID: 3, TickRate: 64, Tick: 12345, Map: "metro"}, AppendAccept, DecodeAccept)
		}},
		{"accept edges", func() (any, any, error) {
			return roundTripMsg(&Accept{ClientID: 255, TickRate: 65535, Tick: 1<<32 - 1, Map: name32}, AppendAccept, DecodeAccept)
		}},
		{"reject", func() (any, any, error) {
			return roundTripMsg(&Reject{Reason: "server full"}, AppendReject, DecodeReject)
		}},
		{"reject longest", func() (any, any, error) { return roundTripMsg(&Reject{Reason: reason}, AppendReject, DecodeReject) }},
		{"disconnect empty", func() (any, any, error) {
			return roundTripMsg(&Disconnect{}, AppendDisconnect, DecodeDisconnect)
		}},
		{"disconnect", func() (any, any, error) {
			return roundTripMsg(&Disconnect{Nonce: 1<<64 - 1, Reason: "timed out ⏱"}, AppendDisconnect, DecodeDisconnect)
		}},
		{"disconnect with a code", func() (any, any, error) {
			return roundTripMsg(&Disconnect{Nonce: 42, Reason: "too many malformed datagrams", Code: DisconnectMalformed}, AppendDisconnect, DecodeDisconnect)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// roundTripMsg encodes m, decodes it and returns both values.
func roundTripMsg[M comparable](m *M, enc func([]byte, *M) ([]byte, error), dec func([]byte, *M) error) (any, any, error) {
	b, err := enc(nil, m)
	if err != nil {
		return nil, nil, err
	}
	var got M
	if err := dec(b, &got); err != nil {
		return nil, nil, err
	}
	return got, *m, nil
}

func TestConnectOtherVersion(t *testing.T) {
	// A Connect of the next version, whose body this version cannot parse.
	next := byte(Version + 1)
	b := []byte{byte(MsgConnect), next, 0, 0xff, 0xff, 0xff}
	m := Connect{Name: "stale"}
	if err := DecodeConnect(b, &m); err != nil {
		t.Fatalf("DecodeConnect: %v", err)
	}
	if m != (Connect{Version: Version + 1}) {
		t.Errorf("got %+v, want only Version %d", m, Version+1)
	}
	want := fmt.Sprintf("wire: connect: version %d, want %d", Version+1, Version)
	if _, err := AppendConnect(nil, &Connect{Version: Version + 1}); err == nil || err.Error() != want {
		t.Errorf("AppendConnect of version %d: %v", Version+1, err)
	}
}

func TestSessionEncodeErrors(t *testing.T) {
	bad := string([]byte{0xff, 0xfe})
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"long name", func() error {
			_, err := AppendConnect(nil, &Connect{Version: Version, Name: strings.Repeat("a", 33)})
			return err
		}, "wire: connect: name too long"},
		{"invalid name", func() error {
			_, err := AppendConnect(nil, &Connect{Version: Version, Name: bad})
			return err
		}, "wire: connect: name not valid UTF-8"},
		{"rejoin not asked", func() error {
			_, err := AppendConnect(nil, &Connect{Version: Version, Rejoin: Rejoin{Seat: 3}})
			return err
		}, "wire: connect: rejoin seat or team without Asked"},
		{"interp delay", func() error {
			_, err := AppendConnect(nil, &Connect{Version: Version, InterpDelay: -time.Millisecond})
			return err
		}, "wire: connect: interp delay -1ms out of range"},
		{"tick rate", func() error {
			_, err := AppendAccept(nil, &Accept{Map: "x"})
			return err
		}, "wire: accept: tick rate 0"},
		{"long map", func() error {
			_, err := AppendAccept(nil, &Accept{TickRate: 64, Map: strings.Repeat("m", 33)})
			return err
		}, "wire: accept: map too long"},
		{"long reason", func() error {
			_, err := AppendReject(nil, &Reject{Reason: strings.Repeat("r", 201)})
			return err
		}, "wire: reject: reason too long"},
		{"invalid reason", func() error {
			_, err := AppendDisconnect(nil, &Disconnect{Reason: bad})
			return err
		}, "wire: disconnect: reason not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.err(); err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSessionDecodeErrors(t *testing.T) {
	str := func(t MsgType, lenBits uint, n int, b ...byte) []byte {
		w := bitWriter{}
		w.writeBits(uint64(t), 8)
		w.writeBits(uint64(n), lenBits)
		for _, c := range b {
			w.writeBits(uint64(c), 8)
		}
		return w.buf
	}
	connect := func(name ...byte) []byte {
		w := bitWriter{}
		w.writeBits(uint64(MsgConnect), 8)
		w.writeBits(Version, 16)
		w.writeBits(0, 64)
		w.writeBits(0, tokenLenBits)
		w.writeBits(uint64(len(name)), nameLenBits)
		for _, c := range name {
			w.writeBits(uint64(c), 8)
		}
		w.writeBits(0, 16)
		w.writeUvarint(uint64(MaxDelay/time.Microsecond) + 1)
		return append(w.buf, make([]byte, ConnectSize-len(w.buf))...)
	}
	tests := []struct {
		name string
		dec  func([]byte) error
		b    []byte
		want string
	}{
		{"reject: long reason", decodeWith(DecodeReject), str(MsgReject, 8, 201), "wire: reject: reason of 201 bytes exceeds 200"},
		{"reject: invalid", decodeWith(DecodeReject), str(MsgReject, 8, 2, 0xc3, 0x28), "wire: reject: reason is not valid UTF-8"},
		{"reject: truncated string", decodeWith(DecodeReject), str(MsgReject, 8, 3, 'a'), "wire: reject: truncated"},
		{"disconnect: wrong type", decodeWith(DecodeDisconnect), str(MsgReject, 8, 0), "wire: disconnect: message type is reject"},
		{"disconnect: unknown type", decodeWith(DecodeDisconnect), []byte{0}, "wire: disconnect: message type is MsgType(0)"},
		{"connect: interp delay", decodeWith(DecodeConnect), connect('a'), "wire: connect: interp delay out of range"},
		{"connect: truncated version", decodeWith(DecodeConnect), []byte{byte(MsgConnect), 1}, "wire: connect: truncated"},
		{"accept: tick rate 0", decodeWith(DecodeAccept), []byte{byte(MsgAccept), 1, 0, 0, 0, 0, 0, 0, 0}, "wire: accept: tick rate 0"},
		{"accept: long map", decodeWith(DecodeAccept), []byte{byte(MsgAccept), 1, 64, 0, 0, 0, 0, 0, 63}, "wire: accept: map of 63 bytes exceeds 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.dec(tt.b); err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func decodeWith[M any](dec func([]byte, *M) error) func([]byte) error {
	return func(b []byte) error {
		var m M
		return dec(b, &m)
	}
}

func TestPeekType(t *testing.T) {
	tests := []struct {
		b       []byte
		want    MsgType
		wantErr string
	}{
		{[]byte{1}, MsgConnect, ""},
		{[]byte{6, 9, 9}, MsgDisconnect, ""},
		{nil, 0, "wire: empty datagram"},
		{[]byte{0}, 0, "wire: unknown message type 0"},
		{[]byte{7, 0}, MsgAppeal, ""},
		{[]byte{8}, MsgChallenge, ""},
		{[]byte{9}, MsgReport, ""},
		{[]byte{10}, MsgSealed, ""},
		{[]byte{11}, MsgGameEvents, ""},
		{[]byte{12}, MsgGameEventAck, ""},
		{[]byte{13}, MsgProbe, ""},
		{[]byte{14}, 0, "wire: unknown message type 14"},
		{make([]byte, MaxDatagram+1), 0, "wire: datagram of 1101 bytes exceeds MaxDatagram"},
	}
	for _, tt := range tests {
		got, err := PeekType(tt.b)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("PeekType(%x) = %v, %v; want %v, %q", tt.b, got, err, tt.want, tt.wantErr)
		}
	}
	for m, want := range map[MsgType]string{MsgSnapshot: "snapshot", MsgAppeal: "appeal", MsgChallenge: "challenge", MsgReport: "report", MsgSealed: "sealed", MsgGameEvents: "game events", MsgProbe: "probe", 14: "MsgType(14)"} {
		if s := m.String(); s != want {
			t.Errorf("MsgType(%d).String() = %q, want %q", m, s, want)
		}
	}
}

// TestConnectIsPaddedBeyondEveryPreSessionReply: a server answers a
// Connect with at most one Reject, Challenge or Accept, each no larger
// than the padded Connect, and refuses a Connect shorter or longer than
// ConnectSize or with nonzero padding.
func TestConnectIsPaddedBeyondEveryPreSessionReply(t *testing.T) {
	b, err := AppendConnect(nil, &Connect{Version: Version, Nonce: 7, Token: strings.Repeat("\xff", MaxTokenLen)})
	if err != nil || len(b) != ConnectSize {
		t.Fatalf("connect: %d bytes, %v; want %d", len(b), err, ConnectSize)
	}
	var m Connect
	if err := DecodeConnect(b, &m); err != nil || m.Nonce != 7 || len(m.Token) != MaxTokenLen {
		t.Fatalf("decoded %+v, %v", m, err)
	}
	reject, _ := AppendReject(nil, &Reject{Reason: strings.Repeat("r", MaxReasonLen)})
	challenge, _ := AppendChallenge(nil, &Challenge{Nonce: 1 << 63, Token: strings.Repeat("t", MaxTokenLen)})
	accept, _ := AppendAccept(nil, &Accept{ClientID: 255, TickRate: 128, Tick: 1 << 31, Map: strings.Repeat("m", MaxNameLen)})
	for name, reply := range map[string][]byte{"reject": reject, "challenge": challenge, "accept": accept} {
		if len(reply) == 0 || len(reply) > ConnectSize {
			t.Errorf("largest %s: %d bytes, want 1..%d", name, len(reply), ConnectSize)
		}
	}
	var c Challenge
	if err := DecodeChallenge(challenge, &c); err != nil || c.Nonce != 1<<63 || len(c.Token) != MaxTokenLen {
		t.Fatalf("challenge decoded %+v, %v", c, err)
	}
	dirty := append([]byte(nil), b...)
	dirty[ConnectSize-1] = 1
	for name, in := range map[string][]byte{"short": b[:ConnectSize-1], "long": append(b, 0), "dirty": dirty} {
		if err := DecodeConnect(in, &m); err == nil {
			t.Errorf("%s connect decoded", name)
		}
	}
}

// TestDisconnectCodes: a code travels as one byte after the reason, none
// is sent for DisconnectUnspecified, and an unknown or explicitly zero
// code is refused.
func TestDisconnectCodes(t *testing.T) {
	plain, err := AppendDisconnect(nil, &Disconnect{Nonce: 7, Reason: "bye"})
	if err != nil {
		t.Fatal(err)
	}
	coded, err := AppendDisconnect(nil, &Disconnect{Nonce: 7, Reason: "bye", Code: DisconnectBytes})
	if err != nil {
		t.Fatal(err)
	}
	if len(coded) != len(plain)+1 || coded[len(plain)] != byte(DisconnectBytes) {
		t.Fatalf("coded %x, plain %x: want the code as one more byte", coded, plain)
	}
	for _, code := range []byte{0, byte(NumDisconnectCodes)} {
		var m Disconnect
		if err := DecodeDisconnect(append(plain[:len(plain):len(plain)], code), &m); err == nil {
			t.Errorf("code %d decoded as %+v", code, m)
		}
	}
	if _, err := AppendDisconnect(nil, &Disconnect{Code: NumDisconnectCodes}); err == nil {
		t.Error("unknown code encoded")
	}
	if m := (Disconnect{}); DecodeDisconnect(plain, &m) != nil || m.Nonce != 7 || m.Reason != "bye" {
		t.Errorf("decoded %+v, want the nonce 7 and the reason", m)
	}
	// The nonce is part of every Disconnect: one without it (a type byte
	// and a reason) is cut short.
	if err := DecodeDisconnect([]byte{byte(MsgDisconnect), 3, 'b', 'y', 'e'}, new(Disconnect)); err == nil {
		t.Error("a Disconnect without its session nonce decoded")
	}
	if DisconnectAppeals.String() != "appeals" || DisconnectCode(200).String() != "code_200" {
		t.Errorf("names %q %q", DisconnectAppeals, DisconnectCode(200))
	}
}

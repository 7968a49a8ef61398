package wire

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// testCmd is a game's own command: more buttons, two analog axes, a
// target's slot, an ability and a charge time.
type testCmd struct {
	Buttons uint16        `lagkit:"max=1023"`
	Throt   float32       `lagkit:"min=-1,max=1,q=0.01"`
	Steer   float32       `lagkit:"min=-1,max=1,q=0.01"`
	Target  uint8         `lagkit:"max=63"`
	Ability int8          `lagkit:"min=-1,max=4"`
	Charge  time.Duration `lagkit:"q=10ms,max=2s"`
	Crouch  bool
}

var testCmdDecl = game.MustDeclareCmd[testCmd]()

// gameCmds returns n commands from tick first, each with a game part,
// the third with a fire press.
func gameCmds(first uint32, n int) []game.UserCmd {
	cmds := make([]game.UserCmd, n)
	for i := range cmds {
		c := &cmds[i]
		c.Tick, c.Duration, c.ViewTime = first+uint32(i), 15625*time.Microsecond, time.Second+time.Duration(i)*15625*time.Microsecond
		c.Yaw, c.Forward = uint16(1000*i), 127
		testCmdDecl.Set(c, testCmd{Buttons: uint16(1 << i), Throt: 0.5, Steer: float32(i) / 10, Target: uint8(60 + i%4),
			Ability: int8(i%6 - 1), Charge: time.Duration(i) * 250 * time.Millisecond, Crouch: i%2 == 1})
		testCmdDecl.Snap(&c.Game)
		if i == 2 {
			// A fire press (sub-tick input) beside the game's part.
			c.Buttons, c.HasPress, c.Shown = game.BtnFire, true, game.ShownHit
			c.Press = game.Press{Offset: 5 * time.Millisecond, Yaw: c.Yaw + 40, Pitch: -20, ViewTime: c.ViewTime - 12*time.Millisecond}
		}
	}
	return cmds
}

// TestCommandsGamePart: a declared command's fields ride every command
// of a packet, delta coded against the one before (an unchanged part
// costs a bit a field), and decode as sent; lagkit's commands, with no
// declaration, are byte for byte as before.
func TestCommandsGamePart(t *testing.T) {
	cmds := gameCmds(40, MaxCmdsPerPacket)
	m := Commands{AckTick: 9, ClientTime: time.Minute, Cmds: cmds, Game: testCmdDecl.CmdLayout}
	b, err := AppendCommands(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	got := Commands{Game: testCmdDecl.CmdLayout}
	if err := DecodeCommands(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Cmds, cmds) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got.Cmds, cmds)
	}
	for i := range got.Cmds {
		if a, w := testCmdDecl.Get(&got.Cmds[i]), testCmdDecl.Get(&cmds[i]); a != w {
			t.Errorf("cmd %d: %+v, sent %+v", i, a, w)
		}
	}
	// Unchanged parts: one bit a field (seven) for each command after
	// the first.
	same := gameCmds(40, MaxCmdsPerPacket)
	for i := range same {
		same[i].Game = same[0].Game
	}
	plain := gameCmds(40, MaxCmdsPerPacket)
	for i := range plain {
		plain[i].Game = game.CmdState{}
	}
	bSame, err := AppendCommands(nil, &Commands{ClientTime: time.Minute, Cmds: same, Game: testCmdDecl.CmdLayout})
	if err != nil {
		t.Fatal(err)
	}
	bPlain, err := AppendCommands(nil, &Commands{ClientTime: time.Minute, Cmds: plain})
	if err != nil {
		t.Fatal(err)
	}
	first := testCmdDecl.MaxBits()
	if extra := (len(bSame) - len(bPlain)) * 8; extra > first+7*(MaxCmdsPerPacket-1)+8 {
		t.Errorf("an unchanged part costs %d bits over %d commands, want at most %d", extra, MaxCmdsPerPacket, first+7*(MaxCmdsPerPacket-1)+8)
	}
	if testCmdDecl.MaxBits() != 7+10+8+8+6+3+8+1 {
		t.Errorf("MaxBits %d", testCmdDecl.MaxBits())
	}
	// Without a declaration the game part cannot be sent, and the
	// decoder reads none: lagkit's own packets.
	if _, err := AppendCommands(nil, &Commands{ClientTime: time.Minute, Cmds: cmds}); err == nil || !strings.Contains(err.Error(), "without a declaration") {
		t.Errorf("a game part without a declaration: %v", err)
	}
	var lk Commands
	if err := DecodeCommands(bPlain, &lk); err != nil || !reflect.DeepEqual(lk.Cmds, plain) {
		t.Errorf("lagkit's commands: %v", err)
	}
	// The same bytes under a declaration lack its parts.
	if err := DecodeCommands(bPlain, &Commands{Game: testCmdDecl.CmdLayout}); err == nil {
		t.Error("a declared decoder read commands without their parts")
	}
}

// TestCommandsGameRefused: a field outside its declared range is
// refused by name, by the encoder and by Check, and a decoder refuses a
// value beyond the field's maximum that its width could hold.
func TestCommandsGameRefused(t *testing.T) {
	for _, tc := range []struct {
		set   func(*testCmd)
		field string
	}{
		{func(c *testCmd) { c.Target = 64 }, "field Target: 64 outside 0..63"},
		{func(c *testCmd) { c.Buttons = 1024 }, "field Buttons"},
		{func(c *testCmd) { c.Ability = -2 }, "field Ability: -2 outside -1..4"},
		{func(c *testCmd) { c.Throt = 1.5 }, "field Throt: 1.5 outside -1..1"},
		{func(c *testCmd) { c.Steer = float32(math.NaN()) }, "field Steer: NaN"},
		{func(c *testCmd) { c.Charge = 3 * time.Second }, "field Charge: 3s outside 0s..2s"},
	} {
		cmds := gameCmds(1, 3)
		v := testCmdDecl.Get(&cmds[1])
		tc.set(&v)
		testCmdDecl.Set(&cmds[1], v)
		_, err := AppendCommands(nil, &Commands{ClientTime: time.Minute, Cmds: cmds, Game: testCmdDecl.CmdLayout})
		if err == nil || !strings.Contains(err.Error(), "cmd 1: ") || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("want an error naming %q, got %v", tc.field, err)
		}
		if err := testCmdDecl.Check(&cmds[1].Game); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("Check: want %q, got %v", tc.field, err)
		}
	}
	// Ability's 3 bits hold up to 7 above its minimum -1: 5 and 6 are
	// beyond max=4. Write one by hand where the encoder puts it.
	one := gameCmds(1, 1)
	testCmdDecl.Of(&one[0]).Ability = 4
	b, err := AppendCommands(nil, &Commands{ClientTime: time.Minute, Cmds: one, Game: testCmdDecl.CmdLayout})
	if err != nil {
		t.Fatal(err)
	}
	var m Commands
	m.Game = testCmdDecl.CmdLayout
	if err := DecodeCommands(b, &m); err != nil {
		t.Fatal(err)
	}
	// Find the Ability value's bits (4 - -1 = 5 = 0b101) and make them
	// 0b111 by trying each position: exactly the decoder's range check
	// must refuse some such flip.
	refused := false
	for bit := 8 * 8; bit < len(b)*8-2 && !refused; bit++ {
		c := append([]byte(nil), b...)
		for k := range 3 {
			c[(bit+k)/8] |= 1 << ((bit + k) % 8)
		}
		if err := DecodeCommands(c, &m); err != nil && strings.Contains(err.Error(), "game field Ability out of range") {
			refused = true
		}
	}
	if !refused {
		t.Error("no out-of-range Ability was refused by name")
	}
}

// TestSnapCmd: Snap puts floats and durations on their grid and zeroes
// what lies outside the fields, as the decoder delivers them.
func TestSnapCmd(t *testing.T) {
	var c game.UserCmd
	testCmdDecl.Set(&c, testCmd{Throt: 0.123, Charge: 1234567 * time.Microsecond, Target: 5})
	c.Game[1] |= 0xffff << 48 // the padding after Ability
	testCmdDecl.Snap(&c.Game)
	if got := testCmdDecl.Get(&c); got.Throt != 0.12 || got.Charge != 1230*time.Millisecond || got.Target != 5 {
		t.Errorf("snapped %+v", got)
	}
	if c.Game[1]>>48 != 0 {
		t.Errorf("padding kept: %x", c.Game)
	}
}

// TestConnectCmdHash: a Connect carries the command declaration's hash
// in its padding, and one without is byte for byte as before.
func TestConnectCmdHash(t *testing.T) {
	long := strings.Repeat("x", MaxNameLen)
	m := Connect{Version: Version, Nonce: 7, Name: long, Token: strings.Repeat("t", MaxTokenLen), Key: strings.Repeat("k", KeySize),
		InterpDelay: MaxDelay, SnapshotRate: 64, Game: 1, Rules: 2, Rejoin: Rejoin{Asked: true, Seat: 3, Team: 1}, Cmd: testCmdDecl.Hash()}
	for _, rejoin := range []bool{true, false} {
		m.Rejoin.Asked = rejoin
		if !rejoin {
			m.Rejoin = Rejoin{}
		}
		b, err := AppendConnect(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		var got Connect
		if err := DecodeConnect(b, &got); err != nil || got != m {
			t.Fatalf("rejoin %v: decoded %+v, %v", rejoin, got, err)
		}
	}
	plain := m
	plain.Cmd = 0
	b1, _ := AppendConnect(nil, &plain)
	m.Cmd = 1
	b2, _ := AppendConnect(nil, &m)
	if len(b1) != ConnectSize || len(b2) != ConnectSize || string(b1) == string(b2) {
		t.Errorf("sizes %d, %d", len(b1), len(b2))
	}
	if testCmdDecl.Hash() == 0 || testCmdDecl.Hash() == game.MustDeclareCmd[struct{ A uint8 }]().Hash() {
		t.Error("hashes do not tell declarations apart")
	}
}

// FuzzCommandsGame: whatever a declared decoder accepts encodes again
// (every part within its ranges) and decodes to the same commands.
func FuzzCommandsGame(f *testing.F) {
	for _, n := range []int{1, 3, MaxCmdsPerPacket} {
		b, err := AppendCommands(nil, &Commands{AckTick: 2, ClientTime: time.Minute, Cmds: gameCmds(9, n), Game: testCmdDecl.CmdLayout})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{byte(MsgCommands)})
	f.Fuzz(func(t *testing.T, b []byte) {
		m := Commands{Game: testCmdDecl.CmdLayout}
		if err := DecodeCommands(b, &m); err != nil {
			return
		}
		for i := range m.Cmds {
			if err := testCmdDecl.Check(&m.Cmds[i].Game); err != nil {
				t.Fatalf("decoded cmd %d out of range: %v", i, err)
			}
		}
		b2, err := AppendCommands(nil, &m)
		if err != nil {
			t.Fatalf("decoded %+v but cannot encode it: %v", m.Cmds, err)
		}
		m2 := Commands{Game: testCmdDecl.CmdLayout}
		if err := DecodeCommands(b2, &m2); err != nil || !reflect.DeepEqual(m.Cmds, m2.Cmds) {
			t.Fatalf("re-encoding %+v decodes to %+v, %v", m.Cmds, m2.Cmds, err)
		}
	})
}

// TestCommandsGameAllocs: coding a declared command's part allocates
// nothing, as lagkit's commands do not.
func TestCommandsGameAllocs(t *testing.T) {
	m := Commands{ClientTime: time.Minute, Cmds: gameCmds(5, 4), Game: testCmdDecl.CmdLayout}
	buf := make([]byte, 0, MaxDatagram)
	var b []byte
	if n := testing.AllocsPerRun(50, func() { b, _ = AppendCommands(buf[:0], &m) }); n != 0 {
		t.Errorf("AppendCommands: %v allocations", n)
	}
	got := Commands{Cmds: make([]game.UserCmd, 0, MaxCmdsPerPacket), Game: testCmdDecl.CmdLayout}
	if n := testing.AllocsPerRun(50, func() { _ = DecodeCommands(b, &got) }); n != 0 {
		t.Errorf("DecodeCommands: %v allocations", n)
	}
	var c game.UserCmd
	testCmdDecl.Set(&c, testCmd{Target: 9, Throt: 0.5})
	if n := testing.AllocsPerRun(50, func() { _ = testCmdDecl.Check(&c.Game); testCmdDecl.Snap(&c.Game) }); n != 0 {
		t.Errorf("Check and Snap: %v allocations", n)
	}
}

// BenchmarkAppendCommandsGame is BenchmarkAppendCommands with a
// declared part of seven fields changing in every command: the cost
// of a game's own command against lagkit's.
func BenchmarkAppendCommandsGame(b *testing.B) {
	m := Commands{AckTick: 9, AckDelay: time.Millisecond, ClientTime: time.Minute, Cmds: gameCmds(37, 4), Game: testCmdDecl.CmdLayout}
	buf := make([]byte, 0, MaxDatagram)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out, _ = AppendCommands(buf[:0], &m)
	}
	b.ReportMetric(float64(len(out)), "bytes/packet")
}

func BenchmarkDecodeCommandsGame(b *testing.B) {
	m := Commands{AckTick: 9, AckDelay: time.Millisecond, ClientTime: time.Minute, Cmds: gameCmds(37, 4), Game: testCmdDecl.CmdLayout}
	data, err := AppendCommands(nil, &m)
	if err != nil {
		b.Fatal(err)
	}
	got := Commands{Game: testCmdDecl.CmdLayout}
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeCommands(data, &got); err != nil {
			b.Fatal(err)
		}
	}
}

package wire

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

const tick64 = 15625 * time.Microsecond // one tick at 64 Hz

// held returns n commands from tick on of a player running forward while
// turning slowly, with the view clock advancing by each command's duration.
func held(tick uint32, n int) []game.UserCmd {
	cmds := make([]game.UserCmd, n)
	for i := range cmds {
		cmds[i] = game.UserCmd{
			Tick: tick + uint32(i), Duration: tick64, Yaw: 1000 + uint16(i)*3, Pitch: -200,
			Forward: 127, Buttons: game.BtnFire, Weapon: 2,
			ViewTime: 90*time.Second + time.Duration(i)*tick64,
		}
	}
	return cmds
}

func TestCommandsRoundTrip(t *testing.T) {
	edge := game.UserCmd{Tick: 1<<32 - 1, Duration: MaxCmdDuration, Yaw: 65535, Pitch: -game.MaxPitch,
		Forward: -127, Side: 127, Up: -1, Buttons: 0xffff, Weapon: 255, ViewTime: MaxClock}
	jitter := held(10, 4)
	jitter[1].ViewTime += 3 * time.Microsecond
	jitter[2].ViewTime -= 2 * time.Millisecond
	jitter[3].ViewTime = 0
	jitter[2].Duration = 0
	tests := []struct {
		name string
		m    Commands
	}{
		{"one zero command", Commands{Cmds: []game.UserCmd{{}}}},
		{"edges", Commands{AckTick: 1<<32 - 1, AckDelay: MaxDelay, ClientTime: MaxClock, Cmds: []game.UserCmd{edge}}},
		{"tick wraps", Commands{Cmds: []game.UserCmd{edge, {Tick: 0, ViewTime: 0}, {Tick: 1, Pitch: game.MaxPitch, ViewTime: MaxClock}}}},
		{"held input", Commands{AckTick: 500, AckDelay: 4 * time.Millisecond, ClientTime: 100 * time.Second, Cmds: held(77, 4)}},
		{"full packet", Commands{Cmds: held(1, MaxCmdsPerPacket)}},
		{"view time jitter", Commands{Cmds: jitter}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := AppendCommands(nil, &tt.m)
			if err != nil {
				t.Fatal(err)
			}
			var got Commands
			if err := DecodeCommands(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.m) {
				t.Errorf("got %+v\nwant %+v", got, tt.m)
			}
		})
	}
}

func TestCommandsTruncateClocks(t *testing.T) {
	m := Commands{AckDelay: 1500 * time.Nanosecond, ClientTime: time.Second + 999, Cmds: held(5, 2)}
	m.Cmds[0].ViewTime += 700
	m.Cmds[1].ViewTime += 1
	b, err := AppendCommands(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	var got Commands
	if err := DecodeCommands(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.AckDelay != time.Microsecond || got.ClientTime != time.Second ||
		got.Cmds[0].ViewTime != held(5, 1)[0].ViewTime || got.Cmds[1].ViewTime != held(5, 2)[1].ViewTime {
		t.Errorf("clocks not truncated to microseconds: %+v", got)
	}
}

// TestCommandsRedundancyIsCheap checks that repeating the previous three
// commands (lagkit's default redundancy, so that a lost packet loses no
// input) costs a few bytes, not three commands' worth.
func TestCommandsRedundancyIsCheap(t *testing.T) {
	one, err := AppendCommands(nil, &Commands{AckTick: 9, ClientTime: time.Minute, Cmds: held(40, 1)})
	if err != nil {
		t.Fatal(err)
	}
	four, err := AppendCommands(nil, &Commands{AckTick: 9, ClientTime: time.Minute, Cmds: held(37, 4)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one command: %d bytes; four: %d bytes", len(one), len(four))
	if len(four)-len(one) > 12 {
		t.Errorf("three repeated commands cost %d bytes", len(four)-len(one))
	}
}

func TestAppendCommandsErrors(t *testing.T) {
	with := func(f func(c *game.UserCmd)) Commands {
		cmds := held(1, 3)
		f(&cmds[2])
		return Commands{Cmds: cmds}
	}
	tests := []struct {
		name string
		m    Commands
		want string
	}{
		{"no commands", Commands{}, "commands: 0 commands, want 1 to 8"},
		{"too many", Commands{Cmds: held(1, 9)}, "9 commands"},
		{"gap", with(func(c *game.UserCmd) { c.Tick++ }), "cmd 2: tick 4 does not follow 2"},
		{"long duration", with(func(c *game.UserCmd) { c.Duration = MaxCmdDuration + time.Microsecond }), "cmd 2: duration out of range"},
		{"negative duration", with(func(c *game.UserCmd) { c.Duration = -time.Microsecond }), "cmd 2: duration out of range"},
		{"sub-microsecond duration", with(func(c *game.UserCmd) { c.Duration += 1 }), "cmd 2: duration not whole microseconds"},
		{"pitch", with(func(c *game.UserCmd) { c.Pitch = -game.MaxPitch - 1 }), "cmd 2: pitch out of range"},
		{"side -128", with(func(c *game.UserCmd) { c.Side = -128 }), "cmd 2: side out of range"},
		{"negative view time", with(func(c *game.UserCmd) { c.ViewTime = -1 }), "cmd 2: view time out of range"},
		{"ack delay", Commands{AckDelay: MaxDelay + time.Microsecond, Cmds: held(1, 1)}, "ack delay"},
		{"client time", Commands{ClientTime: -1, Cmds: held(1, 1)}, "client time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte{1, 2}
			got, err := AppendCommands(dst, &tt.m)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "wire: commands: ") {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if len(got) != 2 {
				t.Errorf("dst grew on error")
			}
		})
	}
}

func TestDecodeCommandsErrors(t *testing.T) {
	valid, err := AppendCommands(nil, &Commands{AckTick: 3, Cmds: held(1, 3)})
	if err != nil {
		t.Fatal(err)
	}
	// A command of duration 262143 µs: the first command's bits start at
	// bit 8+32+8+8+3+32 = 91.
	long := bitWriter{}
	long.writeBits(uint64(MsgCommands), 8)
	long.writeBits(0, 32+8+8+3+32)
	long.writeBits(1, 1)
	long.writeBits(1<<cmdDurationBits-1, cmdDurationBits)
	long.writeBits(0, 8+8)
	pitch := bitWriter{}
	pitch.writeBits(uint64(MsgCommands), 8)
	pitch.writeBits(0, 32+8+8+3+32+1+1)
	pitch.writeBits(1, 1)
	pitch.writeBits(uint64(uint16(game.MaxPitch+1)), 16)
	pitch.writeBits(0, 6+8+8)
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "wire: commands: empty datagram"},
		{"wrong type", []byte{byte(MsgSnapshot), 0}, "wire: commands: message type is snapshot"},
		{"truncated", valid[:len(valid)-1], "wire: commands: truncated"},
		{"trailing", append(valid[:len(valid):len(valid)], 0), "wire: commands: 1 trailing bytes"},
		{"duration", long.buf, "wire: commands: cmd 0: duration out of range"},
		{"pitch", pitch.buf, "wire: commands: cmd 0: pitch out of range"},
		{"oversize", make([]byte, MaxDatagram+1), "exceeds MaxDatagram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Commands
			err := DecodeCommands(tt.b, &m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCommandsAllocs(t *testing.T) {
	m := Commands{AckTick: 9, AckDelay: time.Millisecond, ClientTime: time.Minute, Cmds: held(37, 4)}
	buf := make([]byte, 0, MaxDatagram)
	var b []byte
	if n := testing.AllocsPerRun(50, func() { b, _ = AppendCommands(buf[:0], &m) }); n != 0 {
		t.Errorf("AppendCommands: %v allocations", n)
	}
	got := Commands{Cmds: make([]game.UserCmd, 0, MaxCmdsPerPacket)}
	if n := testing.AllocsPerRun(50, func() { _ = DecodeCommands(b, &got) }); n != 0 {
		t.Errorf("DecodeCommands: %v allocations", n)
	}
}

func BenchmarkAppendCommands(b *testing.B) {
	m := Commands{AckTick: 9, AckDelay: time.Millisecond, ClientTime: time.Minute, Cmds: held(37, 4)}
	buf := make([]byte, 0, MaxDatagram)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out, _ = AppendCommands(buf[:0], &m)
	}
	b.ReportMetric(float64(len(out)), "bytes/packet")
}

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

// pressed returns held(tick, n) with fire presses: in the second command
// a press 4 ms into it, aimed a little left of and below the command's
// aim, seeing the world the view clock predicts; in the last a press at
// the command's start aimed across the yaw wrap with a view time that
// jumped. The first press's shot was shown as a hit, the last's as a
// miss.
func pressed(tick uint32, n int) []game.UserCmd {
	cmds := held(tick, n)
	c := &cmds[1]
	c.HasPress = true
	c.Press = game.Press{Offset: 4 * time.Millisecond, Yaw: c.Yaw - 40, Pitch: c.Pitch - 7,
		ViewTime: c.ViewTime - (c.Duration - 4*time.Millisecond)}
	c.Shown = game.ShownHit
	c = &cmds[n-1]
	c.Yaw = 10
	c.HasPress = true
	c.Press = game.Press{Offset: 0, Yaw: 65500, Pitch: game.MaxPitch, ViewTime: c.ViewTime - 30*time.Millisecond}
	c.Shown = game.ShownMiss
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
		{"presses", Commands{Cmds: pressed(50, 4)}},
		{"verdicts, with and without the fire button", Commands{Cmds: []game.UserCmd{
			{Tick: 7, Buttons: game.BtnFire, Shown: game.ShownHit},
			{Tick: 8, Buttons: game.BtnFire | game.BtnJump, Shown: game.ShownMiss},
			{Tick: 9, Buttons: game.BtnFire},
			{Tick: 10, Buttons: game.BtnJump},
			{Tick: 11, Buttons: game.BtnFire, Shown: game.ShownHit},
		}}},
		{"press at the tick and at the clock's ends", Commands{Cmds: []game.UserCmd{
			{Tick: 3, Duration: tick64, Pitch: -game.MaxPitch, HasPress: true,
				Press: game.Press{Offset: tick64, Yaw: 32768, Pitch: game.MaxPitch, ViewTime: MaxClock}},
			{Tick: 4, Duration: MaxCmdDuration, Yaw: 32767, ViewTime: MaxClock, HasPress: true,
				Press: game.Press{Offset: time.Microsecond, Yaw: 65535, Pitch: -game.MaxPitch}},
		}}},
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

// TestCommandsPressIsCompact checks what sub-tick input costs: a bit per
// command without a press, and a few bytes for a press.
// TestCommandsVerdictIsCompact checks what the client's verdicts cost:
// a bit for a command holding the fire button without one, two with one,
// nothing for a command without the button.
func TestCommandsVerdictIsCompact(t *testing.T) {
	bits := func(cmds []game.UserCmd) int {
		b, err := AppendCommands(nil, &Commands{AckTick: 9, ClientTime: time.Minute, Cmds: cmds})
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	firing := held(40, 8)
	shown := held(40, 8)
	for i := range shown {
		shown[i].Shown = game.ShownHit
	}
	idle := held(40, 8)
	for i := range idle {
		idle[i].Buttons = game.BtnJump // a button field as long to write
	}
	// Eight commands holding the fire button: eight bits more than
	// holding another (one byte), eight more with a verdict in each.
	if d := bits(firing) - bits(idle); d > 1 {
		t.Errorf("eight unjudged commands holding fire cost %d bytes more than idle ones", d)
	}
	if d := bits(shown) - bits(firing); d < 1 || d > 2 {
		t.Errorf("eight verdicts cost %d bytes, want 1 or 2", d)
	}
}

func TestCommandsPressIsCompact(t *testing.T) {
	size := func(cmds []game.UserCmd) int {
		b, err := AppendCommands(nil, &Commands{AckTick: 9, ClientTime: time.Minute, Cmds: cmds})
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	plain, press := size(held(40, 3)), size(pressed(40, 4)[:3])
	t.Logf("three commands: %d bytes; with a press in one: %d bytes", plain, press)
	if press-plain > 5 {
		t.Errorf("a press 4 ms into a command costs %d bytes", press-plain)
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
		{"press without HasPress", with(func(c *game.UserCmd) { c.Press.Yaw = 3 }), "cmd 2: press set without HasPress"},
		{"press after the tick", with(func(c *game.UserCmd) {
			c.HasPress, c.Press.Offset = true, c.Duration+time.Microsecond
		}), "cmd 2: press offset outside the duration"},
		{"press before the command", with(func(c *game.UserCmd) {
			c.HasPress, c.Press.Offset = true, -time.Microsecond
		}), "cmd 2: press offset outside the duration"},
		{"sub-microsecond press", with(func(c *game.UserCmd) {
			c.HasPress, c.Press.Offset = true, time.Millisecond+1
		}), "cmd 2: press offset not whole microseconds"},
		{"press pitch", with(func(c *game.UserCmd) {
			c.HasPress, c.Press.Pitch = true, game.MaxPitch+1
		}), "cmd 2: press pitch out of range"},
		{"press view time", with(func(c *game.UserCmd) {
			c.HasPress, c.Press.ViewTime = true, -time.Microsecond
		}), "cmd 2: press view time out of range"},
		{"verdict without the fire button", with(func(c *game.UserCmd) {
			c.Buttons, c.Shown = 0, game.ShownMiss
		}), "cmd 2: shown set without BtnFire"},
		{"not a verdict", with(func(c *game.UserCmd) { c.Shown = game.ShownHit + 1 }), "cmd 2: shown not a verdict"},
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
	// One zero command (duration 0, view time 0) with a press: an offset
	// beyond the duration, or a pitch beyond MaxPitch, or a view time
	// before the clock's start.
	press := func(offset uint64, pitch int64, view int64) []byte {
		w := bitWriter{}
		w.writeBits(uint64(MsgCommands), 8)
		w.writeBits(0, 32+8+8+3+32+8+8) // no field changed, view time 0
		w.writeBits(1, 1)
		w.writeBits(offset, cmdDurationBits)
		w.writeBucketed(0, pressAimWidths)
		w.writeBucketed(pitch, pressAimWidths)
		w.writeBool(view != 0)
		if view != 0 {
			w.writeUvarint(zigzag(view))
		}
		return w.buf
	}
	if err := DecodeCommands(press(0, 0, 5), &Commands{}); err != nil {
		t.Fatalf("the valid press the error cases start from: %v", err)
	}
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
		{"press offset", press(1, 0, 0), "wire: commands: cmd 0: press offset outside the duration"},
		{"press pitch", press(0, game.MaxPitch+1, 0), "wire: commands: cmd 0: press pitch out of range"},
		{"press view time", press(0, 0, -1), "wire: commands: cmd 0: press view time out of range"},
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

func BenchmarkDecodeCommands(b *testing.B) {
	m := Commands{AckTick: 9, AckDelay: time.Millisecond, ClientTime: time.Minute, Cmds: held(37, 4)}
	data, err := AppendCommands(nil, &m)
	if err != nil {
		b.Fatal(err)
	}
	var got Commands
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeCommands(data, &got); err != nil {
			b.Fatal(err)
		}
	}
}

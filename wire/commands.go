package wire

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// A Commands packet is laid out as
//
//	AckTick 32 | AckDelay uvarint µs | ClientTime uvarint µs |
//	len(Cmds)-1 3 | Cmds[0].Tick 32 | command...
//
// The later commands' ticks follow from the first. Each command is written
// as a delta against the one before it (the first against the zero
// UserCmd): a changed bit per field, followed by the new value when set, so
// a packet that repeats the last few commands (three by default, so that a
// lost packet loses no input) costs little more than its newest command. ViewTime is predicted as the
// previous command's plus this command's Duration (the view clock advances
// with the frames the commands cover) and written as a flag bit when the
// prediction holds, else as a zigzag uvarint correction.
//
// A flag bit then says whether the command carries a fire press (sub-tick
// input). A press is written whole, never as a delta, as
//
//	Offset 18 µs | Yaw - cmd.Yaw bucketed | Pitch - cmd.Pitch bucketed |
//	view flag 1 [ViewTime correction zigzag uvarint µs]
//
// The aim at a press lies close to the aim at the tick, so the angle
// deltas mostly take their short buckets; the press's view time is
// predicted as the command's minus the time from the press to the tick
// (the view clock runs with real time) and corrected like the command's.
// A press costs about four bytes, a command without one a bit.
//
// A command holding BtnFire then carries the client's verdict on the
// shot it fired (game.UserCmd.Shown): a bit saying whether there is one,
// and when set a bit saying hit. A command without the button carries
// none, so only firing costs the bit or two.
//
// A game that declares its own part of a command (game.DeclareCmd;
// Commands.Game) has it follow, field by field in declaration order, as
// a delta against the command before (the first against the zero
// command's): a changed bit, and when set the field's value less its
// minimum in the field's width. A command's part takes at most
// game.CmdLayout.MaxBits (a bit a field unchanged); lagkit's own game
// declares none, and its packets are byte for byte as without.
//
// The client's sightings of hits on its player follow the commands
// (sighting.go).

// moveNames name UserCmd's Forward, Side and Up in errors.
var moveNames = [...]string{"forward", "side", "up"}

const (
	cmdCountBits    = 3  // len(Cmds)-1, 0 to 7
	cmdDurationBits = 18 // up to 262143 µs >= MaxCmdDuration
)

// pressAimWidths are the bucket widths of a press's angle deltas: within
// a tick of a person's aiming most deltas are under 32 units (0.18°),
// a flick under 512, and 16 bits take any delta of two angles.
var pressAimWidths = []uint{6, 10, 16}

// AppendCommands appends the encoding of m to dst. m.Cmds must hold 1 to
// MaxCmdsPerPacket commands with consecutive ticks, oldest first. AckDelay,
// ClientTime and the commands' ViewTime are sent in whole microseconds,
// truncated.
func AppendCommands(dst []byte, m *Commands) ([]byte, error) {
	if !inRange(m.AckDelay, MaxDelay) {
		return dst, encodeError(MsgCommands, "ack delay %v out of range", m.AckDelay)
	}
	if !inRange(m.ClientTime, MaxClock) {
		return dst, encodeError(MsgCommands, "client time %v out of range", m.ClientTime)
	}
	if len(m.Cmds) < 1 || len(m.Cmds) > MaxCmdsPerPacket {
		return dst, encodeError(MsgCommands, "%d commands, want 1 to %d", len(m.Cmds), MaxCmdsPerPacket)
	}
	for i := range m.Cmds {
		if err := checkCmd(m.Cmds, i); err != nil {
			return dst, err
		}
		if m.Game == nil {
			if m.Cmds[i].Game != (game.CmdState{}) {
				return dst, encodeError(MsgCommands, "cmd %d: a game part without a declaration (Commands.Game)", i)
			}
		} else if err := m.Game.Check(&m.Cmds[i].Game); err != nil {
			return dst, encodeError(MsgCommands, "cmd %d: %v", i, err)
		}
	}
	if err := checkSightings(m); err != nil {
		return dst, err
	}
	w := bitWriter{buf: dst}
	writeCommands(&w, m)
	return w.buf, nil
}

// writeCommands writes m, checked, to w.
func writeCommands(w *bitWriter, m *Commands) {
	w.writeBits(uint64(MsgCommands), 8)
	w.writeBits(uint64(m.AckTick), 32)
	w.writeUvarint(micros(m.AckDelay))
	w.writeUvarint(micros(m.ClientTime))
	w.writeBits(uint64(len(m.Cmds)-1), cmdCountBits)
	w.writeBits(uint64(m.Cmds[0].Tick), 32)
	var prev game.UserCmd
	for i := range m.Cmds {
		writeCmd(w, &m.Cmds[i], &prev, i == 0)
		if m.Game != nil {
			writeCmdGame(w, m.Game, &m.Cmds[i].Game, &prev.Game)
		}
		prev = m.Cmds[i]
	}
	writeSightings(w, m)
}

// checkCmd returns an error if cmds[i] cannot be encoded.
func checkCmd(cmds []game.UserCmd, i int) error {
	c := &cmds[i]
	fail := func(field, why string) error {
		return encodeError(MsgCommands, "cmd %d: %s %s", i, field, why)
	}
	if i > 0 && c.Tick != cmds[i-1].Tick+1 {
		return encodeError(MsgCommands, "cmd %d: tick %d does not follow %d", i, c.Tick, cmds[i-1].Tick)
	}
	switch {
	case !inRange(c.Duration, MaxCmdDuration):
		return fail("duration", "out of range")
	case c.Duration%time.Microsecond != 0:
		return fail("duration", "not whole microseconds")
	}
	if c.Pitch < -game.MaxPitch || c.Pitch > game.MaxPitch {
		return fail("pitch", "out of range")
	}
	for j, v := range [...]int8{c.Forward, c.Side, c.Up} {
		if v == -128 {
			return fail(moveNames[j], "out of range")
		}
	}
	if !inRange(c.ViewTime, MaxClock) {
		return fail("view time", "out of range")
	}
	p := &c.Press
	switch {
	case !c.HasPress && *p != (game.Press{}):
		return fail("press", "set without HasPress")
	case !c.HasPress:
	case p.Offset < 0 || p.Offset > c.Duration:
		return fail("press offset", "outside the duration")
	case p.Offset%time.Microsecond != 0:
		return fail("press offset", "not whole microseconds")
	case p.Pitch < -game.MaxPitch || p.Pitch > game.MaxPitch:
		return fail("press pitch", "out of range")
	case !inRange(p.ViewTime, MaxClock):
		return fail("press view time", "out of range")
	}
	switch {
	case c.Shown > game.ShownHit:
		return fail("shown", "not a verdict")
	case c.Shown != game.ShownUnknown && !c.Buttons.Has(game.BtnFire):
		return fail("shown", "set without BtnFire")
	}
	return nil
}

// writeShown writes the verdict of a command holding BtnFire.
func writeShown(w *bitWriter, c *game.UserCmd) {
	if !c.Buttons.Has(game.BtnFire) {
		return
	}
	w.writeBool(c.Shown != game.ShownUnknown)
	if c.Shown != game.ShownUnknown {
		w.writeBool(c.Shown == game.ShownHit)
	}
}

// readShown reads the verdict of command c, whose other fields are read.
func readShown(r *bitReader, c *game.UserCmd) {
	c.Shown = game.ShownUnknown
	if !c.Buttons.Has(game.BtnFire) || !r.readBool() {
		return
	}
	c.Shown = game.ShownMiss
	if r.readBool() {
		c.Shown = game.ShownHit
	}
}

// pressView is the view time predicted for a press at offset in command
// c whose view time is view µs: the view clock ran on from the press to
// the tick.
func pressView(view int64, c *game.UserCmd, offset int64) int64 {
	return view - (int64(c.Duration/time.Microsecond) - offset)
}

func writePress(w *bitWriter, c *game.UserCmd) {
	w.writeBool(c.HasPress)
	if !c.HasPress {
		return
	}
	p := &c.Press
	offset := int64(p.Offset / time.Microsecond)
	w.writeBits(uint64(offset), cmdDurationBits)
	w.writeBucketed(int64(int16(p.Yaw-c.Yaw)), pressAimWidths)
	w.writeBucketed(int64(p.Pitch)-int64(c.Pitch), pressAimWidths)
	writeCorrection(w, int64(micros(p.ViewTime))-pressView(int64(micros(c.ViewTime)), c, offset))
}

// writeCorrection writes how far a view time misses its prediction, in
// µs: a flag bit, and when set the miss as a zigzag uvarint.
func writeCorrection(w *bitWriter, miss int64) {
	w.writeBool(miss != 0)
	if miss != 0 {
		w.writeUvarint(zigzag(miss))
	}
}

// readViewTime reads a view time of command i predicted as predict µs
// and corrected as writeCorrection wrote it, and checks that it lies on
// the clock; field names it in errors.
func readViewTime(r *bitReader, predict int64, i int, field string) (time.Duration, bool) {
	view := predict
	if r.readBool() {
		// Bound the correction before adding so the sum cannot overflow.
		z := r.readUvarint()
		if z > 2*uint64(MaxClock/time.Microsecond) {
			r.failf("cmd %d: %s out of range", i, field)
			return 0, false
		}
		view += unzigzag(z)
	}
	if view < 0 || view > int64(MaxClock/time.Microsecond) {
		r.failf("cmd %d: %s out of range", i, field)
		return 0, false
	}
	return time.Duration(view) * time.Microsecond, true
}

// readPress reads the press of command i, c, whose other fields are read.
func readPress(r *bitReader, c *game.UserCmd, i int) {
	c.HasPress, c.Press = r.readBool(), game.Press{}
	if !c.HasPress {
		return
	}
	p := &c.Press
	offset := int64(r.readBits(cmdDurationBits))
	if offset > int64(c.Duration/time.Microsecond) {
		r.failf("cmd %d: press offset outside the duration", i)
		return
	}
	p.Offset = time.Duration(offset) * time.Microsecond
	p.Yaw = c.Yaw + uint16(r.readBucketed(pressAimWidths))
	pitch := int64(c.Pitch) + r.readBucketed(pressAimWidths)
	if pitch < -game.MaxPitch || pitch > game.MaxPitch {
		r.failf("cmd %d: press pitch out of range", i)
		return
	}
	p.Pitch = int16(pitch)
	p.ViewTime, _ = readViewTime(r, pressView(int64(c.ViewTime/time.Microsecond), c, offset), i, "press view time")
}

func writeCmd(w *bitWriter, c, prev *game.UserCmd, first bool) {
	// The changed bits and values gather in one word, written when the
	// next would not fit: the same bits, first written lowest, in a few
	// writes.
	var acc uint64
	var accN uint
	changed := func(ch bool, v uint64, n uint) {
		code, codeN := uint64(0), uint(1)
		if ch {
			code, codeN = 1|(v&(1<<n-1))<<1, n+1 // the changed bit and v
		}
		if accN+codeN > 64 {
			w.writeBits(acc, accN)
			acc, accN = 0, 0
		}
		acc |= code << (accN & 63) // accN is under 64 here
		accN += codeN
	}
	changed(c.Duration != prev.Duration, uint64(c.Duration/time.Microsecond), cmdDurationBits)
	changed(c.Yaw != prev.Yaw, uint64(c.Yaw), 16)
	changed(c.Pitch != prev.Pitch, uint64(uint16(c.Pitch)), 16)
	changed(c.Forward != prev.Forward, uint64(uint8(c.Forward)), 8)
	changed(c.Side != prev.Side, uint64(uint8(c.Side)), 8)
	changed(c.Up != prev.Up, uint64(uint8(c.Up)), 8)
	changed(c.Buttons != prev.Buttons, uint64(c.Buttons), 16)
	changed(c.Weapon != prev.Weapon, uint64(c.Weapon), 8)
	w.writeBits(acc, accN)
	view := micros(c.ViewTime)
	if first {
		w.writeUvarint(view)
	} else {
		writeCorrection(w, int64(view)-int64(micros(prev.ViewTime)+micros(c.Duration)))
	}
	writePress(w, c)
	writeShown(w, c)
}

// DecodeCommands decodes datagram b into m, reusing the storage of m.Cmds
// and m.Sightings.
func DecodeCommands(b []byte, m *Commands) error {
	r := newReader(b, MsgCommands)
	m.AckTick = uint32(r.readBits(32))
	m.AckDelay = r.readMicros(MaxDelay, "ack delay")
	m.ClientTime = r.readMicros(MaxClock, "client time")
	n := int(r.readBits(cmdCountBits)) + 1
	tick := uint32(r.readBits(32))
	m.Cmds = m.Cmds[:0]
	var prev game.UserCmd
	for i := 0; i < n && r.err == nil; i++ {
		c := prev
		c.Tick = tick + uint32(i)
		readCmd(&r, &c, &prev, i)
		if m.Game != nil && r.err == nil {
			readCmdGame(&r, m.Game, &c.Game, &prev.Game, i)
		}
		m.Cmds = append(m.Cmds, c)
		prev = c
	}
	readSightings(&r, m)
	return r.finish()
}

// writeCmdGame writes a command's game part g as a delta against the
// previous command's, prev: per field a changed bit, and the value less
// its minimum when set.
func writeCmdGame(w *bitWriter, l *game.CmdLayout, g, prev *game.CmdState) {
	fields := l.Fields()
	for i := range fields {
		f := &fields[i]
		u := l.Units(g, i)
		if u == l.Units(prev, i) {
			w.writeBits(0, 1)
			continue
		}
		w.writeBits(1, 1)
		w.writeBits(uint64(u)-uint64(f.Min), f.Bits)
	}
}

// readCmdGame reads command i's game part into g, the previous
// command's being prev, refusing a value outside its field's range. g
// is left in wire form (game.CmdLayout.Snap): every field set, the
// bytes between them zero.
func readCmdGame(r *bitReader, l *game.CmdLayout, g, prev *game.CmdState, i int) {
	var out game.CmdState
	fields := l.Fields()
	for j := range fields {
		f := &fields[j]
		u := l.Units(prev, j)
		if r.readBits(1) == 1 {
			v := r.readBits(f.Bits)
			if v > uint64(f.Max)-uint64(f.Min) {
				r.failf("cmd %d: game field %s out of range", i, f.Name)
				return
			}
			u = int64(uint64(f.Min) + v)
		}
		l.SetUnits(&out, j, u)
	}
	*g = out
}

// readCmd reads command i into c, which holds the previous command.
func readCmd(r *bitReader, c, prev *game.UserCmd, i int) {
	if r.readBool() {
		us := r.readBits(cmdDurationBits)
		if us > uint64(MaxCmdDuration/time.Microsecond) {
			r.failf("cmd %d: duration out of range", i)
		}
		c.Duration = time.Duration(us) * time.Microsecond
	}
	if r.readBool() {
		c.Yaw = uint16(r.readBits(16))
	}
	if r.readBool() {
		c.Pitch = int16(r.readBits(16))
		if c.Pitch < -game.MaxPitch || c.Pitch > game.MaxPitch {
			r.failf("cmd %d: pitch out of range", i)
		}
	}
	for j, v := range [...]*int8{&c.Forward, &c.Side, &c.Up} {
		if r.readBool() {
			*v = int8(r.readBits(8))
			if *v == -128 {
				r.failf("cmd %d: %s out of range", i, moveNames[j])
			}
		}
	}
	if r.readBool() {
		c.Buttons = game.Buttons(r.readBits(16))
	}
	if r.readBool() {
		c.Weapon = uint8(r.readBits(8))
	}
	if i == 0 {
		c.ViewTime = r.readMicros(MaxClock, "cmd 0: view time")
	} else {
		view, ok := readViewTime(r, int64((prev.ViewTime+c.Duration)/time.Microsecond), i, "view time")
		if !ok {
			return
		}
		c.ViewTime = view
	}
	readPress(r, c, i)
	readShown(r, c)
}

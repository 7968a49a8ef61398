package wire

// EventReportAck answers a player's SBC report (Report): the server
// names the report it received and says whether it kept it. A report is
// identified by what it says (the newest hit its client had heard of),
// so a client sends each report once and a server keeps each once, and a
// copy the network duplicated is neither kept nor answered again.
// Receivers that do not know the kind skip it, as every event kind.
const EventReportAck uint16 = 11

// ReportAck is the server's answer to one Report.
type ReportAck struct {
	Report Report
	// Kept reports whether the server kept the report; false when it was
	// over the player's report rate.
	Kept bool
}

const reportAckName = "report ack event"

// The layout of a ReportAck is the Report's without its type byte,
// followed by Kept:
//
//	Seen 1 | SBC 1 | Shooter 8 | ShotTick 32 | Kept 1

// AppendReportAck appends the encoding of e to dst, for an Event of kind
// EventReportAck. On error, dst is unchanged.
func AppendReportAck(dst []byte, e *ReportAck) ([]byte, error) {
	m := &e.Report
	if !m.Seen && (m.Shooter != 0 || m.ShotTick != 0 || m.SBC) {
		return dst, eventError(reportAckName, "no hit seen, but shooter %d, shot tick %d, sbc %v", m.Shooter, m.ShotTick, m.SBC)
	}
	w := bitWriter{buf: dst}
	w.writeBool(m.Seen)
	w.writeBool(m.SBC)
	w.writeBits(uint64(m.Shooter), 8)
	w.writeBits(uint64(m.ShotTick), 32)
	w.writeBool(e.Kept)
	return w.buf, nil
}

// DecodeReportAck decodes event data b into e. On error e holds a partial
// result.
func DecodeReportAck(b []byte, e *ReportAck) error {
	r := newEventReader(b, reportAckName)
	m := &e.Report
	m.Seen = r.readBool()
	m.SBC = r.readBool()
	m.Shooter = uint8(r.readBits(8))
	m.ShotTick = uint32(r.readBits(32))
	e.Kept = r.readBool()
	if r.err == nil && !m.Seen && (m.Shooter != 0 || m.ShotTick != 0 || m.SBC) {
		r.failf("no hit seen, but a shooter, shot tick or sbc set")
	}
	return r.finish()
}

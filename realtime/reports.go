package realtime

import (
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
)

// SetSink makes the match put its players' "shot behind cover" reports
// into sink as record.SBCReport, each with the newest hit on the
// reporter (nil: none kept). Players are named by slot.
func (m *Match) SetSink(sink record.Sink) error {
	return m.do(func() { m.sink = sink })
}

// Place moves player id to pos facing yaw (radians), alive and
// unprotected, as server.Server.Place does: for scripted tests and
// study setups that need players where they can see each other.
func (m *Match) Place(id int, pos geom.Vec3, yaw float64) error {
	return m.do(func() { m.srv.Place(id, pos, yaw) })
}

// putReports hands the core's SBC reports to the sink.
func (m *Match) putReports() {
	for _, r := range m.srv.SBCReports() {
		if m.sink != nil {
			m.sink.Put(sbcRecord(&r))
		}
	}
}

// sbcRecord is r as a study keeps it.
func sbcRecord(r *server.SBCReport) record.SBCReport {
	out := record.SBCReport{At: r.Time, Reporter: r.Reporter, Shooter: r.Shooter}
	if r.Hit {
		out.ShotTick, out.RewindMS, out.RollbackM = r.ShotTick, r.RewindMS, r.RollbackM
		out.ObjectiveSBC = r.SBCKnown && r.ObjectiveSBC
		if r.Appealed {
			out.Appeal = r.Outcome.String()
		}
	}
	return out
}

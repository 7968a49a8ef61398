package live

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

const targetSchedule = `name = "target"
[[seat]]
code = "ann"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "8s"
latency = [{ seats = [0], target_rtt_ms = 120 }]
`

// TestLiveTargetRTTRecorded plays a live round whose participant is held
// at a 120 ms round trip over loopback UDP, where her own network adds
// next to nothing: the database says, for her seat in that round, the
// target, the round trip the links injected to reach it (most of the
// 120 ms) and the round trip the server measured (near the target), and
// the report's manipulation check puts the three side by side; the bot's
// seat, held at nothing, says so.
func TestLiveTargetRTTRecorded(t *testing.T) {
	walltest.Lock(t)
	s, err := study.Parse("target.toml", []byte(targetSchedule))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	d, err := New(Config{Schedule: s, Host: r.host, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	ann := &participant{code: "ann", seed: 7}
	done := make(chan struct{})
	go func() { defer close(done); ann.run(ctx, r, d) }()
	if err := d.Command(study.Command{Action: study.ActionStart}); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(ctx, w, study.Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	bg := context.Background()
	id := w.StudyID()
	parts, _ := store.All[record.Participant](bg, db, id)
	if len(parts) != 2 {
		t.Fatalf("participants %+v, want two seats of one round", parts)
	}
	for _, p := range parts {
		if want := map[int]float64{0: 120, 1: 0}[p.Seat]; p.TargetRTTMS != want || p.LatencyMS != 0 {
			t.Errorf("participant %+v: target %v, want %v and no fixed latency", p, p.TargetRTTMS, want)
		}
	}
	nets, _ := store.All[record.Network](bg, db, id)
	byKey := map[[2]int]record.Network{}
	for _, n := range nets {
		byKey[[2]int{n.Round, n.Seat}] = n
	}
	// Measured: the median of the round's samples is past the first
	// moment, when the link had not yet measured her base and injected
	// nothing. Injected: the mean over the round's datagrams, that
	// first moment among them, so a little under the target.
	n, ok := byKey[[2]int{0, 0}]
	if inj := n.DelayUpMS + n.DelayDownMS; !ok || n.TargetRTTMS != 120 || n.LatencyMS != 0 || n.RTTSamples < 50 ||
		n.RTTP50MS < 105 || n.RTTP50MS > 150 || inj < 80 || inj > 125 {
		t.Errorf("seat 0 network %+v (injected %.1f ms): want a 120 ms target, most of it injected, about 120 ms measured", n, n.DelayUpMS+n.DelayDownMS)
	}
	t.Logf("seat 0: target %v ms, injected %.1f ms, measured p50 %.1f ms mean %.1f ms (%d samples)", n.TargetRTTMS, n.DelayUpMS+n.DelayDownMS, n.RTTP50MS, n.RTTMeanMS, n.RTTSamples)
	if b, ok := byKey[[2]int{0, 1}]; !ok || b.TargetRTTMS != 0 || b.RTTMeanMS > 20 {
		t.Errorf("bot seat network %+v: want no target, a few ms measured", b)
	}

	all, err := db.Studies(bg)
	if err != nil || len(all) != 1 {
		t.Fatalf("studies %+v, %v", all, err)
	}
	rep, err := study.ReadReport(bg, db, all[0])
	if err != nil {
		t.Fatal(err)
	}
	var row *study.NetworkRow
	for i := range rep.Network {
		if rep.Network[i].Round == 0 && rep.Network[i].Seat == 0 {
			row = &rep.Network[i]
		}
	}
	if row == nil || row.TargetRTTMS != 120 || row.RTTP50MS != n.RTTP50MS || row.DelayUpMS+row.DelayDownMS != n.DelayUpMS+n.DelayDownMS {
		t.Errorf("the report's manipulation check for seat 0: %+v, want the stored %+v", row, n)
	}
}

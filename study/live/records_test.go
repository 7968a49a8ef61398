package live

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

const recordsSchedule = `name = "records"
[[seat]]
code = "ann"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[latency]]
seats = [0]
latency_ms = 30
[[round]]
map = "arena"
mode = "ffa"
duration = "6s"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
`

// waitFor polls cond every 20 ms until it holds or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLiveRecordsComplete plays a live study whose participant leaves in
// the middle of the first round and comes back, which the admin pauses
// for a second and extends by one, and which is stopped in its second
// round: the database holds the mid-round disconnect with its reason
// and transport, every seat's disconnect at the round's end and at the
// stop, the round's duration as it ran (planned 6 s, ran 7 s, paused
// 1 s), the event log (start, pause, resume, extend, stop), and each
// seat's link as injected and as measured; a resume finds the stop and
// reports no crash.
func TestLiveRecordsComplete(t *testing.T) {
	walltest.Lock(t)
	s, err := study.Parse("records.toml", []byte(recordsSchedule))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	d, err := New(Config{Schedule: s, Host: r.host, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "study.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	stop, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)

	// ann plays until told to leave, then joins again.
	leave, back := make(chan struct{}), make(chan struct{})
	go func() {
		left, first := false, true
		for ctx.Err() == nil {
			a, err := d.Join("ann")
			if err != nil || a.Token == nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			sctx, scancel := context.WithCancel(ctx)
			if !left {
				go func() {
					select {
					case <-leave:
					case <-sctx.Done():
					}
					scancel()
				}()
				left = true
			}
			_, _ = r.kit.play(sctx, r.addr, 3, a.Token)
			scancel()
			if first {
				first = false
				time.Sleep(time.Second) // away, then back with the same code
				close(back)
			}
		}
	}()

	errc := make(chan error, 1)
	go func() { errc <- d.Run(stop, w, study.Options{Seed: 2}) }()
	if err := d.Command(study.Command{Action: study.ActionStart}); err != nil {
		t.Fatal(err)
	}
	playing := func(round int) func() bool {
		return func() bool {
			st := d.State()
			return st.Phase == study.PhasePlaying && st.Round == round && st.Seats[0].Connected
		}
	}
	waitFor(ctx, t, "ann in round 1", playing(0))
	close(leave)
	<-back
	waitFor(ctx, t, "ann back", playing(0))
	for _, c := range []study.Command{{Action: study.ActionPause}, {Action: study.ActionResume}, {Action: study.ActionExtend, Extend: study.Duration(time.Second)}} {
		if err := d.Command(c); err != nil {
			t.Fatal(err)
		}
		if c.Action == study.ActionPause {
			time.Sleep(time.Second)
		}
	}
	waitFor(ctx, t, "ann in round 2", playing(1))
	time.Sleep(500 * time.Millisecond)
	stopRun(errors.New("interrupt"))
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want the stop", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	bg := context.Background()
	id := w.StudyID()
	if all, _ := db.Studies(bg); len(all) != 1 || all[0].TickRate != DefaultTickRate || all[0].GoVersion == "" {
		t.Errorf("studies %+v, want one at %d Hz with its build", all, DefaultTickRate)
	}
	rounds, _ := store.All[record.Round](bg, db, id)
	if len(rounds) != 2 {
		t.Fatalf("rounds %+v", rounds)
	}
	r0 := rounds[0]
	if r0.Planned != 6*time.Second || r0.Duration < 6900*time.Millisecond || r0.Duration > 7500*time.Millisecond ||
		r0.Paused < 900*time.Millisecond || r0.Paused > 1500*time.Millisecond {
		t.Errorf("round 1 stored planned %v, ran %v, paused %v; want 6s, about 7s and 1s", r0.Planned, r0.Duration, r0.Paused)
	}
	if !rounds[1].Ended.IsZero() {
		t.Errorf("the stopped round stored as ended: %+v", rounds[1])
	}

	sessions, _ := store.All[record.Session](bg, db, id)
	type gone struct {
		round, seat       int
		reason, transport string
	}
	var got []gone
	for _, s := range sessions {
		if s.Kind == record.Disconnect {
			got = append(got, gone{s.Round, s.Seat, s.Reason, s.Transport})
		}
	}
	want := []gone{
		{0, 0, "client: client left", "udp"},
		{0, 0, "round over", "udp"}, {0, 1, "round over", "pipe"},
		{1, 0, "study stopped", "udp"}, {1, 1, "study stopped", "pipe"},
	}
	slices.SortStableFunc(got, func(a, b gone) int {
		if a.round != b.round {
			return a.round - b.round
		}
		if a.reason != b.reason {
			return map[bool]int{true: 1, false: -1}[a.reason == "round over" || a.reason == "study stopped"]
		}
		return a.seat - b.seat
	})
	// When her goodbye, sent into her emulated uplink as she leaves, does
	// not reach the server, the server ends her old session at her new
	// connect, and says so.
	if len(got) > 0 && got[0].reason == "replaced by a new connect of the same player" {
		got[0].reason = want[0].reason
	}
	if !slices.Equal(got, want) {
		t.Errorf("disconnects stored %+v, want %+v", got, want)
	}

	events, _ := store.All[record.Event](bg, db, id)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		if e.At.IsZero() {
			t.Errorf("event %+v without its time", e)
		}
	}
	if want := []string{"start", "pause", "resume", "extend", "stop"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	} else if events[3].Detail != "by 1s" || events[3].Round != 0 || events[4].Round != 1 || events[4].Detail != "stopped: interrupt" {
		t.Errorf("events %+v", events)
	}

	// The manipulation check: ann's 30 ms each way measured as a 60 ms
	// round trip by the server and applied by her links; the bot's
	// loopback pipe near 0.
	nets, _ := store.All[record.Network](bg, db, id)
	byKey := map[[2]int]record.Network{}
	for _, n := range nets {
		byKey[[2]int{n.Round, n.Seat}] = n
	}
	if n := byKey[[2]int{0, 0}]; n.LatencyMS != 30 || n.RTTSamples < 50 || n.RTTMeanMS < 58 || n.RTTMeanMS > 90 || n.RTTP95MS < n.RTTP50MS ||
		n.DelayUpMS < 29 || n.DelayUpMS > 40 || n.DelayDownMS < 29 || n.DelayDownMS > 40 || n.LossUp != 0 {
		t.Errorf("round 1 seat 0 network %+v; want 30 ms injected, about 60 ms measured", n)
	}
	if n := byKey[[2]int{0, 1}]; n.LatencyMS != 0 || n.RTTSamples < 50 || n.RTTMeanMS > 20 {
		t.Errorf("round 1 seat 1 network %+v; want nothing injected, a few ms measured", n)
	}
	if n, ok := byKey[[2]int{1, 0}]; !ok || n.RTTSamples == 0 {
		t.Errorf("the stopped round's network %+v: want what it measured before the stop", n)
	}

	stored, err := ResumeFrom(bg, db, s)
	if err != nil || stored.Resume.Round != 1 || stored.Resume.Crashed {
		t.Fatalf("resume: %+v, %v; want round 2 without a crash", stored.Resume, err)
	}
}

// TestResumeFindsCrash: a study whose event log ends without a stop (or
// after its last resume) crashed; one stopped did not.
func TestResumeFindsCrash(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cases := []struct {
		events []string
		want   bool
	}{
		{nil, true},
		{[]string{"start"}, true},
		{[]string{"start", "stop"}, false},
		{[]string{"start", "stop", "resumed"}, true},
		{[]string{"start", "stop", "resumed", "pause", "stop"}, false},
	}
	for _, c := range cases {
		w := db.NewWriter(store.WriterOptions{})
		w.Put(record.Study{Name: "c"})
		for _, k := range c.events {
			w.Put(record.Event{Kind: k, At: time.Now()})
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, err := crashed(ctx, db, w.StudyID()); err != nil || got != c.want {
			t.Errorf("events %v: crashed %v, %v; want %v", c.events, got, err, c.want)
		}
	}
}

package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// crashSchedule is a study of one person (code cat) and three bots: a
// short round, then one whose warm-up outlasts the spawn protection so
// that its measured part has kills from the start, and long enough
// that after the kill, about 4 s in, a restarted process on a loaded
// machine has time to take the participant back before it ends.
const crashSchedule = `name = "crash"

[[seat]]
code = "cat"

[[seat]]
bot = true
count = 3

[[technique]]
name = "tlc"

[[round]]
name = "short"
map = "arena"
mode = "ffa"
duration = "1s"

[[round]]
name = "long"
map = "arena"
mode = "ffa"
duration = "14s"
warmup = "5500ms"
`

// crashChild names the environment variable that makes the test binary
// the crash test's child: it serves crashSchedule on the SQLite file
// named there, resuming what the file holds, with a participant playing
// cat's seat, and prints what it does on stdout.
const crashChild = "LAGKIT_LIVE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChild); path != "" {
		if err := crashChildMain(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

func crashChildMain(path string) error {
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	s, err := study.Parse("crash.toml", []byte(crashSchedule))
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	r, stop, err := startRig()
	if err != nil {
		return err
	}
	defer stop()
	cfg := Config{Schedule: s, Host: r.host, AutoStart: true, Log: quiet}
	opts := store.WriterOptions{Every: 20 * time.Millisecond, OnCommit: func(c store.Commit) { say("committed %d", c.Total) }}
	var w *store.Writer
	stored, err := ResumeFrom(ctx, db, s)
	switch {
	case err == nil:
		say("resumed %d %d", stored.Resume.Round, stored.Resume.Elapsed.Milliseconds())
		cfg.Resume, cfg.Codes = stored.Resume, stored.Codes
		for seat, t := range stored.Resume.Tallies {
			say("seeded %d %d %d", seat, t.Kills, t.Deaths)
		}
		if w, err = db.ResumeWriter(ctx, stored.ID, opts); err != nil {
			return err
		}
	case errors.Is(err, ErrNothingToResume):
		w = db.NewWriter(opts)
	default:
		return err
	}
	d, err := New(cfg)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cat := &participant{code: "cat", seed: 3}
	go cat.run(pctx, r, d)
	go func() {
		said, in := map[int]bool{}, map[int]bool{}
		base, kills := map[int]int{}, map[int]int{} // each round's kills at its start, and the last said
		for pctx.Err() == nil {
			st := d.State()
			k := 0
			for _, ss := range st.Seats {
				k += ss.Kills
			}
			if st.Phase == study.PhasePlaying && !said[st.Round] {
				said[st.Round] = true
				base[st.Round], kills[st.Round] = k, k
				say("playing %d", st.Round)
			}
			if st.Phase == study.PhasePlaying && k > kills[st.Round] {
				kills[st.Round] = k
				say("kills %d %d", st.Round, k-base[st.Round])
			}
			if st.Phase == study.PhasePlaying && len(st.Seats) > 0 && st.Seats[0].Connected && !in[st.Round] {
				in[st.Round] = true
				say("cat in %d", st.Round)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if err := d.Run(ctx, w, study.Options{Seed: 9}); err != nil {
		return err
	}
	cancel()
	if err := w.Close(); err != nil {
		return err
	}
	for _, ss := range d.State().Seats {
		say("final %d %d %d", ss.Seat, ss.Kills, ss.Deaths)
	}
	say("done")
	return nil
}

// child is a running crash child and its stdout's lines.
type child struct {
	cmd   *exec.Cmd
	lines chan string
}

func startChild(t *testing.T, path string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), crashChild+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return c
}

// until reads lines until one starts with prefix, noting the newest
// committed total; it fails the test after timeout.
func (c *child) until(t *testing.T, prefix string, committed *int64, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the child exited before printing %q", prefix)
			}
			if n, found := strings.CutPrefix(l, "committed "); found {
				*committed, _ = strconv.ParseInt(n, 10, 64)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("no %q from the child within %v", prefix, timeout)
		}
	}
}

// drain reads the lines already printed, noting the newest committed
// total.
func (c *child) drain(committed *int64) {
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return
			}
			if n, found := strings.CutPrefix(l, "committed "); found {
				*committed, _ = strconv.ParseInt(n, 10, 64)
			}
		default:
			return
		}
	}
}

// fields parses a line of numbers after its word.
func fields(t *testing.T, l string) []int64 {
	t.Helper()
	var out []int64
	for _, f := range strings.Fields(l)[1:] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("line %q", l)
		}
		out = append(out, n)
	}
	return out
}

// stored reads the crash study back.
type storedStudy struct {
	studies  int
	rounds   []record.Round
	parts    []record.Participant
	sessions []record.Session
	shots    []record.Shot
	kills    []record.Kill
	paths    []record.Path
	objs     []record.Objective
	orders   []record.SeatOrder
	events   []record.Event
	techs    []record.Technique
	nets     []record.Network
}

func readStudy(t *testing.T, path string) storedStudy {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all, err := db.Studies(ctx)
	if err != nil || len(all) == 0 {
		t.Fatalf("studies %v, %v", all, err)
	}
	id := all[0].ID
	var s storedStudy
	s.studies = len(all)
	s.rounds, _ = store.All[record.Round](ctx, db, id)
	s.parts, _ = store.All[record.Participant](ctx, db, id)
	s.sessions, _ = store.All[record.Session](ctx, db, id)
	s.shots, _ = store.All[record.Shot](ctx, db, id)
	s.kills, _ = store.All[record.Kill](ctx, db, id)
	s.paths, _ = store.All[record.Path](ctx, db, id)
	s.objs, _ = store.All[record.Objective](ctx, db, id)
	s.orders, _ = store.All[record.SeatOrder](ctx, db, id)
	s.events, _ = store.All[record.Event](ctx, db, id)
	s.techs, _ = store.All[record.Technique](ctx, db, id)
	s.nets, _ = store.All[record.Network](ctx, db, id)
	return s
}

// rows counts the records the stored study holds as its writer counted
// them: each row once, and a round that ended twice (its start and its
// end are two records).
func (s storedStudy) records() int64 {
	n := int64(s.studies + len(s.rounds) + len(s.parts) + len(s.sessions) + len(s.shots) + len(s.kills) + len(s.paths) + len(s.objs) + len(s.orders) + len(s.events) +
		len(s.techs) + len(s.nets))
	for _, r := range s.rounds {
		if !r.Ended.IsZero() {
			n++
		}
	}
	return n
}

// TestKilledStudyResumes kills a live study's process with SIGKILL in
// the middle of its second round, then starts it again on the same
// database: every record committed before the kill is there, the study
// carries on in the same study row at that round (the first is not
// played again) for the rest of its time, the participant rejoins its
// seat, and each seat's statistics carry on from the stored kills, so
// that the round ends with each seat's kills and deaths equal to what
// the database holds, none lost or counted twice.
func TestKilledStudyResumes(t *testing.T) {
	walltest.Lock(t)
	path := filepath.Join(t.TempDir(), "crash.db")
	first := startChild(t, path)
	var committed int64
	first.until(t, "playing 1", &committed, 30*time.Second)
	// Killed once the second round has a kill to restore, and two
	// commits later, so that its record is in the file.
	first.until(t, "kills 1 ", &committed, 2*time.Minute)
	for range 2 {
		first.drain(&committed)
		seen := committed
		for committed == seen {
			first.until(t, "committed", &committed, 5*time.Second)
		}
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	before := readStudy(t, path)
	if got := before.records(); got < committed {
		t.Fatalf("after the kill the database holds %d records; the child saw %d committed", got, committed)
	}
	if len(before.rounds) != 2 || !before.rounds[1].Ended.IsZero() {
		t.Fatalf("rounds before the restart: %+v", before.rounds)
	}
	killsBefore := 0
	var elapsed time.Duration
	for _, k := range before.kills {
		if k.Round == 1 {
			killsBefore++
		}
	}
	for _, p := range before.paths {
		if p.Round == 1 {
			elapsed = max(elapsed, p.At)
		}
	}
	for _, sh := range before.shots {
		if sh.Round == 1 {
			elapsed = max(elapsed, sh.At)
		}
	}
	for _, k := range before.kills {
		if k.Round == 1 {
			elapsed = max(elapsed, k.At)
		}
	}
	for _, o := range before.objs {
		if o.Round == 1 {
			elapsed = max(elapsed, o.At)
		}
	}
	if killsBefore == 0 {
		t.Fatal("no kills in the second round before the kill: the restart would have nothing to restore")
	}

	second := startChild(t, path)
	var c2 int64
	res := fields(t, second.until(t, "resumed", &c2, 30*time.Second))
	if res[0] != 1 || res[1] != elapsed.Milliseconds() {
		t.Fatalf("resumed at round %d after %d ms; want round 1 after %v", res[0], res[1], elapsed)
	}
	final := map[int64][2]int64{}
	catBack := false
	for {
		l := second.until(t, "", &c2, 30*time.Second)
		catBack = catBack || l == "cat in 1"
		if strings.HasPrefix(l, "final ") {
			f := fields(t, l)
			final[f[0]] = [2]int64{f[1], f[2]}
		}
		if l == "done" {
			break
		}
	}
	after := readStudy(t, path)
	if after.studies != 1 || len(after.rounds) != 2 || after.rounds[1].Ended.IsZero() ||
		!after.rounds[1].Started.Equal(before.rounds[1].Started) || !after.rounds[0].Ended.Equal(before.rounds[0].Ended) {
		t.Fatalf("after the restart: %d studies, rounds %+v (before %+v)", after.studies, after.rounds, before.rounds)
	}
	count := func(s storedStudy, round int) (shots int) {
		for _, sh := range s.shots {
			if sh.Round == round {
				shots++
			}
		}
		return shots
	}
	if count(after, 0) != count(before, 0) {
		t.Fatalf("round 0 has %d shots after the restart, %d before: it was played again", count(after, 0), count(before, 0))
	}
	var last time.Duration
	for _, p := range after.paths {
		if p.Round == 1 {
			last = max(last, p.At)
		}
	}
	if last < 13500*time.Millisecond || last > 14100*time.Millisecond {
		t.Errorf("round 1's paths end at %v, want about its 14 s", last)
	}
	rejoins := 0
	for _, s := range after.sessions {
		if s.Round == 1 && s.Seat == 0 && s.Kind == record.Connect {
			rejoins++
		}
	}
	if !catBack || rejoins != 2 {
		t.Errorf("cat back in round 1 after the restart: %v; %d connects of cat stored in round 1, want one before the kill and one after", catBack, rejoins)
	}
	for seat := range int64(4) {
		var k, dth int64
		for _, kr := range after.kills {
			if kr.Round == 1 && int64(kr.Killer) == seat && kr.Killer != kr.Victim {
				k++
			}
			if kr.Round == 1 && int64(kr.Victim) == seat {
				dth++
			}
		}
		if final[seat] != [2]int64{k, dth} {
			t.Errorf("seat %d ended round 1 with kills and deaths %v; the database holds %v", seat, final[seat], [2]int64{k, dth})
		}
	}
	// The event log: the start before the kill; the crash found at the
	// restart and the resume after it, no stop.
	var kinds []string
	for _, e := range after.events {
		kinds = append(kinds, e.Kind)
	}
	if want := []string{record.EventStart, record.EventCrash, record.EventResumed, record.EventOver}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	// The resumed round's stored duration is all of it: what ran before
	// the kill and after.
	if d := after.rounds[1].Duration; d < 13500*time.Millisecond || d > 14500*time.Millisecond {
		t.Errorf("round 1 stored as %v long, want about its 14 s", d)
	}
	t.Logf("killed after %v of round 1 with %d records committed (%d stored), %d kills in it; %d kills by its end",
		elapsed, committed, before.records(), killsBefore, len(after.kills)-len(before.kills)+killsBefore)
}

package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/web"
)

// stopSchedule is a one-round study of one person (code zed, whose page
// never comes) and two bots.
const stopSchedule = `name = "halt"
[[seat]]
code = "zed"
[[seat]]
bot = true
count = 2
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "8s"
[[question]]
id = "fair"
text = "Fair?"
kind = "fairness"
`

// TestStudyStopSaysWait: a live study stopped by a signal (its context
// cancelled, as SIGINT does) tells the participants' pages it stopped
// (phase "stopped", which the page shows as "please wait"), not that it
// is over; the run that resumes it serves the admin's link with the same
// token, so an admin tab left open carries on; and the report's timeline
// shows the stop and the resumption in order, with a wall time that
// spans both runs.
func TestStudyStopSaysWait(t *testing.T) {
	walltest.Lock(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "halt.toml")
	if err := os.WriteFile(sched, []byte(stopSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	args := []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "", "--start",
		"--answer-wait", "1s", "--log-format", "json"}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	adminRe := regexp.MustCompile(`study halt: admin (https://127\.0\.0\.1:\d+)/admin#token=([0-9a-f]{32})\n`)
	serve := func(ctx context.Context) (base, token string, out, errOut *lockedWriter, done chan int) {
		out, errOut, done = &lockedWriter{}, &lockedWriter{}, make(chan int, 1)
		go func() { done <- execute(ctx, args, out, errOut) }()
		for {
			select {
			case code := <-done:
				t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
			case <-time.After(50 * time.Millisecond):
			}
			if m := adminRe.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "seat 0: ") {
				return m[1], m[2], out, errOut, done
			}
		}
	}
	status := func(base string) (web.StudyStatus, error) {
		var st web.StudyStatus
		resp, err := client.Get(base + web.StudyStatusPath + "?code=zed")
		if err != nil {
			return st, err
		}
		defer resp.Body.Close()
		return st, json.NewDecoder(resp.Body).Decode(&st)
	}

	// The first run: stopped once the round plays.
	ctx1, cancel1 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel1()
	base1, token1, out1, errOut1, done1 := serve(ctx1)
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := status(base1)
		if err != nil {
			t.Fatal(err)
		}
		if st.Phase == study.PhasePlaying {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the round did not start: phase %s", st.Phase)
		}
	}
	cancel1()
	// Until the server goes, the page hears the study stopped.
	var seen []string
	for {
		st, err := status(base1)
		if err != nil {
			break
		}
		if len(seen) == 0 || seen[len(seen)-1] != st.Phase {
			seen = append(seen, st.Phase)
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != study.PhaseStopped {
		t.Fatalf("after the stop the page was told %v, want %q last", seen, study.PhaseStopped)
	}
	if code := <-done1; code != 3 {
		t.Fatalf("the stopped run exited %d, want 3: %s", code, errOut1.String())
	}
	if !strings.Contains(out1.String(), "stopped; run the same command again") {
		t.Fatalf("the stopped run said:\n%s", out1.String())
	}

	// The resumed run: the same admin token; the admin's state answers
	// to it.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	base2, token2, out2, errOut2, done2 := serve(ctx2)
	if token2 != token1 {
		t.Fatalf("the resumed run's admin token %s, want the stopped run's %s", token2, token1)
	}
	if !strings.Contains(out2.String(), "resuming session 1 of study 1 (halt)") {
		t.Fatalf("not resumed:\n%s", out2.String())
	}
	req, _ := http.NewRequest(http.MethodGet, base2+web.StudyAdminPath+"state", nil)
	req.Header.Set("Authorization", "Bearer "+token1)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the admin's first link after the resumption: status %d", resp.StatusCode)
	}
	if code := <-done2; code != 0 {
		t.Fatalf("the resumed run exited %d: %s", code, errOut2.String())
	}

	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	row, err := d.FindStudy(context.Background(), "halt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := study.ReadReport(context.Background(), d, row)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range rep.Run.Timeline {
		kinds = append(kinds, e.Kind)
	}
	want := []string{record.EventStart, study.TimelineRoundStart, record.EventStop, record.EventResumed, study.TimelineRoundEnd, record.EventOver}
	if got := strings.Join(kinds, ","); got != strings.Join(want, ",") {
		t.Errorf("timeline %s, want %s", got, strings.Join(want, ","))
	}
	if last := rep.Run.Timeline[len(rep.Run.Timeline)-1].At; rep.Run.WallS <= 0 || rep.Run.WallS != last.Sub(rep.Started).Seconds() {
		t.Errorf("wall time %v s, want the start (%v) to the end (%v)", rep.Run.WallS, rep.Started, last)
	}
	md := rep.Markdown()
	for _, s := range []string{"| stop |", "| resumed |", "Quick run: no"} {
		if !strings.Contains(md, s) {
			t.Errorf("study.md lacks %q:\n%s", s, md)
		}
	}
}

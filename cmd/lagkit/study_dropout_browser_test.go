package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/web"
)

// dropoutSchedule is an online study's session of two people and a bot:
// a page away for 2 s loses its seat to a bot, and the lobby gives a
// completion code for the part played.
const dropoutSchedule = `name = "dropout"
[[seat]]
count = 2
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
name = "only"
map = "arena"
mode = "ffa"
duration = "2m"
[online]
rejoin = "2s"
on_dropout = "code"
`

// TestStudyDropoutInBrowser: a session as the lobby starts it (lagkit
// study run --codes --start) with two participants' pages in headless
// Chromium; one page is closed mid-round. Once the schedule's rejoin
// grace has passed, the game server prints the dropout line the lobby
// reads and a bot plays the seat (its connect recorded, the seat's
// participant record stood in from that match time, a stand_in event);
// the other participant plays on; the participant, opening the page
// again, is told a bot has taken the seat, why, and where the
// completion code for the part played is.
func TestStudyDropoutInBrowser(t *testing.T) {
	node, playwright := studyBrowserEnv(t)
	pctx, pcancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer pcancel()
	if err := web.Prepare(pctx); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "dropout.toml")
	if err := os.WriteFile(sched, []byte(dropoutSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	walltest.Lock(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "", "--start",
			"--codes", "0=ANN7,1=BEA3", "--log-format", "json"}, &out, &errOut)
	}()
	link := regexp.MustCompile(`seat 1: (https://127\.0\.0\.1:\d+)/\?code=BEA3\n`)
	var m []string
	for m == nil {
		select {
		case code := <-done:
			t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
		m = link.FindStringSubmatch(out.String())
	}
	cmd := exec.CommandContext(ctx, node, "testdata/study_dropout.mjs", m[1], "ANN7", "BEA3")
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright)
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const line = "dropout seat 1: left mid-match (round 1 of 1)\n"
	var back struct {
		Step, Title, Text string
		OthersPlay        bool
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		t.Logf("study_dropout.mjs: %s", sc.Text())
		var s struct{ Step string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("study_dropout.mjs printed %q: %v", sc.Text(), err)
		}
		switch s.Step {
		case "left":
			// The game server tells of the dropout once the page has
			// been away for the grace.
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(out.String(), line) {
				if time.Now().After(deadline) {
					t.Fatalf("no dropout line 30 s after the page closed:\n%s", out.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			fmt.Fprintln(stdin, "replaced")
		case "back":
			_ = json.Unmarshal(sc.Bytes(), &back)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("study_dropout.mjs: %v\n%s\nstudy run:\n%s", err, stderr.String(), out.String())
	}
	if back.Title != "A bot has taken your seat" || !strings.Contains(back.Text, "left mid-match (round 1 of 1)") ||
		!strings.Contains(back.Text, "completion code for the part you played") || !back.OthersPlay {
		t.Errorf("back at the page: %+v", back)
	}
	// Stopped: the records so far stay.
	cancel()
	if code := <-done; code != exitStopped {
		t.Fatalf("study run: exit %d, want %d (stopped): %s", code, exitStopped, errOut.String())
	}

	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(context.Background())
	if err != nil || len(rows) != 1 {
		t.Fatalf("studies %v, %v", rows, err)
	}
	id := rows[0].ID
	parts, _ := store.All[record.Participant](context.Background(), sdb, id)
	var seat1 *record.Participant
	for i := range parts {
		if parts[i].Seat == 1 {
			seat1 = &parts[i]
		}
	}
	if seat1 == nil || !seat1.StandIn || seat1.Bot || seat1.StandInAt <= 0 || seat1.Code != "BEA3" {
		t.Errorf("seat 1 recorded %+v", seat1)
	}
	connects := 0
	sessions, _ := store.All[record.Session](context.Background(), sdb, id)
	for _, s := range sessions {
		if s.Seat == 1 && s.Kind == record.Connect {
			connects++
		}
	}
	events, _ := store.All[record.Event](context.Background(), sdb, id)
	standIn := false
	for _, e := range events {
		standIn = standIn || e.Kind == record.EventStandIn && strings.HasPrefix(e.Detail, "seat 1: left mid-match")
	}
	if connects < 2 || !standIn {
		t.Errorf("seat 1: %d connects (want the person's and the bot's), stand-in event %v", connects, standIn)
	}
}

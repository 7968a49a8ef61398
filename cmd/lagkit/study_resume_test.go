package main

import (
	"bytes"
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

// oneRoundSchedule is a one-round study of one person (code zed) and two
// bots, with a questionnaire.
const oneRoundSchedule = `name = "last"
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
duration = "3s"
[[question]]
id = "fair"
text = "Fair?"
kind = "fairness"
[[question]]
id = "lag"
text = "Lag?"
kind = "yesno"
`

// storeStopped writes into the SQLite file db what a live run of the
// schedule at path leaves when it is stopped during the questionnaire
// after its round played through (index last): the round ended, the
// person in seat 0 connected to it and answered nothing yet.
func storeStopped(t *testing.T, db, path string, last int) {
	t.Helper()
	s, err := study.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := d.NewWriter(store.WriterOptions{})
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	w.Put(record.Study{Name: s.Name, Schedule: s.Text(), Started: t0})
	for _, p := range s.Plans()[:last+1] {
		r := record.Round{Index: p.Index, Name: p.Name, Map: p.Map, Mode: string(p.Mode), Technique: p.Technique.String(),
			Duration: p.Duration, Started: t0}
		w.Put(r)
		for _, st := range s.Seats() {
			w.Put(record.Participant{Seat: st.Index, Code: st.Code, Bot: st.Bot, Round: p.Index})
		}
		w.Put(record.Session{Round: p.Index, Seat: 0, Kind: record.Connect, Transport: "websocket", At: t0})
		r.Ended = t0.Add(p.Duration)
		w.Put(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStudyResumeLastQuestionnaire: a one-round study stopped during
// its questionnaire is resumed by running the same command again: the
// same study, the questionnaire put again to the person who played, the
// answers stored in that study, and the study over without a round
// played again or a new study begun.
func TestStudyResumeLastQuestionnaire(t *testing.T) {
	walltest.Lock(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "last.toml")
	if err := os.WriteFile(sched, []byte(oneRoundSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	storeStopped(t, db, sched, 0)

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "",
			"--answer-wait", "30s", "--log-format", "json"}, &out, &errOut)
	}()
	link := regexp.MustCompile(`seat 0: (https://127\.0\.0\.1:\d+)/\?code=zed\n`)
	var m []string
	for m == nil {
		select {
		case code := <-done:
			t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
		m = link.FindStringSubmatch(out.String())
	}
	if !strings.Contains(out.String(), "resuming session 1 of study 1 (last): the questionnaire after its last round (1) is put again") {
		cancel()
		<-done
		t.Fatalf("not resumed:\n%s", out.String())
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	var q web.StudyQuestionnaire
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := client.Get(m[1] + web.StudyQuestionsPath + "?code=zed")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			err = json.NewDecoder(resp.Body).Decode(&q)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		resp.Body.Close()
		if time.Now().After(end) {
			t.Fatalf("the questionnaire was not put again (status %d)", resp.StatusCode)
		}
	}
	if q.Round != 0 || len(q.Questions) != 2 {
		t.Fatalf("asked %+v, want both questions after round 0", q)
	}
	body := `{"code":"zed","round":0,"answers":[{"question":"fair","value":-2},{"question":"lag","value":1}]}`
	resp, err := client.Post(m[1]+web.StudyAnswersPath, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("answers: status %d", resp.StatusCode)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "study last: over;") {
		t.Fatalf("output:\n%s", out.String())
	}

	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	all, err := d.Studies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("%d studies stored, want the one resumed", len(all))
	}
	rounds, _ := store.All[record.Round](context.Background(), d, 1)
	answers, _ := store.All[record.Answer](context.Background(), d, 1)
	if len(rounds) != 1 || len(answers) != 2 || answers[0].Round != 0 || answers[0].Seat != 0 || answers[0].Value != -2 {
		t.Fatalf("stored rounds %+v, answers %+v", rounds, answers)
	}
}

// TestStudyResumeAfterComment: a comment added to the schedule after a
// stop changes nothing the study depends on, and the rerun resumes the
// stopped study (stored without a schedule key, as before keys were
// kept); a changed round duration refuses to resume, says what differs
// and how to start anew, and stores nothing.
func TestStudyResumeAfterComment(t *testing.T) {
	walltest.Lock(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "last.toml")
	if err := os.WriteFile(sched, []byte(oneRoundSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	storeStopped(t, db, sched, 0)
	edited := "# piloted on Monday\n" + strings.Replace(oneRoundSchedule, `mode = "ffa"`, `mode = "ffa"   # one on one`, 1)
	if err := os.WriteFile(sched, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "",
			"--log-format", "json"}, &out, &errOut)
	}()
	for !strings.Contains(out.String(), "seat 0: ") {
		select {
		case code := <-done:
			t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel() // as a SIGINT would
	if code := <-done; code != exitStopped {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "resuming session 1 of study 1 (last)") {
		t.Fatalf("the commented schedule did not resume study 1:\n%s", out.String())
	}

	changed := strings.Replace(edited, `duration = "3s"`, `duration = "5s"`, 1)
	if err := os.WriteFile(sched, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, o, e := lagkit("study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "")
	if code != 1 || !strings.Contains(e, "study 1 (last) stopped unfinished") || !strings.Contains(e, "round 1 duration: 3s stored, 5s now") ||
		!strings.Contains(e, "--fresh") {
		t.Fatalf("changed duration: exit %d, %s\n%s", code, o, e)
	}
	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if all, _ := d.Studies(context.Background()); len(all) != 1 {
		t.Fatalf("%d studies stored, want 1", len(all))
	}
}

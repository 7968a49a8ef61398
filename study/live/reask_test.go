package live

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestUnansweredQuestionnaireIsPutAgain: a study stopped during the
// questionnaire after its first round (everything that round wrote is
// committed; one person answered, one answered part of it before the
// crash, one answered nothing, and one never connected) is resumed with
// that questionnaire put again before the next round: to the two who
// played and had not answered, each asked only what it had not
// answered; the one who answered and the one who never played are not
// asked; every answer ends up stored once.
func TestUnansweredQuestionnaireIsPutAgain(t *testing.T) {
	s, err := study.Load("../../presets/timewarp.toml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	codes := map[int]string{0: "CODE0", 1: "CODE1", 2: "CODE2", 3: "CODE3"}
	p0 := s.Plans()[0]
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	w := db.NewWriter(store.WriterOptions{})
	w.Put(record.Study{Name: s.Name, Schedule: s.Text(), Started: t0})
	round := record.Round{Index: 0, Name: p0.Name, Map: p0.Map, Mode: string(p0.Mode), Technique: p0.Technique.String(), Duration: p0.Duration, Started: t0}
	w.Put(round)
	for seat, code := range codes {
		w.Put(record.Participant{Seat: seat, Code: code, Round: 0})
		if seat < 3 {
			w.Put(record.Session{Round: 0, Seat: seat, Kind: record.Connect, Transport: "pipe", At: t0})
		}
	}
	round.Ended = t0.Add(p0.Duration)
	w.Put(round)
	for _, q := range s.Questions {
		w.Put(record.Answer{Round: 0, Seat: 0, Question: q.ID, Kind: q.Kind, Value: 1, At: round.Ended})
	}
	w.Put(record.Answer{Round: 0, Seat: 1, Question: "fairness", Kind: record.Fairness, Value: 2, At: round.Ended})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	stored, err := ResumeFrom(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	u := stored.Resume.Questions
	if stored.Resume.Round != 1 || u == nil || u.Round != 0 || len(u.Seats) != 2 || !u.Seats[1]["fairness"] || len(u.Seats[2]) != 0 {
		t.Fatalf("resume at round %d with questionnaire %+v; want round 1 after round 0's, for seats 1 (fairness answered) and 2", stored.Resume.Round, u)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: stored.Codes, Resume: stored.Resume, AnswerWait: time.Minute, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.ResumeWriter(ctx, stored.ID, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- d.Run(runCtx, out, study.Options{}) }()
	defer func() {
		cancel()
		<-ran
	}()

	var q study.Questionnaire
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var ok bool
		if q, ok = d.Pending("CODE1"); ok {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the unanswered questionnaire was not put again")
		}
	}
	ids := func(qs []study.Question) (out []string) {
		for _, x := range qs {
			out = append(out, x.ID)
		}
		return out
	}
	if q.Round != 0 || !slices.Equal(ids(q.Questions), []string{"hit_when_aimed", "noticed_lag"}) {
		t.Fatalf("seat 1 asked %v after round %d, want the two it had not answered after round 0", ids(q.Questions), q.Round)
	}
	if q2, ok := d.Pending("CODE2"); !ok || len(q2.Questions) != len(s.Questions) {
		t.Fatalf("seat 2 asked %+v (%v), want the whole questionnaire", q2, ok)
	}
	for _, code := range []string{"CODE0", "CODE3"} {
		if _, ok := d.Pending(code); ok {
			t.Fatalf("%s asked again", code)
		}
	}
	if err := d.Answer("CODE1", 0, []study.Response{{Question: "fairness", Value: 3}, {Question: "hit_when_aimed", Value: 4}, {Question: "noticed_lag", Value: 1}}); err == nil {
		t.Fatal("seat 1 answered fairness twice")
	}
	if err := d.Answer("CODE1", 0, []study.Response{{Question: "hit_when_aimed", Value: 4}, {Question: "noticed_lag", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Answer("CODE2", 0, []study.Response{{Question: "fairness", Value: -1}, {Question: "hit_when_aimed", Value: 2}, {Question: "noticed_lag", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		phase := d.phase
		d.mu.Unlock()
		if phase == study.PhaseWaiting {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("phase %s once everyone answered, want waiting for the next round's start", phase)
		}
	}
	cancel()
	<-ran
	ran <- nil
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	answers, err := store.All[record.Answer](ctx, db, stored.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[[2]any]int{}
	for _, a := range answers {
		count[[2]any{a.Seat, a.Question}]++
	}
	for seat := range 3 {
		for _, x := range s.Questions {
			if n := count[[2]any{seat, x.ID}]; n != 1 {
				t.Errorf("seat %d's answer to %s stored %d times, want once", seat, x.ID, n)
			}
		}
	}
	if len(answers) != 9 {
		t.Errorf("%d answers stored, want 9", len(answers))
	}
}

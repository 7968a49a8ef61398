package live

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// instrumented is a one-round study with a consent screen, an intake
// and final questions.
const instrumented = `name = "instruments"
[[seat]]
code = "P1"
[[seat]]
code = "P2"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
[[question]]
id = "fair"
text = "How fair was it?"
kind = "fairness"
[consent]
text = "I agree to play two rounds."
agree = "Yes, I agree"
[[intake]]
id = "age"
text = "Age"
kind = "number"
min = 18
max = 99
[[intake]]
id = "platform"
text = "You play most on"
kind = "choice"
choices = ["PC", "console"]
[[final]]
id = "noticed"
text = "Did the rounds differ?"
kind = "yesno"
[[final]]
id = "calm"
text = "How calm were you?"
kind = "scale"
min = 0
max = 4
anchors = ["tense", "calm"]
`

var browser = study.ClientInfo{RefreshHz: 143.8, Sensitivity: 2.2, UserAgent: "Chromium", ScreenW: 1920, ScreenH: 1080, PixelRatio: 1}

// TestConsentAndIntake: a participant is admitted only after agreeing
// to the consent text; then the intake is pending (whatever the phase),
// its answers checked against each question's kind and range, a
// choice's stored with its text; the consent's browser report and the
// intake answers wait for the study's record and follow it.
func TestConsentAndIntake(t *testing.T) {
	s, err := study.Parse(filepath.Join(t.TempDir(), "i.toml"), []byte(instrumented))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "P1", 1: "P2"}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if text, agree := d.ConsentText(); text != "I agree to play two rounds." || agree != "Yes, I agree" {
		t.Fatalf("consent %q %q", text, agree)
	}
	if _, err := d.Join("P1"); !errors.Is(err, study.ErrNoConsent) {
		t.Fatalf("join before consent: %v, want ErrNoConsent", err)
	}
	if _, ok := d.Pending("P1"); ok || !d.NeedsConsent("P1") {
		t.Fatal("questions pending before consent")
	}
	if err := d.Answer("P1", study.IntakeRound, []study.Response{{Question: "age", Value: 30}}); !errors.Is(err, study.ErrNoConsent) {
		t.Fatalf("intake before consent: %v", err)
	}
	bad := browser
	bad.RefreshHz = -1
	if err := d.Agree("P1", bad); !errors.Is(err, study.ErrInvalid) {
		t.Fatalf("consent with a refresh rate of -1: %v, want ErrInvalid", err)
	}
	if err := d.Agree("P1", browser); err != nil {
		t.Fatal(err)
	}
	if d.NeedsConsent("P1") || !d.NeedsConsent("P2") {
		t.Fatal("consent not kept per seat")
	}
	if _, err := d.Join("P1"); err != nil {
		t.Fatalf("join after consent: %v", err)
	}
	q, ok := d.Pending("P1")
	if !ok || q.Round != study.IntakeRound || q.Stage != record.StageIntake || len(q.Questions) != 2 {
		t.Fatalf("pending %+v, want the intake's two questions", q)
	}
	for _, c := range []struct {
		answers []study.Response
		want    string
	}{
		{[]study.Response{{Question: "age", Value: 12}, {Question: "platform", Value: 0}}, `answer to "age" (number): 12, want 18 to 99`},
		{[]study.Response{{Question: "age", Value: 30}, {Question: "platform", Value: 2}}, `answer to "platform" (choice): 2, want 0 to 1`},
		{[]study.Response{{Question: "age", Value: 30}}, "1 of 2 questions answered"},
		{[]study.Response{{Question: "age", Value: 30}, {Question: "fair", Value: 0}}, `no question "fair"`},
	} {
		if err := d.Answer("P1", study.IntakeRound, c.answers); err == nil || !errors.Is(err, study.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("answers %+v: %v, want %q", c.answers, err, c.want)
		}
	}
	if err := d.Answer("P1", study.IntakeRound, []study.Response{{Question: "age", Value: 30}, {Question: "platform", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Answer("P1", study.IntakeRound, []study.Response{{Question: "age", Value: 31}, {Question: "platform", Value: 1}}); !errors.Is(err, study.ErrAnswered) {
		t.Fatalf("intake answered twice: %v, want ErrAnswered", err)
	}
	if _, ok := d.Pending("P1"); ok {
		t.Fatal("intake pending once answered")
	}
	if err := d.ReportClient("P1", browser); err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	d.attach(&mem)
	var got []string
	for _, r := range mem.Records {
		switch r := r.(type) {
		case record.Client:
			got = append(got, "client", r.UserAgent)
			if r.Consented != (r.Round == study.IntakeRound) {
				t.Errorf("client %+v: only the report at consent (round -1) is a consent", r)
			}
		case record.Answer:
			got = append(got, r.Question, r.Stage, r.Text)
			if r.Round != study.IntakeRound {
				t.Errorf("intake answer %+v, want round -1", r)
			}
		}
	}
	if want := []string{"client", "Chromium", "age", "intake", "", "platform", "intake", "console", "client", "Chromium"}; !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestFinalQuestionsPutAgain: a study stopped during its last
// questionnaire, which holds the round's and the final questions, is
// resumed with each participant asked only what it had not answered;
// consent and intake, stored before, are not asked again; every answer
// is stored once with its stage.
func TestFinalQuestionsPutAgain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := study.Parse(filepath.Join(dir, "i.toml"), []byte(instrumented))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	p0 := s.Plans()[0]
	w := db.NewWriter(store.WriterOptions{})
	w.Put(record.Study{Name: s.Name, Schedule: s.Text(), ScheduleKey: s.Key(), Started: t0, Consent: s.ConsentText()})
	for seat := range 2 {
		w.Put(record.Client{Seat: seat, Round: -1, Consented: true, At: t0})
		w.Put(record.Answer{Round: -1, Seat: seat, Question: "age", Kind: record.Number, Stage: record.StageIntake, Value: 20 + seat, At: t0})
		w.Put(record.Answer{Round: -1, Seat: seat, Question: "platform", Kind: record.Choice, Stage: record.StageIntake, Value: 0, Text: "PC", At: t0})
	}
	round := record.Round{Index: 0, Name: p0.Name, Map: p0.Map, Mode: string(p0.Mode), Technique: "tlc", Setting: p0.Technique.String(), Duration: p0.Duration, Started: t0}
	w.Put(round)
	for seat, code := range map[int]string{0: "P1", 1: "P2", 2: ""} {
		w.Put(record.Participant{Seat: seat, Code: code, Round: 0, Bot: code == ""})
		w.Put(record.Session{Round: 0, Seat: seat, Kind: record.Connect, Transport: "pipe", At: t0})
	}
	round.Ended = t0.Add(p0.Duration)
	w.Put(round)
	// Seat 0 answered the round's question and one final question
	// before the stop; seat 1 nothing.
	w.Put(record.Answer{Round: 0, Seat: 0, Question: "fair", Kind: record.Fairness, Stage: record.StageRound, Value: 2, At: round.Ended})
	w.Put(record.Answer{Round: 0, Seat: 0, Question: "noticed", Kind: record.YesNo, Stage: record.StageFinal, Value: 1, At: round.Ended})
	w.Put(record.Event{Round: 0, Kind: record.EventStop, At: round.Ended})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	stored, err := ResumeFrom(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	r := stored.Resume
	if r.Round != 1 || r.Questions == nil || len(r.Questions.Seats) != 2 || !r.Consented[0] || !r.Consented[1] || !r.Intake[1]["platform"] {
		t.Fatalf("resume %+v, want the last questionnaire for both, consent and intake kept", r)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: stored.Codes, Resume: r, AnswerWait: time.Minute, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.ResumeWriter(ctx, stored.ID, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx, out, study.Options{}) }()
	var q0, q1 study.Questionnaire
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var ok0, ok1 bool
		q0, ok0 = d.Pending("P1")
		q1, ok1 = d.Pending("P2")
		if ok0 && ok1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the last questionnaire was not put again")
		}
	}
	ids := func(q study.Questionnaire) (out []string) {
		for _, x := range q.Questions {
			out = append(out, x.ID+":"+x.Stage)
		}
		return out
	}
	if got := ids(q0); q0.Round != 0 || !slices.Equal(got, []string{"calm:final"}) {
		t.Fatalf("seat 0 asked %v, want the final question it had not answered", got)
	}
	if got := ids(q1); !slices.Equal(got, []string{"fair:round", "noticed:final", "calm:final"}) {
		t.Fatalf("seat 1 asked %v, want the round's and the final questions", got)
	}
	if d.NeedsConsent("P1") {
		t.Fatal("consent asked again")
	}
	if err := d.Answer("P1", 0, []study.Response{{Question: "calm", Value: 5}}); !errors.Is(err, study.ErrInvalid) {
		t.Fatalf("calm 5 on a 0 to 4 scale: %v", err)
	}
	if err := d.Answer("P1", 0, []study.Response{{Question: "calm", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Answer("P2", 0, []study.Response{{Question: "fair", Value: -1}, {Question: "noticed", Value: 0}, {Question: "calm", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil {
		t.Fatalf("resumed study: %v, want it to end once the last questionnaire is answered", err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	answers, err := store.All[record.Answer](ctx, db, stored.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, a := range answers {
		count[a.Question+":"+a.Stage]++
	}
	want := map[string]int{"age:intake": 2, "platform:intake": 2, "fair:round": 2, "noticed:final": 2, "calm:final": 2}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s stored %d times, want %d (each seat once)", k, count[k], n)
		}
	}
	if len(answers) != 10 {
		t.Errorf("%d answers, want 10", len(answers))
	}
	if _, err := ResumeFrom(ctx, db, s); !errors.Is(err, ErrNothingToResume) {
		t.Errorf("after the last questionnaire: %v, want nothing to resume", err)
	}
}

// TestConsentedInTheLobby: a seat whose participant agreed to the
// consent text in an online study's lobby is not asked again: it joins
// at once, its intake is pending, and its consent is recorded with the
// session; another seat (a lab participant, no lobby) still is asked.
// A consent given for a bot's seat or in a study without a consent
// text is refused.
func TestConsentedInTheLobby(t *testing.T) {
	s, err := study.Parse(filepath.Join(t.TempDir(), "i.toml"), []byte(instrumented))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "P1", 1: "P2"}, Consented: []int{0}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if d.NeedsConsent("P1") || !d.NeedsConsent("P2") {
		t.Fatalf("needs consent: P1 %v, P2 %v; want P2 only", d.NeedsConsent("P1"), d.NeedsConsent("P2"))
	}
	if _, err := d.Join("P1"); err != nil {
		t.Fatalf("P1 joining after the lobby's consent: %v", err)
	}
	if _, err := d.Join("P2"); !errors.Is(err, study.ErrNoConsent) {
		t.Fatalf("P2 joining without consent: %v, want ErrNoConsent", err)
	}
	if q, ok := d.Pending("P1"); !ok || q.Stage != record.StageIntake {
		t.Errorf("P1's intake: %+v %v", q, ok)
	}
	var mem record.Memory
	d.attach(&mem)
	var consents []int
	for _, r := range mem.Records {
		if c, ok := r.(record.Client); ok && c.Consented && c.Round == study.IntakeRound {
			consents = append(consents, c.Seat)
		}
	}
	if !slices.Equal(consents, []int{0}) {
		t.Errorf("consents recorded for seats %v, want [0]", consents)
	}
	if _, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Consented: []int{2}, Log: quiet}); err == nil || !strings.Contains(err.Error(), "no person's seat") {
		t.Errorf("a bot's seat consented: %v", err)
	}
	plain, err := study.Parse(filepath.Join(t.TempDir(), "p.toml"), []byte(strings.Split(instrumented, "[consent]")[0]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Schedule: plain, Host: realtime.NewHost(quiet, nil), Consented: []int{0}, Log: quiet}); err == nil || !strings.Contains(err.Error(), "no consent text") {
		t.Errorf("consented without a consent text: %v", err)
	}
}

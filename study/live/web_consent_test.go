package live_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/live"
	"github.com/lagkit/lagkit/web"
)

const consentSchedule = `name = "consent"
[[seat]]
code = "AB12"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
[consent]
text = "I agree to play."
[[intake]]
id = "hours"
text = "Hours a week you play"
kind = "choice"
choices = ["none", "some", "many"]
[[intake]]
id = "calm"
text = "How calm are you?"
kind = "scale"
min = 1
max = 9
anchors = ["tense", "calm"]
`

// TestStudyConsentEndpoints drives the consent screen and the intake
// over HTTP against the live driver: the status asks for consent and
// joining is refused (403) until the participant agrees; a browser
// report out of range is refused (400); then the intake is pending with
// every kind's range, choices and anchors, and is answered with round
// -1.
func TestStudyConsentEndpoints(t *testing.T) {
	s, err := study.Parse(filepath.Join(t.TempDir(), "c.toml"), []byte(consentSchedule))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := live.New(live.Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.HandlerWith(web.Options{Study: d}))
	t.Cleanup(srv.Close)

	var st web.StudyStatus
	code, body := call(t, srv, "GET", web.StudyStatusPath+"?code=ab12", "")
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil || !st.Consent || st.Pending || !st.Frames {
		t.Fatalf("status before consent: %d %s, want consent asked for and nothing pending", code, body)
	}
	if code, body = call(t, srv, "POST", web.StudyJoinPath, `{"code":"AB12"}`); code != 403 || !strings.Contains(body, "consent") {
		t.Fatalf("join before consent: %d %s, want 403", code, body)
	}
	if code, body = call(t, srv, "GET", web.StudyConsentPath+"?code=AB12", ""); code != 200 || body != `{"text":"I agree to play.","agree":"I agree"}`+"\n" {
		t.Fatalf("consent text: %d %q", code, body)
	}
	if code, body = call(t, srv, "POST", web.StudyConsentPath, `{"code":"AB12","client":{"refresh_hz":5000}}`); code != 400 || !strings.Contains(body, "refresh rate 5000 Hz, want 0 to 1000") {
		t.Fatalf("consent with a refresh rate of 5000 Hz: %d %s, want 400", code, body)
	}
	if code, body = call(t, srv, "POST", web.StudyConsentPath, `{"code":"AB12","client":{"refresh_hz":60,"mouse_sensitivity":2.2,"user_agent":"test"}}`); code != 204 {
		t.Fatalf("consent: %d %s", code, body)
	}
	if code, body = call(t, srv, "POST", web.StudyJoinPath, `{"code":"AB12","client":{"refresh_hz":60}}`); code != 200 {
		t.Fatalf("join after consent: %d %s", code, body)
	}
	code, body = call(t, srv, "GET", web.StudyStatusPath+"?code=AB12", "")
	if json.Unmarshal([]byte(body), &st) != nil || st.Consent || !st.Pending {
		t.Fatalf("status after consent: %d %s, want the intake pending", code, body)
	}
	var q web.StudyQuestionnaire
	code, body = call(t, srv, "GET", web.StudyQuestionsPath+"?code=AB12", "")
	if code != 200 || json.Unmarshal([]byte(body), &q) != nil || q.Round != -1 || q.Stage != "intake" || len(q.Questions) != 2 {
		t.Fatalf("intake: %d %s", code, body)
	}
	if h, c := q.Questions[0], q.Questions[1]; len(h.Choices) != 3 || h.Max != 2 || c.Min != 1 || c.Max != 9 || c.Anchors != [2]string{"tense", "calm"} {
		t.Fatalf("intake questions %+v, want the choices, the scale's range and anchors", q.Questions)
	}
	if code, body = call(t, srv, "POST", web.StudyAnswersPath, `{"code":"AB12","round":-1,"answers":[{"question":"hours","value":3},{"question":"calm","value":5}]}`); code != 400 {
		t.Fatalf("a fourth of three choices: %d %s, want 400", code, body)
	}
	if code, body = call(t, srv, "POST", web.StudyAnswersPath, `{"code":"AB12","round":-1,"answers":[{"question":"hours","value":2},{"question":"calm","value":5}]}`); code != 204 {
		t.Fatalf("intake answers: %d %s", code, body)
	}
	if code, _ = call(t, srv, "GET", web.StudyQuestionsPath+"?code=AB12", ""); code != 204 {
		t.Fatalf("questions after the intake: %d, want 204", code)
	}
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"code":"AB12","frames":{"round":0,"frames":600,"mean_ms":16.7,"p50_ms":16.6,"p95_ms":17,"p99_ms":33,"max_ms":50}}`, 204},
		{`{"code":"AB12","frames":{"round":0,"frames":600,"mean_ms":16.7,"p50_ms":20,"p95_ms":17,"p99_ms":33,"max_ms":50}}`, 400},
		{`{"code":"AB12","frames":{"round":0,"frames":600,"mean_ms":16.7,"p50_ms":16.6,"p95_ms":17,"p99_ms":33,"max_ms":50,"rtt_mean_ms":84.2,"rtt_jitter_ms":1.5,"rtt_samples":400}}`, 204},
		{`{"code":"AB12","frames":{"round":0,"frames":600,"mean_ms":16.7,"p50_ms":16.6,"p95_ms":17,"p99_ms":33,"max_ms":50,"rtt_mean_ms":84.2,"rtt_samples":0}}`, 400},
		{`{"code":"AB12","frames":{"round":0,"frames":600,"mean_ms":16.7,"p50_ms":16.6,"p95_ms":17,"p99_ms":33,"max_ms":50,"rtt_mean_ms":-1,"rtt_samples":3}}`, 400},
		{`{"code":"AB12","frames":{"round":1,"frames":600,"mean_ms":16.7,"p50_ms":16.6,"p95_ms":17,"p99_ms":33,"max_ms":50}}`, 400},
		{`{"code":"AB12"}`, 400},
		{`{"code":"ZZ99","frames":{"round":0}}`, 404},
	} {
		if code, body = call(t, srv, "POST", web.StudyFramesPath, c.body); code != c.want {
			t.Errorf("frames %s: %d %s, want %d", c.body, code, body, c.want)
		}
	}
}

// call sends a request with a JSON body (none when body is "") and
// returns the status and the body.
func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

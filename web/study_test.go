package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/study"
)

// call sends a request with a JSON body (none when body is "") and
// returns the status and the body.
func call(t *testing.T, srv *httptest.Server, method, path, body string, header ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
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

func studyServerFor(t *testing.T, f *fakeStudy, host *realtime.Host) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(HandlerWith(Options{Study: f, AdminToken: "s3cret", Host: host}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStudyParticipant drives a participant's endpoints: joining by
// code, the status (blind to the technique), the questionnaire after a
// round and its answers, each study error as its status.
func TestStudyParticipant(t *testing.T) {
	f := newFakeStudy("AB12", "CD34")
	f.issue = func(seat int, name string) ([]byte, error) { return []byte{1, 2, byte(seat)}, nil }
	f.set(func(st *study.LiveState) { st.Match = "m1" })
	srv := studyServerFor(t, f, nil)

	code, body := call(t, srv, "POST", StudyJoinPath, `{"code":"CD34"}`)
	var a study.Admission
	if code != 200 || json.Unmarshal([]byte(body), &a) != nil || a.Seat != 1 || a.Match != "m1" || !slices.Equal(a.Token, []byte{1, 2, 1}) || a.Phase != study.PhaseWaiting {
		t.Fatalf("join: %d %s", code, body)
	}
	if !strings.Contains(body, `"token":"AQIB"`) {
		t.Errorf("join: token not in base64: %s", body)
	}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", StudyJoinPath, `{"code":"ZZ99"}`, 404},
		{"POST", StudyJoinPath, `{"code":""}`, 400},
		{"POST", StudyJoinPath, `{"code":` + `"` + strings.Repeat("x", 65) + `"}`, 400},
		{"POST", StudyJoinPath, `not json`, 400},
		{"POST", StudyJoinPath, `{"code":"` + strings.Repeat("x", 70000) + `"}`, 413},
		{"GET", StudyJoinPath, ``, 405},
		{"GET", StudyStatusPath + "?code=ZZ99", ``, 404},
		{"GET", StudyStatusPath, ``, 400},
		{"GET", StudyQuestionsPath + "?code=AB12", ``, 204},
		{"POST", StudyAnswersPath, `{"code":"AB12","round":0,"answers":[{"question":"sbc","value":1}]}`, 409},
		{"POST", StudyReadyPath, `{"code":"AB12"}`, 409},
		{"POST", StudyReadyPath, `{"code":"ZZ99"}`, 404},
	} {
		if got, body := call(t, srv, c.method, c.path, c.body); got != c.want {
			t.Errorf("%s %s %.60s: %d %s, want %d", c.method, c.path, c.body, got, body, c.want)
		} else if got >= 400 && got != 405 && !strings.Contains(body, `"error":`) {
			t.Errorf("%s %s: error without a message: %s", c.method, c.path, body)
		}
	}

	// A code typed in another case or with spaces around it is the same
	// code for every endpoint, as it is for joining.
	for _, typed := range []string{"ab12", "%20Ab12%20"} {
		if code, body := call(t, srv, "GET", StudyStatusPath+"?code="+typed, ""); code != 200 || !strings.Contains(body, `"seat":0`) {
			t.Errorf("status for %q: %d %s, want seat 0", typed, code, body)
		}
	}
	if code, body := call(t, srv, "POST", StudyJoinPath, `{"code":"cd34"}`); code != 200 || !strings.Contains(body, `"seat":1`) {
		t.Errorf("join as cd34: %d %s, want seat 1", code, body)
	}

	code, body = call(t, srv, "GET", StudyStatusPath+"?code=AB12", "")
	if code != 200 || strings.Contains(body, "tlc") || strings.Contains(body, "technique") || strings.Contains(body, "baseline") || strings.Contains(body, "CD34") {
		t.Fatalf("status: %d %s: want it without the technique, the round's name or other codes", code, body)
	}
	if err := f.Command(study.Command{Action: study.ActionSkip}); err != nil {
		t.Fatal(err)
	}
	var st StudyStatus
	code, body = call(t, srv, "GET", StudyStatusPath+"?code=AB12", "")
	if json.Unmarshal([]byte(body), &st) != nil || st.Phase != study.PhaseQuestions || !st.Pending || st.RemainingS != 120 || st.Seat != 0 || st.Frames {
		t.Fatalf("status after the round: %d %s", code, body)
	}
	var q StudyQuestionnaire
	code, body = call(t, srv, "GET", StudyQuestionsPath+"?code=AB12", "")
	if code != 200 || json.Unmarshal([]byte(body), &q) != nil || len(q.Questions) != 4 || strings.Contains(body, "baseline") || !reflect.DeepEqual(q.Questions[2], StudyQuestion{ID: "fair", Text: "How fair was the round?", Kind: "fairness", Stage: "round", Min: -5, Max: 5}) {
		t.Fatalf("questions: %d %s", code, body)
	}
	good := `{"code":"AB12","round":0,"answers":[{"question":"sbc","value":1},{"question":"smooth","value":4},{"question":"fair","value":-3},{"question":"notes","text":"laggy corner"}]}`
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"code":"AB12","round":0,"answers":[{"question":"fair","value":9}]}`, 400},
		{`{"code":"AB12","round":0,"answers":[{"question":"what","value":1}]}`, 400},
		{`{"code":"AB12","answers":[{"question":"sbc","value":1}]}`, 400},
		{`{"code":"AB12","round":0,"answers":[]}`, 400},
		{`{"code":"AB12","round":1,"answers":[{"question":"sbc","value":1}]}`, 409},
		{`{"code":"ZZ99","round":0,"answers":[{"question":"sbc","value":1}]}`, 404},
		{good, 204},
		{good, 409},
	} {
		if got, body := call(t, srv, "POST", StudyAnswersPath, c.body); got != c.want {
			t.Errorf("answers %.70s: %d %s, want %d", c.body, got, body, c.want)
		}
	}
	if got := f.answered("AB12"); len(got) != 4 || got[2].Value != -3 || got[3].Text != "laggy corner" {
		t.Errorf("answers recorded: %+v", got)
	}
	if code, _ := call(t, srv, "GET", StudyQuestionsPath+"?code=AB12", ""); code != 204 {
		t.Errorf("questions once answered: %d, want 204", code)
	}
	f.set(func(st *study.LiveState) { st.Phase = study.PhaseReady })
	if code, body := call(t, srv, "POST", StudyReadyPath, `{"code":"CD34"}`); code != 204 || !slices.Equal(f.readies, []string{"CD34"}) {
		t.Errorf("ready: %d %s, readies %v", code, body, f.readies)
	}
	f.set(func(st *study.LiveState) { st.Phase = study.PhaseEnded })
	if code, body := call(t, srv, "POST", StudyJoinPath, `{"code":"AB12"}`); code != 410 {
		t.Errorf("join after the end: %d %s, want 410", code, body)
	}
}

// TestStudyAdmin drives the admin's endpoints: refused without the
// token, with a wrong one or none configured; the state with codes and
// the time remaining; commands checked before they reach the study.
func TestStudyAdmin(t *testing.T) {
	f := newFakeStudy("AB12")
	srv := studyServerFor(t, f, nil)
	state := StudyAdminPath + "state"
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}, {"Authorization", "Bearer s3cre"}} {
		if code, body := call(t, srv, "GET", state, "", h...); code != 401 || strings.Contains(body, "AB12") {
			t.Errorf("state with %q: %d %s, want 401", h, code, body)
		}
	}
	auth := []string{"Authorization", "Bearer s3cret"}
	code, body := call(t, srv, "GET", state, "", auth...)
	var st AdminState
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil || st.Phase != study.PhaseWaiting || len(st.Seats) != 2 || st.Seats[0].Code != "AB12" || !st.Seats[1].Bot {
		t.Fatalf("state: %d %s", code, body)
	}
	cmd := StudyAdminPath + "command"
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"action":"start"}`, 204},
		{`{"action":"start"}`, 409},
		{`{"action":"extend","extend":"90s"}`, 204},
		{`{"action":"extend"}`, 400},
		{`{"action":"extend","extend":"2h"}`, 400},
		{`{"action":"extend","extend":"soon"}`, 400},
		{`{"action":"pause","extend":"1m"}`, 400},
		{`{"action":"explode"}`, 400},
		{`{"action":"pause"}`, 204},
	} {
		if got, body := call(t, srv, "POST", cmd, c.body, auth...); got != c.want {
			t.Errorf("command %s: %d %s, want %d", c.body, got, body, c.want)
		}
	}
	if code, _ := call(t, srv, "POST", cmd, `{"action":"resume"}`); code != 401 {
		t.Errorf("command without the token: %d, want 401", code)
	}
	sent := f.sent()
	if len(sent) != 4 || sent[2] != (study.Command{Action: study.ActionExtend, Extend: study.Duration(90 * time.Second)}) {
		t.Errorf("commands that reached the study: %+v", sent)
	}
	code, body = call(t, srv, "GET", state, "", auth...)
	if json.Unmarshal([]byte(body), &st) != nil || st.Phase != study.PhasePaused || st.RemainingS != 150 {
		t.Errorf("state after start, extend 90 s, pause: %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", StudyAdminPath+"spectate", "", auth...); code != 501 {
		t.Errorf("spectate without a host: %d %s, want 501", code, body)
	}
	if code, _ := call(t, srv, "GET", AdminPagePath, ""); code != 200 {
		t.Errorf("admin page: %d", code)
	}

	// No admin token configured: no admin at all.
	open := httptest.NewServer(HandlerWith(Options{Study: f}))
	defer open.Close()
	if code, _ := call(t, open, "GET", state, "", "Authorization", "Bearer "); code != 401 {
		t.Errorf("state from a server without an admin token: %d, want 401", code)
	}
	// No study: no study endpoints.
	plain := httptest.NewServer(Handler())
	defer plain.Close()
	for _, p := range []string{StudyStatusPath + "?code=AB12", state, AdminPagePath} {
		if code, _ := call(t, plain, "GET", p, "", auth...); code != 404 {
			t.Errorf("%s without a study: %d, want 404", p, code)
		}
	}
}

// TestStudySpectate spectates the round's match, four bots on arena run
// by a real host: every player with its hitboxes, and the map. The host
// delays its spectators by 30 s, which the researcher's view is not: it
// shows the players at once, while a participant's page finds no public
// spectate endpoint on a study server.
func TestStudySpectate(t *testing.T) {
	h := newHost()
	defer h.Shutdown(t.Context(), "test over")
	if err := h.SetSpectateDelay(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	m, err := h.Start(realtime.MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeStudy("AB12")
	srv := studyServerFor(t, f, h)
	auth := []string{"Authorization", "Bearer s3cret"}
	if code, body := call(t, srv, "GET", StudyAdminPath+"spectate", "", auth...); code != 204 {
		t.Errorf("spectate between rounds: %d %s, want 204", code, body)
	}
	if code, body := call(t, srv, "GET", StudyAdminPath+"map", "", auth...); code != 204 {
		t.Errorf("map between rounds: %d %s, want 204", code, body)
	}
	f.set(func(st *study.LiveState) { st.Match = "gone" })
	if code, body := call(t, srv, "GET", StudyAdminPath+"spectate", "", auth...); code != 204 {
		t.Errorf("spectate of a match that has ended: %d %s, want 204", code, body)
	}
	f.set(func(st *study.LiveState) { st.Match = m.ID() })
	var v realtime.View
	for range 100 {
		code, body := call(t, srv, "GET", StudyAdminPath+"spectate?since=0", "", auth...)
		if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
			t.Fatalf("spectate: %d %s", code, body)
		}
		if len(v.Players) == 4 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if v.Map != "arena" || len(v.Players) != 4 || len(v.Players[0].Parts) != 4 || v.DelayS != 0 || v.StartsInS != 0 {
		t.Fatalf("view: %+v", v)
	}
	if code, body := call(t, srv, "GET", SpectatePath, ""); code != 404 {
		t.Errorf("the public spectate endpoint on a study server: %d %.80s, want 404", code, body)
	}
	if code, body := call(t, srv, "GET", StudyAdminPath+"map", "", auth...); code != 200 || !strings.Contains(body, `"arena"`) {
		t.Errorf("map: %d %.80s", code, body)
	}
	if code, _ := call(t, srv, "GET", StudyAdminPath+"spectate?since=x", "", auth...); code != 400 {
		t.Errorf("spectate?since=x: %d, want 400", code)
	}
	if code, _ := call(t, srv, "GET", StudyAdminPath+"spectate", ""); code != 401 {
		t.Errorf("spectate without the token: %d, want 401", code)
	}
}

// TestAdminBundle checks that the admin page's script bundles, with the
// 3D view, and names the study's admin endpoints.
func TestAdminBundle(t *testing.T) {
	js, err := adminScript.asset()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/lagkit/study/admin/", "spectate?since=", "WebGLRenderer", "Bearer "} {
		if !strings.Contains(string(js.data), want) {
			t.Errorf("admin bundle lacks %q", want)
		}
	}
	t.Logf("admin.js: %d bytes, %d gzipped", len(js.data), len(js.gz))
}

// TestStudyGuesses checks that an address trying codes that fit no seat
// is slowed to guessRate after guessBurst misses, whatever code it then
// sends, while other addresses are not.
func TestStudyGuesses(t *testing.T) {
	f := newFakeStudy("AB12")
	s := &studyServer{c: f, guesses: newGuesses()}
	clock := time.Unix(1000, 0)
	s.guesses.now = func() time.Time { return clock }
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+StudyJoinPath, s.join)
	join := func(addr, code string) int {
		req := httptest.NewRequest("POST", StudyJoinPath, strings.NewReader(`{"code":"`+code+`"}`))
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := range guessBurst {
		if code := join("192.0.2.1:1000", fmt.Sprintf("X%03d", i)); code != 404 {
			t.Fatalf("miss %d: %d, want 404", i, code)
		}
	}
	if code := join("192.0.2.1:1001", "AB12"); code != 429 {
		t.Errorf("a right code after %d misses: %d, want 429", guessBurst, code)
	}
	if code := join("198.51.100.7:1000", "AB12"); code != 200 {
		t.Errorf("another address: %d, want 200", code)
	}
	clock = clock.Add(time.Duration(1.5 / guessRate * float64(time.Second)))
	if code := join("192.0.2.1:1000", "AB12"); code != 200 {
		t.Errorf("after a refill: %d, want 200", code)
	}
	if code := join("192.0.2.1:1000", "X999"); code != 404 {
		t.Errorf("a miss after a refill: %d, want 404", code)
	}
	if code := join("192.0.2.1:1000", "AB12"); code != 429 {
		t.Errorf("after spending the refill: %d, want 429", code)
	}
}

// TestStudyAdminRoutesAllNeedTheToken: every admin endpoint of a live
// study refuses a request without the admin token, and the study's
// handler serves no match API.
func TestStudyAdminRoutesAllNeedTheToken(t *testing.T) {
	srv := studyServerFor(t, newFakeStudy("AB12"), realtime.NewHost(nil, nil))
	for _, r := range []struct{ method, path, body string }{
		{"GET", StudyAdminPath + "state", ""},
		{"POST", StudyAdminPath + "command", `{"action":"start"}`},
		{"GET", StudyAdminPath + "spectate", ""},
		{"GET", StudyAdminPath + "map", ""},
	} {
		if code, body := call(t, srv, r.method, r.path, r.body); code != 401 {
			t.Errorf("%s %s without the token: %d %s, want 401", r.method, r.path, code, body)
		}
	}
	for _, p := range []string{"/api/matches", "/api/matches/1", "/debug/pprof/", "/metrics"} {
		if code, _ := call(t, srv, "GET", p, ""); code != 404 {
			t.Errorf("GET %s on a study's listener: %d, want 404", p, code)
		}
	}
}

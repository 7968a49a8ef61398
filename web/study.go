package web

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/world"
)

// Paths of a live study (Options.Study). The participant's endpoints take
// the participant code; the admin's (under StudyAdminPath) take the
// admin token as "Authorization: Bearer TOKEN" and answer 401 without it.
const (
	// StudyJoinPath: POST {"code": CODE} returns the study.Admission
	// (its token in base64).
	StudyJoinPath = "/lagkit/study/join"
	// StudyStatusPath: GET ?code=CODE returns the participant's
	// StudyStatus.
	StudyStatusPath = "/lagkit/study/status"
	// StudyQuestionsPath: GET ?code=CODE returns the questionnaire the
	// participant has yet to answer (StudyQuestionnaire), or 204 when
	// none waits.
	StudyQuestionsPath = "/lagkit/study/questions"
	// StudyAnswersPath: POST {"code", "round", "answers": [{"question",
	// "value", "text"}]} records the answers (204).
	StudyAnswersPath = "/lagkit/study/answers"
	// StudyConsentPath: GET ?code=CODE returns the study's consent
	// ({"text", "agree"}: the text and its button's label), or 204 when
	// it has none; POST {"code", "client": study.ClientInfo} records the
	// participant's agreement (204), for a study whose Control is a
	// study.Consenter. Until then joining answers 403.
	StudyConsentPath = "/lagkit/study/consent"
	// StudyFramesPath: POST {"code", "frames": study.FrameStats} records
	// how the page drew a round (204), for a study whose Control is a
	// study.FrameReporter.
	StudyFramesPath = "/lagkit/study/frames"
	// StudyReadyPath: POST {"code"} presses the seat's ready button
	// (204), for a study whose Control is a study.Readier.
	StudyReadyPath = "/lagkit/study/ready"
	// StudyAdminPath prefixes the admin's endpoints: GET state (the
	// AdminState), POST command (a study.Command, 204), GET spectate
	// (?since=SEQ: the realtime.View of the round's match, with the hits
	// after SEQ), GET map (the round's map file). Spectate and map
	// answer 204 between rounds, including a round whose match has
	// just ended while the page's last state still names it.
	StudyAdminPath = "/lagkit/study/admin/"
	// AdminPagePath is the admin page; it reads the admin token from
	// its URL's fragment (#token=TOKEN), which browsers never send.
	AdminPagePath = "/admin"
)

// maxStudyBody bounds a request body: a questionnaire's answers, at most
// study.MaxQuestions of them with their free text, fit well within it.
const maxStudyBody = 64 << 10

// StudyStatus is what a participant's page polls: where the study is,
// without the round's technique or name (participants are blind to the
// condition, and a round's name is for the logs).
type StudyStatus struct {
	Study      string  `json:"study"`
	Phase      string  `json:"phase"`
	Round      int     `json:"round"`
	Rounds     int     `json:"rounds"`
	Map        string  `json:"map"`
	RemainingS float64 `json:"remaining_s"`
	// Match is the match playing the round ("" between rounds): a page
	// playing another match joins again.
	Match string `json:"match"`
	Seat  int    `json:"seat"`
	// Answered reports whether the seat answered the last round's
	// questionnaire; Pending whether one (the intake, or the
	// questionnaire after a round) waits for it.
	Answered bool `json:"answered"`
	Pending  bool `json:"pending"`
	// Consent reports that the participant has yet to agree to the
	// study's consent text (StudyConsentPath) before playing; Intake
	// that the questionnaire pending is the intake, put before the
	// first round (in any phase).
	Consent bool `json:"consent"`
	Intake  bool `json:"intake"`
	// Frames reports that the study keeps each page's frame times
	// (StudyFramesPath).
	Frames bool `json:"frames"`
	// Left says why a bot took the seat (the participant left
	// mid-match and did not come back in time); LeftCode whether the
	// study's lobby gives them a completion code for the part played.
	Left     string `json:"left,omitempty"`
	LeftCode bool   `json:"left_code,omitempty"`
}

// AdminState is the study's state for the admin page: study.LiveState
// with the time remaining in seconds.
type AdminState struct {
	study.LiveState
	RemainingS float64 `json:"remaining_s"`
}

// StudyQuestionnaire is a questionnaire as the page gets it (without the
// round's name, as StudyStatus).
type StudyQuestionnaire struct {
	Round int `json:"round"`
	// Stage is intake (Round -1: once, before the first round) or round
	// (after round Round; after the last, with the final questions).
	Stage     string          `json:"stage"`
	Questions []StudyQuestion `json:"questions"`
}

// StudyQuestion is one question: Kind is yesno, likert (1 to 5),
// likert7 (1 to 7), fairness (-5 to 5), scale (Min to Max), number (Min
// to Max), choice (one of Choices: the answer's value is its place from
// 0) or text. Stage is round, intake or final; Anchors label the low and
// high ends of a scale.
type StudyQuestion struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Kind    string    `json:"kind"`
	Stage   string    `json:"stage"`
	Min     int       `json:"min"`
	Max     int       `json:"max"`
	Choices []string  `json:"choices,omitempty"`
	Anchors [2]string `json:"anchors"`
}

// studyAnswers is the body of StudyAnswersPath.
type studyAnswers struct {
	Code    string           `json:"code"`
	Round   *int             `json:"round"`
	Answers []study.Response `json:"answers"`
}

// studyHandlers adds a live study's endpoints and the admin page to mux.
func studyHandlers(mux *http.ServeMux, o Options) {
	s := &studyServer{c: o.Study, host: o.Host, guesses: newGuesses()}
	if o.AdminToken != "" {
		sum := sha256.Sum256([]byte(o.AdminToken))
		s.admin = sum[:]
	}
	mux.HandleFunc("POST "+StudyJoinPath, s.join)
	mux.HandleFunc("GET "+StudyStatusPath, s.status)
	mux.HandleFunc("GET "+StudyQuestionsPath, s.questions)
	mux.HandleFunc("POST "+StudyAnswersPath, s.answers)
	mux.HandleFunc("POST "+StudyReadyPath, s.ready)
	mux.HandleFunc("GET "+StudyConsentPath, s.consentText)
	mux.HandleFunc("POST "+StudyConsentPath, s.consent)
	mux.HandleFunc("POST "+StudyFramesPath, s.frames)
	mux.HandleFunc("GET "+StudyAdminPath+"state", s.authed(s.state))
	mux.HandleFunc("POST "+StudyAdminPath+"command", s.authed(s.command))
	mux.HandleFunc("GET "+StudyAdminPath+"spectate", s.authed(s.spectate))
	mux.HandleFunc("GET "+StudyAdminPath+"map", s.authed(s.matchMap))
	page := newAsset(mustRead("shell/admin.html"), "text/html; charset=utf-8")
	mux.HandleFunc("GET "+AdminPagePath, func(w http.ResponseWriter, r *http.Request) { serve(w, r, page) })
	mux.HandleFunc("GET "+AdminScriptPath, serveBundle(adminScript))
}

type studyServer struct {
	c       study.Control
	host    *realtime.Host
	admin   []byte // SHA-256 of the admin token; nil: no admin
	guesses *guesses
}

// tryCode checks a participant code's form and that r's address has not
// tried too many codes that fit no seat (429).
func (s *studyServer) tryCode(w http.ResponseWriter, r *http.Request, code string) bool {
	if !checkCode(w, code) {
		return false
	}
	if !s.guesses.allowed(r) {
		w.Header().Set("Retry-After", "60")
		studyError(w, http.StatusTooManyRequests, "too many participant codes that fit no seat from this address; try again in a minute")
		return false
	}
	return true
}

// controlError answers err, charging r's address for an unknown code.
func (s *studyServer) controlError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, study.ErrUnknownCode) {
		s.guesses.missed(r)
	}
	controlError(w, err)
}

// authed wraps an admin endpoint: the request must carry the admin token
// as a bearer token. Both sides are hashed first, so the comparison takes
// the same time whatever the token's length.
func (s *studyServer) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(given)))
		if s.admin == nil || !ok || subtle.ConstantTimeCompare(sum[:], s.admin) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lagkit study admin"`)
			studyError(w, http.StatusUnauthorized, "the admin token is missing or wrong")
			return
		}
		h(w, r)
	}
}

func (s *studyServer) join(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code string `json:"code"`
		// Client, when given, is what the page reports of its browser
		// on joining: recorded for a study.Consenter.
		Client *study.ClientInfo `json:"client"`
	}
	if !decode(w, r, &req) || !s.tryCode(w, r, req.Code) {
		return
	}
	a, err := s.c.Join(req.Code)
	if err != nil {
		s.controlError(w, r, err)
		return
	}
	if cs, ok := s.c.(study.Consenter); ok && req.Client != nil && a.Match != "" {
		if err := cs.ReportClient(req.Code, *req.Client); err != nil {
			s.controlError(w, r, err)
			return
		}
	}
	writeJSON(w, a)
}

// consentText answers the study's consent text and its button's label.
func (s *studyServer) consentText(w http.ResponseWriter, r *http.Request) {
	if _, _, _, ok := s.participant(w, r); !ok {
		return
	}
	cs, ok := s.c.(study.Consenter)
	text, agree := "", ""
	if ok {
		text, agree = cs.ConsentText()
	}
	if text == "" {
		noRound(w)
		return
	}
	writeJSON(w, struct {
		Text  string `json:"text"`
		Agree string `json:"agree"`
	}{text, agree})
}

// frames records how the participant's page drew a round.
func (s *studyServer) frames(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code   string            `json:"code"`
		Frames *study.FrameStats `json:"frames"`
	}
	if !decode(w, r, &req) || !s.tryCode(w, r, req.Code) {
		return
	}
	fr, ok := s.c.(study.FrameReporter)
	if !ok {
		studyError(w, http.StatusNotImplemented, "this study keeps no frame times")
		return
	}
	if req.Frames == nil {
		studyError(w, http.StatusBadRequest, `want {"code", "frames": {"round", "frames", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"}}`)
		return
	}
	if err := fr.ReportFrames(req.Code, *req.Frames); err != nil {
		s.controlError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// consent records the participant's agreement to the consent text.
func (s *studyServer) consent(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code   string            `json:"code"`
		Client *study.ClientInfo `json:"client"`
	}
	if !decode(w, r, &req) || !s.tryCode(w, r, req.Code) {
		return
	}
	cs, ok := s.c.(study.Consenter)
	if !ok {
		studyError(w, http.StatusNotImplemented, "this study has no consent screen")
		return
	}
	if req.Client == nil {
		req.Client = &study.ClientInfo{}
	}
	if err := cs.Agree(req.Code, *req.Client); err != nil {
		s.controlError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// participant reads and checks the code of a GET's query, and finds its
// seat in st.
func (s *studyServer) participant(w http.ResponseWriter, r *http.Request) (string, study.LiveState, int, bool) {
	code := r.URL.Query().Get("code")
	if !s.tryCode(w, r, code) {
		return "", study.LiveState{}, 0, false
	}
	st := s.c.State()
	for i, seat := range st.Seats {
		// A seat a bot took from its person still answers the
		// person's page: it says so (Left).
		if (!seat.Bot || seat.Left != "") && study.SameCode(seat.Code, code) {
			return code, st, i, true
		}
	}
	s.controlError(w, r, study.ErrUnknownCode)
	return "", st, 0, false
}

func (s *studyServer) status(w http.ResponseWriter, r *http.Request) {
	code, st, i, ok := s.participant(w, r)
	if !ok {
		return
	}
	q, pending := s.c.Pending(code)
	needs := false
	if cs, ok := s.c.(study.Consenter); ok {
		needs = cs.NeedsConsent(code)
	}
	_, frames := s.c.(study.FrameReporter)
	writeJSON(w, StudyStatus{Consent: needs, Frames: frames, Intake: pending && q.Stage == record.StageIntake,
		Study: st.Study, Phase: st.Phase, Round: st.Round, Rounds: st.Rounds, Map: st.Map,
		RemainingS: time.Duration(st.Remaining).Seconds(), Match: st.Match,
		Seat: st.Seats[i].Seat, Answered: st.Seats[i].Answered, Pending: pending, Left: st.Seats[i].Left, LeftCode: st.Seats[i].LeftCode,
	})
}

func (s *studyServer) questions(w http.ResponseWriter, r *http.Request) {
	code, _, _, ok := s.participant(w, r)
	if !ok {
		return
	}
	q, ok := s.c.Pending(code)
	if !ok {
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := StudyQuestionnaire{Round: q.Round, Stage: cmp.Or(q.Stage, record.StageRound), Questions: make([]StudyQuestion, len(q.Questions))}
	for i, x := range q.Questions {
		lo, hi := x.Bounds()
		low, high := x.AnchorLabels()
		out.Questions[i] = StudyQuestion{ID: x.ID, Text: x.Text, Kind: x.Kind, Stage: cmp.Or(x.Stage, record.StageRound), Min: lo, Max: hi,
			Choices: x.Choices, Anchors: [2]string{low, high}}
	}
	writeJSON(w, out)
}

func (s *studyServer) answers(w http.ResponseWriter, r *http.Request) {
	var req studyAnswers
	if !decode(w, r, &req) || !s.tryCode(w, r, req.Code) {
		return
	}
	if req.Round == nil || len(req.Answers) == 0 || len(req.Answers) > study.MaxQuestions {
		studyError(w, http.StatusBadRequest, fmt.Sprintf(`want {"code", "round", "answers": [...]} with 1 to %d answers`, study.MaxQuestions))
		return
	}
	if err := s.c.Answer(req.Code, *req.Round, req.Answers); err != nil {
		s.controlError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *studyServer) ready(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code string `json:"code"`
	}
	if !decode(w, r, &req) || !s.tryCode(w, r, req.Code) {
		return
	}
	rd, ok := s.c.(study.Readier)
	if !ok {
		studyError(w, http.StatusNotImplemented, "this study has no ready button")
		return
	}
	if err := rd.Ready(req.Code); err != nil {
		s.controlError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *studyServer) state(w http.ResponseWriter, r *http.Request) {
	st := s.c.State()
	writeJSON(w, AdminState{LiveState: st, RemainingS: time.Duration(st.Remaining).Seconds()})
}

func (s *studyServer) command(w http.ResponseWriter, r *http.Request) {
	var c study.Command
	if !decode(w, r, &c) {
		return
	}
	switch c.Action {
	case study.ActionStart, study.ActionPause, study.ActionResume, study.ActionSkip, study.ActionEnd:
		if c.Extend != 0 {
			studyError(w, http.StatusBadRequest, "extend goes only with the extend action")
			return
		}
	case study.ActionExtend:
		if c.Extend <= 0 || time.Duration(c.Extend) > study.MaxExtend {
			studyError(w, http.StatusBadRequest, fmt.Sprintf(`extend wants "extend": a duration such as "1m", above 0 and at most %v`, study.MaxExtend))
			return
		}
	default:
		studyError(w, http.StatusBadRequest, fmt.Sprintf("unknown action %q: want start, pause, resume, skip, extend or end", c.Action))
		return
	}
	if err := s.c.Command(c); err != nil {
		controlError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// roundMatch returns the match playing the study's round; between
// rounds it answers 204.
func (s *studyServer) roundMatch(w http.ResponseWriter) (*realtime.Match, bool) {
	if s.host == nil {
		studyError(w, http.StatusNotImplemented, "this server cannot be spectated")
		return nil, false
	}
	id := s.c.State().Match
	m, ok := s.host.Match(id)
	if id == "" || !ok {
		noRound(w)
		return nil, false
	}
	return m, true
}

// noRound answers that no round's match is being played: no content,
// which a page polling through a round's end expects.
func noRound(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

func (s *studyServer) spectate(w http.ResponseWriter, r *http.Request) {
	var since uint64
	if q := r.URL.Query().Get("since"); q != "" {
		var err error
		if since, err = strconv.ParseUint(q, 10, 64); err != nil {
			studyError(w, http.StatusBadRequest, "since wants a rewind's seq")
			return
		}
	}
	m, ok := s.roundMatch(w)
	if !ok {
		return
	}
	v, err := m.View(since)
	if err != nil {
		noRound(w) // the match ended since roundMatch found it
		return
	}
	writeJSON(w, v)
}

func (s *studyServer) matchMap(w http.ResponseWriter, r *http.Request) {
	m, ok := s.roundMatch(w)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(world.Encode(m.MapFile()))
}

// decode reads a JSON request body of at most maxStudyBody bytes into v,
// answering 400 or 413 when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxStudyBody))
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			studyError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", maxStudyBody))
			return false
		}
		studyError(w, http.StatusBadRequest, "request body is not the JSON wanted: "+err.Error())
		return false
	}
	return true
}

// maxCode bounds a participant code; a schedule's are shorter.
const maxCode = 64

func checkCode(w http.ResponseWriter, code string) bool {
	if code == "" || len(code) > maxCode {
		studyError(w, http.StatusBadRequest, fmt.Sprintf("want a participant code of 1 to %d bytes", maxCode))
		return false
	}
	return true
}

// controlError answers an error of study.Control with its status.
func controlError(w http.ResponseWriter, err error) {
	code := http.StatusConflict // the study is not in a state to do it
	switch {
	case errors.Is(err, study.ErrUnknownCode):
		code = http.StatusNotFound
	case errors.Is(err, study.ErrAnswered), errors.Is(err, study.ErrNoQuestions):
		code = http.StatusConflict
	case errors.Is(err, study.ErrEnded), errors.Is(err, study.ErrStoodIn):
		code = http.StatusGone
	case errors.Is(err, study.ErrNoConsent):
		code = http.StatusForbidden
	case errors.Is(err, study.ErrInvalid):
		code = http.StatusBadRequest
	}
	studyError(w, code, err.Error())
}

// studyError answers {"error": msg} with status code.
func studyError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

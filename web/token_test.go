package web

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTokenPath checks the page's token URL: a handler with Tokens issues
// one for the player named, refuses a request without a name, and passes
// the issuer's refusal on; a handler without answers with an empty
// token: none needed.
func TestTokenPath(t *testing.T) {
	issued := ""
	h := HandlerWith(Options{Tokens: func(player string) ([]byte, error) {
		if player == "late" {
			return nil, errors.New("no match is running")
		}
		issued = player
		return []byte{0, 1, 2, 0xff}, nil
	}})
	post := func(h http.Handler, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, TokenPath, strings.NewReader(body)))
		return w
	}
	w := post(h, `{"player":"alice"}`)
	var out struct{ Token string }
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &out) != nil {
		t.Fatalf("POST %s: %d %s", TokenPath, w.Code, w.Body)
	}
	if b, err := base64.StdEncoding.DecodeString(out.Token); err != nil || string(b) != "\x00\x01\x02\xff" || issued != "alice" {
		t.Errorf("token %q for %q, want the issuer's bytes for alice", out.Token, issued)
	}
	// The endpoint reads the request as lagkit serve's API does
	// (realtime.DecodeTokenRequest).
	for body, want := range map[string]struct {
		code int
		msg  string
	}{
		`{}`:                             {400, `body:1:1: player: missing: want {"player": NAME}`},
		`nonsense`:                       {400, "body:1:2: invalid character 'o' in literal null (expecting 'u')"},
		`null`:                           {400, "body:1:1: want an object, got null"},
		`["alice"]`:                      {400, "body:1:1: want an object, got an array"},
		`{"player":"alice","match":"2"}`: {400, `body:1:19: match: unknown field (the only one here is player)`},
		`{"player":"a\u0007b"}`:          {400, `body:1:11: player: "a\ab" has a control character`},
		`{"player":"` + strings.Repeat("x", 33) + `"}`: {400, "body:1:11: player: 33 bytes, want 1 to 32"},
		`{"player":"late"}`:                            {409, "no match is running"},
	} {
		if w := post(h, body); w.Code != want.code || strings.TrimSpace(w.Body.String()) != want.msg {
			t.Errorf("POST %s: %d %q, want %d %q", body, w.Code, w.Body, want.code, want.msg)
		}
	}
	if w := post(Handler(), `{"player":"alice"}`); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"token":""}` {
		t.Errorf("without Tokens: %d %s, want an empty token", w.Code, w.Body)
	}
}

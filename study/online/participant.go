package online

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Participant speaks a participant's side of the lobby's protocol as the
// join page does: arrive with the platform's ids, echo the lobby's
// round-trip pings, report the prescreen, poll the status until a match
// or the end. A rehearsal's headless participants and the tests use it.
type Participant struct {
	// Base is the lobby's URL (http://HOST:PORT).
	Base string
	// ID, Study and Session are the ids the join link carries.
	ID, Study, Session string
	// HTTP is the client (nil: http.DefaultClient).
	HTTP *http.Client
	// From, when valid, is sent as X-Forwarded-For: the address a lobby
	// behind a proxy (Config.TrustProxy) takes the participant to come
	// from. A rehearsal gives each headless participant its own.
	From netip.Addr
}

// AnswerError is a lobby's refusal: its HTTP status and what it said.
type AnswerError struct {
	Status int
	Msg    string
}

func (e *AnswerError) Error() string { return fmt.Sprintf("lobby: %d: %s", e.Status, e.Msg) }

func (p *Participant) client() *http.Client {
	if p.HTTP != nil {
		return p.HTTP
	}
	return http.DefaultClient
}

// do sends a request and decodes a 200's JSON into v; another status
// is an *AnswerError.
func (p *Participant) do(ctx context.Context, method, path string, body, v any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.Base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.From.IsValid() {
		req.Header.Set("X-Forwarded-For", p.From.String())
	}
	r, err := p.client().Do(req)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return err
	}
	if r.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return &AnswerError{Status: r.StatusCode, Msg: e.Error}
	}
	return json.Unmarshal(b, v)
}

// Arrive announces the participant to the lobby.
func (p *Participant) Arrive(ctx context.Context) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodPost, "/lobby/arrive", map[string]string{"id": p.ID, "study": p.Study, "session": p.Session}, &st)
	return st, err
}

// Consent agrees to the study's consent text, as the page's button
// does; a lobby with a consent text admits no one to the prescreen
// before it.
func (p *Participant) Consent(ctx context.Context) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodPost, "/lobby/consent", map[string]string{"id": p.ID}, &st)
	return st, err
}

// Ping echoes the lobby's round-trip pings, as the page does, and
// returns the round trip the lobby measured.
func (p *Participant) Ping(ctx context.Context) (time.Duration, error) {
	u := "ws" + strings.TrimPrefix(p.Base, "http") + "/lobby/ping?id=" + url.QueryEscape(p.ID)
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: p.client()})
	if err != nil {
		return 0, err
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 10)
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return 0, fmt.Errorf("lobby: the round trip's measurement: %w", err)
		}
		if typ == websocket.MessageText {
			var v struct {
				RTTms float64 `json:"rtt_ms"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				return 0, err
			}
			return time.Duration(v.RTTms * float64(time.Millisecond)), nil
		}
		if err := c.Write(ctx, typ, b); err != nil {
			return 0, err
		}
	}
}

// Screen is what the page reports of its browser at the prescreen.
type Screen struct {
	FPS         float64 `json:"fps"`
	RefreshHz   float64 `json:"refresh_hz"`
	PointerLock bool    `json:"pointer_lock"`
}

// Prescreen reports the browser's prescreen; the lobby adds the round
// trip it measured (Ping first).
func (p *Participant) Prescreen(ctx context.Context, s Screen) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodPost, "/lobby/prescreen", struct {
		ID string `json:"id"`
		Screen
	}{p.ID, s}, &st)
	return st, err
}

// Status asks where the participant stands; the page asks every second,
// and a waiting participant who stops asking for Gone has left.
func (p *Participant) Status(ctx context.Context) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodGet, "/lobby/status?id="+url.QueryEscape(p.ID), nil, &st)
	return st, err
}

// Until asks the status every period until done says so, and returns
// that status; ctx bounds the wait.
func (p *Participant) Until(ctx context.Context, period time.Duration, done func(Status) bool) (Status, error) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		st, err := p.Status(ctx)
		if err != nil || done(st) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("lobby: %s still %s: %w", p.ID, st.State, ctx.Err())
		case <-t.C:
		}
	}
}

// Leave tells the lobby the participant left, and why.
func (p *Participant) Leave(ctx context.Context, reason string) error {
	var v map[string]bool
	return p.do(ctx, http.MethodPost, "/lobby/leave", map[string]string{"id": p.ID, "reason": reason}, &v)
}

// Verify asks the lobby whether code is participant id's completion
// code.
func (p *Participant) Verify(ctx context.Context, code string) (bool, error) {
	var v struct {
		Valid bool `json:"valid"`
	}
	err := p.do(ctx, http.MethodPost, "/lobby/verify", map[string]string{"id": p.ID, "code": code}, &v)
	return v.Valid, err
}

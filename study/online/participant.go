package online

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/transport"
)

// Participant speaks a participant's side of the lobby's protocol as the
// join page does: arrive with the platform's ids, answer the game server
// hosts' round-trip probes, report the prescreen, poll the status until a match
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
	// Transport is what the round trip is measured over: "wt", "ws",
	// or "" for WebTransport and then WebSocket, as the game's link.
	Transport string
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
// is an *AnswerError, and a 409's JSON is decoded into v too (an
// arrival of one who took part already says where they stand).
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
		if r.StatusCode == http.StatusConflict && v != nil {
			_ = json.Unmarshal(b, v)
		}
		return &AnswerError{Status: r.StatusCode, Msg: e.Error}
	}
	return json.Unmarshal(b, v)
}

// Arrive announces the participant to the lobby. One who took part
// already gets an *AnswerError (409) and where they stand: the
// completion code again, the refusal's reason, the dropout's answer.
func (p *Participant) Arrive(ctx context.Context) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodPost, "/lobby/arrive", map[string]string{"id": p.ID, "study": p.Study, "session": p.Session}, &st)
	return st, err
}

// Measure has the participant's round trip measured as the page does:
// it asks the lobby for the game server hosts and its probe ticket, and
// answers each host's probe (package probe) over the game's transport
// (Transport, else WebTransport and then WebSocket as the game's link
// tries them). It returns the best round trip the hosts measured and
// told it; the lobby keeps its own copy, from the hosts, or, from a host
// that seals its results (an Agones Fleet's game server), from the
// sealed result handed on as the page does (POST /lobby/probe).
func (p *Participant) Measure(ctx context.Context) (time.Duration, error) {
	var cfg struct {
		Probes []ProbeHost `json:"probes"`
	}
	if err := p.do(ctx, http.MethodGet, "/lobby/config", nil, &cfg); err != nil {
		return 0, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return 0, err
	}
	if st.Probe == "" {
		return 0, fmt.Errorf("lobby: %s is %s, not at the prescreen", p.ID, st.State)
	}
	if len(cfg.Probes) == 0 {
		return 0, errors.New("lobby: no game server host to measure the round trip to")
	}
	best, errs := time.Duration(-1), []error(nil)
	for _, h := range cfg.Probes {
		rtt, seal, err := p.measure(ctx, h, st.Probe)
		if err == nil && seal != "" {
			err = p.HandOn(ctx, SealedProbe{ID: p.ID, Host: h.Host, RTTus: rtt.Microseconds(), Seal: seal})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", h.Host, err))
			continue
		}
		if best < 0 || rtt < best {
			best = rtt
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("lobby: the round trip could not be measured: %w", errors.Join(errs...))
	}
	return best, nil
}

// measure measures host h over the participant's transport.
func (p *Participant) measure(ctx context.Context, h ProbeHost, ticket string) (time.Duration, string, error) {
	schemes := []string{"wt", "wss"}
	switch p.Transport {
	case "":
	case "wt", "ws":
		schemes = []string{map[string]string{"wt": "wt", "ws": "wss"}[p.Transport]}
	default:
		return 0, "", fmt.Errorf("lobby: transport %q: want wt or ws", p.Transport)
	}
	var err error
	for _, sc := range schemes {
		var c transport.Conn
		if c, err = transport.Dial(ctx, sc+"://"+h.Host, transport.DialOptions{TLS: transport.ClientTLS{CertHash: h.CertHash}}); err != nil {
			continue
		}
		var rtt time.Duration
		var seal string
		rtt, seal, err = probe.MeasureSealed(ctx, c, ticket)
		c.Close("measured")
		if err == nil {
			return rtt, seal, nil
		}
	}
	return 0, "", err
}

// HandOn hands a host's sealed result on to the lobby, as the page does.
func (p *Participant) HandOn(ctx context.Context, r SealedProbe) error {
	var v map[string]float64
	return p.do(ctx, http.MethodPost, "/lobby/probe", r, &v)
}

// Consent agrees to the study's consent text, as the page's button
// does.
func (p *Participant) Consent(ctx context.Context) (Status, error) {
	var st Status
	err := p.do(ctx, http.MethodPost, "/lobby/consent", map[string]string{"id": p.ID}, &st)
	return st, err
}

// Screen is what the page reports of its browser at the prescreen.
type Screen struct {
	FPS         float64 `json:"fps"`
	RefreshHz   float64 `json:"refresh_hz"`
	PointerLock bool    `json:"pointer_lock"`
}

// Prescreen reports the browser's prescreen; the lobby adds the round
// trip the hosts' probes measured (Measure first).
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

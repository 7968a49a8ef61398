package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Options tune a Client. Zero values take the defaults.
type Options struct {
	// HTTP is the client calls go through (default: one with a 10 s
	// timeout per request, none for the watch stream).
	HTTP *http.Client
	// Wait is how long a call keeps retrying while the SDK server cannot
	// be reached or answers that it is unavailable (default 30 s): Agones
	// starts the sidecar beside the game server, not before it, so the
	// first calls may find nobody (Agones, REST SDK guide).
	Wait time.Duration
	// Backoff is the first pause between attempts (default 100 ms); it
	// doubles up to MaxBackoff (default 2 s).
	Backoff, MaxBackoff time.Duration
}

// Client calls the SDK server's REST gateway. Its methods are safe for
// concurrent use.
type Client struct {
	base   string
	http   *http.Client
	stream *http.Client
	opt    Options
}

// maxBody bounds what is read of one answer, and of one message of the
// watch stream: a GameServer with its labels and annotations is a few
// KiB.
const maxBody = 1 << 20

// New returns a client of the SDK server at base ("http://localhost:9358").
func New(base string, opt Options) *Client {
	if opt.Wait <= 0 {
		opt.Wait = 30 * time.Second
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 100 * time.Millisecond
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 2 * time.Second
	}
	c := &Client{base: strings.TrimRight(base, "/"), http: opt.HTTP, stream: opt.HTTP, opt: opt}
	if c.http == nil {
		c.http = &http.Client{Timeout: 10 * time.Second}
		c.stream = &http.Client{}
	}
	return c
}

// NewFromEnv returns a client of the SDK server found as Agones' SDKs
// find it (AddrFromEnv).
func NewFromEnv(opt Options) (*Client, error) {
	base, err := AddrFromEnv()
	if err != nil {
		return nil, err
	}
	return New(base, opt), nil
}

// Base returns the SDK server's address.
func (c *Client) Base() string { return c.base }

// Ready marks the GameServer ready to take players.
func (c *Client) Ready(ctx context.Context) error {
	return c.call(ctx, "POST", "/ready", struct{}{}, nil)
}

// Health declares the game server healthy.
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, "POST", "/health", struct{}{}, nil)
}

// Allocate marks the GameServer allocated.
func (c *Client) Allocate(ctx context.Context) error {
	return c.call(ctx, "POST", "/allocate", struct{}{}, nil)
}

// Reserve marks the GameServer reserved for d (whole seconds; 0 keeps it
// reserved until something else changes its state).
func (c *Client) Reserve(ctx context.Context, d time.Duration) error {
	return c.call(ctx, "POST", "/reserve", struct {
		Seconds Int64 `json:"seconds"`
	}{Int64(d / time.Second)}, nil)
}

// Shutdown asks Agones to shut the GameServer down.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, "POST", "/shutdown", struct{}{}, nil)
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SetLabel sets the label "agones.dev/sdk-"+key; it refuses a key or
// value Kubernetes would (CheckLabel) before asking.
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	if err := CheckLabel(key, value); err != nil {
		return err
	}
	return c.call(ctx, "PUT", "/metadata/label", keyValue{key, value}, nil)
}

// SetAnnotation sets the annotation "agones.dev/sdk-"+key.
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	if err := CheckLabel(key, ""); err != nil {
		return err
	}
	return c.call(ctx, "PUT", "/metadata/annotation", keyValue{key, value}, nil)
}

// GameServer returns the GameServer as Agones sees it now.
func (c *Client) GameServer(ctx context.Context) (*GameServer, error) {
	var gs GameServer
	if err := c.call(ctx, "GET", "/gameserver", nil, &gs); err != nil {
		return nil, err
	}
	return &gs, nil
}

type count struct {
	Count Int64 `json:"count"`
}

type playerID struct {
	PlayerID string `json:"playerID"`
}

type boolResult struct {
	Bool bool `json:"bool"`
}

// SetPlayerCapacity sets how many players the GameServer holds (alpha
// player tracking).
func (c *Client) SetPlayerCapacity(ctx context.Context, n int64) error {
	if n < 0 {
		return fmt.Errorf("agones: player capacity %d: want 0 or more", n)
	}
	return c.call(ctx, "PUT", "/alpha/player/capacity", count{Int64(n)}, nil)
}

// PlayerCapacity returns the player capacity last set.
func (c *Client) PlayerCapacity(ctx context.Context) (int64, error) {
	var n count
	err := c.call(ctx, "GET", "/alpha/player/capacity", nil, &n)
	return int64(n.Count), err
}

// PlayerCount returns how many players are connected.
func (c *Client) PlayerCount(ctx context.Context) (int64, error) {
	var n count
	err := c.call(ctx, "GET", "/alpha/player/count", nil, &n)
	return int64(n.Count), err
}

// PlayerConnect records a player's arrival: false if id was already
// connected; an error if the GameServer is at capacity.
func (c *Client) PlayerConnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/connect", id)
}

// PlayerDisconnect records a player's departure: false if id was not
// connected.
func (c *Client) PlayerDisconnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/disconnect", id)
}

func (c *Client) player(ctx context.Context, path, id string) (bool, error) {
	if id == "" {
		return false, fmt.Errorf("agones: %s: empty player ID", path)
	}
	var r boolResult
	err := c.call(ctx, "POST", path, playerID{id}, &r)
	return r.Bool, err
}

// WatchGameServer calls fn with the GameServer each time the SDK server
// sends it (once at once, then on every change), until ctx is done (it
// then returns nil) or the stream ends or fails (an error). Opening the
// stream retries as every call does.
func (c *Client) WatchGameServer(ctx context.Context, fn func(*GameServer)) error {
	var body io.ReadCloser
	err := c.retry(ctx, "GET", "/watch/gameserver", func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/watch/gameserver", nil)
		if err != nil {
			return false, err
		}
		resp, err := c.stream.Do(req)
		if err != nil {
			return true, err
		}
		if err := answerError(resp, "GET", "/watch/gameserver"); err != nil {
			return retryable(resp.StatusCode), err
		}
		body = resp.Body
		return false, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer body.Close()
	// The gateway writes one JSON object per line: {"result": GameServer}
	// or {"error": ...}.
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxBody)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var msg struct {
			Result *GameServer `json:"result"`
			Error  *struct {
				HTTPCode int    `json:"http_code"`
				Code     int    `json:"code"`
				Message  string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return fmt.Errorf("agones: GET /watch/gameserver: %w", err)
		}
		if msg.Error != nil {
			return &StatusError{Method: "GET", Path: "/watch/gameserver", Code: msg.Error.HTTPCode, Message: msg.Error.Message}
		}
		if msg.Result != nil {
			fn(msg.Result)
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("agones: GET /watch/gameserver: %w", err)
	}
	return errors.New("agones: GET /watch/gameserver: the SDK server ended the stream")
}

// call sends in (nil: no body) to path and decodes the answer into out
// (nil: the answer is discarded), retrying while the SDK server cannot
// be reached.
func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	return c.retry(ctx, method, path, func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
		if err != nil {
			return false, err
		}
		if in != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		if err := answerError(resp, method, path); err != nil {
			return retryable(resp.StatusCode), err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		if err != nil {
			return true, err
		}
		if len(data) > maxBody {
			return false, fmt.Errorf("agones: %s %s: answer over %d bytes", method, path, maxBody)
		}
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return false, fmt.Errorf("agones: %s %s: answer %q: %w", method, path, clip(data), err)
			}
		}
		return false, nil
	})
}

// retryable reports whether an answer with this status may go away by
// itself: the gateway's gRPC Unavailable and a proxy's bad gateway.
func retryable(code int) bool {
	return code == http.StatusServiceUnavailable || code == http.StatusBadGateway || code == http.StatusGatewayTimeout
}

// retry runs attempt until it succeeds, fails for good, ctx is done, or
// the client's Wait has passed, pausing with exponential backoff.
func (c *Client) retry(ctx context.Context, method, path string, attempt func() (again bool, err error)) error {
	start := time.Now()
	pause := c.opt.Backoff
	for n := 1; ; n++ {
		again, err := attempt()
		if err == nil || !again {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, ctx.Err())
		}
		waited := time.Since(start)
		if waited+pause > c.opt.Wait {
			var se *StatusError
			if errors.As(err, &se) {
				return err
			}
			return &unreachableError{url: c.base + path, attempts: n, waited: waited, last: err}
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("agones: %s %s: %w", method, path, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, c.opt.MaxBackoff)
	}
}

// answerError returns the SDK server's refusal in resp, or nil for a 2xx
// answer.
func answerError(resp *http.Response, method, path string) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	// The gateway's error body is {"code": gRPC code, "message": ...}
	// ("error" in older gateways).
	var e struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	msg := strings.TrimSpace(string(clip(data)))
	if json.Unmarshal(data, &e) == nil && (e.Message != "" || e.Error != "") {
		msg = e.Message
		if msg == "" {
			msg = e.Error
		}
	}
	return &StatusError{Method: method, Path: path, Code: resp.StatusCode, Message: msg}
}

// clip shortens an answer quoted in an error.
func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(b[:200:200], "..."...)
	}
	return b
}

// Package agones lets a game server talk to the Agones SDK server, the
// sidecar Agones runs beside every GameServer, through its REST gateway:
// lifecycle (Ready, Health, Allocate, Reserve, Shutdown), labels and
// annotations, the GameServer and its changes, and alpha player tracking.
// Agones' own SDKs speak gRPC to the same sidecar; this client needs
// only net/http and finds the sidecar as they do.
package agones

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"
)

// DefaultPort is the SDK server's REST port when AGONES_SDK_HTTP_PORT is
// not set (Agones' documented default).
const DefaultPort = 9358

// PortEnv is the environment variable Agones sets in a game server's
// container to the SDK server's REST port.
const PortEnv = "AGONES_SDK_HTTP_PORT"

// SDK is what a game server asks of Agones. *Client implements it
// against the SDK server; tests may use any other implementation.
type SDK interface {
	// Ready marks the GameServer ready to take players.
	Ready(ctx context.Context) error
	// Health declares the game server healthy; Agones expects one within
	// every health period (spec.health.periodSeconds).
	Health(ctx context.Context) error
	// Allocate marks the GameServer allocated, as a matchmaker would.
	Allocate(ctx context.Context) error
	// Shutdown asks Agones to shut the GameServer down.
	Shutdown(ctx context.Context) error
	// SetLabel sets the label "agones.dev/sdk-"+key on the GameServer.
	SetLabel(ctx context.Context, key, value string) error
	// GameServer returns the GameServer as Agones sees it now.
	GameServer(ctx context.Context) (*GameServer, error)
	// WatchGameServer calls fn with the GameServer each time it changes,
	// until ctx is done or the stream ends.
	WatchGameServer(ctx context.Context, fn func(*GameServer)) error
	// SetPlayerCapacity sets how many players the GameServer holds.
	SetPlayerCapacity(ctx context.Context, n int64) error
	// PlayerConnect records a player's arrival; false if it was already
	// connected.
	PlayerConnect(ctx context.Context, id string) (bool, error)
	// PlayerDisconnect records a player's departure; false if it was not
	// connected.
	PlayerDisconnect(ctx context.Context, id string) (bool, error)
}

// GameServer states a game server sees (Agones' GameServer lifecycle).
const (
	StateScheduled    = "Scheduled"
	StateRequestReady = "RequestReady"
	StateReady        = "Ready"
	StateReserved     = "Reserved"
	StateAllocated    = "Allocated"
	StateShutdown     = "Shutdown"
)

// GameServer is the SDK server's view of the GameServer resource.
type GameServer struct {
	ObjectMeta ObjectMeta `json:"object_meta"`
	Spec       Spec       `json:"spec"`
	Status     Status     `json:"status"`
}

// ObjectMeta is the GameServer's Kubernetes metadata.
type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	ResourceVersion   string            `json:"resource_version,omitempty"`
	Generation        Int64             `json:"generation,omitempty"`
	CreationTimestamp Int64             `json:"creation_timestamp,omitempty"`
	DeletionTimestamp Int64             `json:"deletion_timestamp,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
}

// Spec is the part of the GameServer's spec the SDK server reports.
type Spec struct {
	Health Health `json:"health"`
}

// Health is the GameServer's health checking.
type Health struct {
	Disabled            bool  `json:"disabled,omitempty"`
	PeriodSeconds       int32 `json:"period_seconds,omitempty"`
	FailureThreshold    int32 `json:"failure_threshold,omitempty"`
	InitialDelaySeconds int32 `json:"initial_delay_seconds,omitempty"`
}

// Status is the GameServer's status.
type Status struct {
	State   string        `json:"state,omitempty"`
	Address string        `json:"address,omitempty"`
	Ports   []Port        `json:"ports,omitempty"`
	Players *PlayerStatus `json:"players,omitempty"`
}

// Port is a port the GameServer exposes, by name.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// PlayerStatus is alpha player tracking's part of the status.
type PlayerStatus struct {
	Count    Int64    `json:"count"`
	Capacity Int64    `json:"capacity"`
	IDs      []string `json:"ids,omitempty"`
}

// Int64 is an int64 as the SDK server's gateway writes it: a JSON
// string (protobuf's JSON mapping of int64), though a number is read
// too.
type Int64 int64

// MarshalJSON writes the value as a quoted decimal.
func (v Int64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(v), 10) + `"`), nil
}

// UnmarshalJSON reads a quoted or bare decimal.
func (v *Int64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if s == "null" || s == "" {
		*v = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("agones: int64 %s: %w", b, err)
	}
	*v = Int64(n)
	return nil
}

// ErrUnreachable is matched (errors.Is) by the error of a call that
// found no SDK server within its client's Wait.
var ErrUnreachable = errors.New("agones: SDK server not reachable")

// unreachableError says where the SDK server was looked for and for how
// long.
type unreachableError struct {
	url      string
	attempts int
	waited   time.Duration
	last     error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("agones: SDK server at %s not reachable after %d attempts in %v (is the Agones SDK sidecar running, and %s right?): %v",
		e.url, e.attempts, e.waited.Round(time.Millisecond), PortEnv, e.last)
}

func (e *unreachableError) Is(target error) bool { return target == ErrUnreachable }
func (e *unreachableError) Unwrap() error        { return e.last }

// StatusError is the SDK server's refusal of a call.
type StatusError struct {
	Method, Path string
	// Code is the HTTP status; Message the gateway's explanation.
	Code    int
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("agones: %s %s: SDK server answered %d: %s", e.Method, e.Path, e.Code, e.Message)
}

// Kubernetes' label syntax: a name part of at most 63 characters,
// alphanumerics at both ends and '-', '_' or '.' between.
var labelRE = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)

// labelPrefix is what the SDK server puts before a label's key.
const labelPrefix = "sdk-"

// CheckLabel returns an error if key and value would not make a valid
// Kubernetes label once the SDK server prefixes the key with
// "agones.dev/sdk-".
func CheckLabel(key, value string) error {
	if key == "" || len(labelPrefix+key) > 63 || !labelRE.MatchString(key) {
		return fmt.Errorf("agones: label key %q: want 1 to %d letters, digits, '-', '_' or '.', starting and ending with a letter or digit", key, 63-len(labelPrefix))
	}
	if len(value) > 63 || !labelRE.MatchString(value) {
		return fmt.Errorf("agones: label %s value %q: want at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", key, value)
	}
	return nil
}

// LabelValue makes s a valid label value: characters a label cannot hold
// become '-', and it is cut to 63 characters and trimmed to start and
// end with a letter or digit.
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for len(b) > 0 && !alnum(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && !alnum(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// AddrFromEnv returns the SDK server's REST address as Agones' SDKs find
// it: localhost at $AGONES_SDK_HTTP_PORT, or DefaultPort.
func AddrFromEnv() (string, error) {
	port := DefaultPort
	if s := os.Getenv(PortEnv); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return "", fmt.Errorf("agones: %s=%q: want a port number", PortEnv, s)
		}
		port = p
	}
	return "http://localhost:" + strconv.Itoa(port), nil
}

// KeepHealthy pings sdk's Health every period until ctx is done, giving
// each failure to failed (nil: none are reported). A failed ping does not
// stop it: Agones marks the GameServer unhealthy only after
// failure_threshold periods without one (Agones, Health Checking), so
// the next ping may still save it. Each ping may take at most period.
func KeepHealthy(ctx context.Context, sdk SDK, period time.Duration, failed func(error)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, period)
		err := sdk.Health(pctx)
		cancel()
		if err != nil && ctx.Err() == nil && failed != nil {
			failed(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// WatchState calls fn with the GameServer each time its state changes
// (first with the state it has), until ctx is done. When the stream
// ends or fails it is opened again after a pause that doubles from
// 100 ms to 5 s, and lost is given the error (nil: not reported).
func WatchState(ctx context.Context, sdk SDK, fn func(*GameServer), lost func(error)) {
	state := ""
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		got := false
		err := sdk.WatchGameServer(ctx, func(gs *GameServer) {
			got = true
			if gs.Status.State != state {
				state = gs.Status.State
				fn(gs)
			}
		})
		if ctx.Err() != nil {
			return
		}
		if got {
			pause = 100 * time.Millisecond
		}
		if lost != nil && err != nil {
			lost(err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// ErrShutdown is matched (errors.Is) by WaitAllocated's error when the
// GameServer was shut down before it was allocated.
var ErrShutdown = errors.New("agones: the GameServer was shut down before it was allocated")

// WaitAllocated watches the GameServer until it is Allocated and returns
// it then, with the labels and annotations its allocation gave it. It
// fails when ctx is done first, or the GameServer is shut down.
func WaitAllocated(ctx context.Context, sdk SDK, lost func(error)) (*GameServer, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var got *GameServer
	var err error
	WatchState(wctx, sdk, func(gs *GameServer) {
		switch gs.Status.State {
		case StateAllocated:
			got = gs
		case StateShutdown:
			err = ErrShutdown
		default:
			return
		}
		cancel()
	}, lost)
	if got == nil && err == nil {
		err = fmt.Errorf("agones: waiting to be allocated: %w", ctx.Err())
	}
	return got, err
}

// Package agonestest is a stand-in for the Agones SDK server, speaking
// its REST gateway's paths and bodies on a loopback port, for testing
// game servers without a Kubernetes cluster. It keeps a GameServer's
// state, labels and players as the SDK server would, and records every
// call in order.
package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lagkit/lagkit/agones"
)

// Call is one request the server answered: the SDK operation's name
// (Ready, Health, Allocate, Reserve, Shutdown, SetLabel, SetAnnotation,
// GameServer, WatchGameServer, SetPlayerCapacity, PlayerCapacity,
// PlayerCount, PlayerConnect, PlayerDisconnect) and its argument ("key=value"
// for labels, the player ID, the capacity).
type Call struct {
	Op, Arg string
}

func (c Call) String() string {
	if c.Arg == "" {
		return c.Op
	}
	return c.Op + "(" + c.Arg + ")"
}

// Server is a fake SDK server.
type Server struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []Call
	gs      agones.GameServer
	changed chan struct{} // closed and replaced on every change
	version int           // counts the changes
	down    int           // answer this many more calls 503
}

// NewServer starts a fake SDK server for a GameServer named name, in
// state Scheduled. Close it when done.
func NewServer(name string) *Server {
	s := &Server{changed: make(chan struct{})}
	s.gs.ObjectMeta = agones.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}, Annotations: map[string]string{}}
	s.gs.Spec.Health = agones.Health{PeriodSeconds: 5, FailureThreshold: 3, InitialDelaySeconds: 5}
	s.gs.Status = agones.Status{State: agones.StateScheduled, Address: "127.0.0.1", Players: &agones.PlayerStatus{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the server's base address, for agones.New.
func (s *Server) URL() string { return s.srv.URL }

// Port returns the server's port, for AGONES_SDK_HTTP_PORT.
func (s *Server) Port() string { return s.srv.URL[strings.LastIndexByte(s.srv.URL, ':')+1:] }

// Close shuts the server down, ending any watch stream.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Calls returns the calls answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// GameServer returns a copy of the GameServer now.
func (s *Server) GameServer() agones.GameServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyGS()
}

// Unavailable makes the next n calls answer 503, as the SDK server does
// while it cannot reach Kubernetes.
func (s *Server) Unavailable(n int) {
	s.mu.Lock()
	s.down = n
	s.mu.Unlock()
}

// Allocate moves the GameServer to Allocated, as an allocation by a
// matchmaker through Kubernetes would.
func (s *Server) Allocate() {
	s.AllocateWith(nil, nil)
}

// AllocateWith moves the GameServer to Allocated with labels and
// annotations added in the same change, as a GameServerAllocation's
// spec.metadata is applied.
func (s *Server) AllocateWith(labels, annotations map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range labels {
		s.gs.ObjectMeta.Labels[k] = v
	}
	for k, v := range annotations {
		s.gs.ObjectMeta.Annotations[k] = v
	}
	s.gs.Status.State = agones.StateAllocated
	s.notify()
}

// state returns a copy of the GameServer, its version (how many changes
// it went through) and a channel closed at its next change.
func (s *Server) state() (agones.GameServer, int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyGS(), s.version, s.changed
}

func (s *Server) copyGS() agones.GameServer {
	gs := s.gs
	gs.ObjectMeta.Labels = clone(s.gs.ObjectMeta.Labels)
	gs.ObjectMeta.Annotations = clone(s.gs.ObjectMeta.Annotations)
	p := *s.gs.Status.Players
	p.IDs = slices.Clone(p.IDs)
	gs.Status.Players = &p
	return gs
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// notify wakes the watch streams; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
	s.version++
}

func (s *Server) setState(st string) {
	if s.gs.Status.State != st {
		s.gs.Status.State = st
		s.notify()
	}
}

// route is one REST path: its method and handler, which runs with s.mu
// held and returns the answer's body or an error status.
type route struct {
	method string
	op     string
	do     func(s *Server, body []byte) (arg string, out any, code int, msg string)
}

var routes = map[string]route{
	"/ready": {"POST", "Ready", func(s *Server, _ []byte) (string, any, int, string) {
		s.setState(agones.StateReady)
		return "", empty, 0, ""
	}},
	"/health": {"POST", "Health", func(*Server, []byte) (string, any, int, string) { return "", empty, 0, "" }},
	"/allocate": {"POST", "Allocate", func(s *Server, _ []byte) (string, any, int, string) {
		s.setState(agones.StateAllocated)
		return "", empty, 0, ""
	}},
	"/shutdown": {"POST", "Shutdown", func(s *Server, _ []byte) (string, any, int, string) {
		s.setState(agones.StateShutdown)
		return "", empty, 0, ""
	}},
	"/reserve": {"POST", "Reserve", func(s *Server, b []byte) (string, any, int, string) {
		var d struct {
			Seconds agones.Int64 `json:"seconds"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return "", nil, http.StatusBadRequest, err.Error()
		}
		s.setState(agones.StateReserved)
		return strconv.FormatInt(int64(d.Seconds), 10), empty, 0, ""
	}},
	"/metadata/label":      {"PUT", "SetLabel", setMeta(func(gs *agones.GameServer) map[string]string { return gs.ObjectMeta.Labels })},
	"/metadata/annotation": {"PUT", "SetAnnotation", setMeta(func(gs *agones.GameServer) map[string]string { return gs.ObjectMeta.Annotations })},
	"/gameserver": {"GET", "GameServer", func(s *Server, _ []byte) (string, any, int, string) {
		return "", s.copyGS(), 0, ""
	}},
	"/alpha/player/capacity": {"PUT", "SetPlayerCapacity", func(s *Server, b []byte) (string, any, int, string) {
		var c struct {
			Count agones.Int64 `json:"count"`
		}
		if err := json.Unmarshal(b, &c); err != nil || c.Count < 0 {
			return "", nil, http.StatusBadRequest, fmt.Sprintf("capacity %s", b)
		}
		s.gs.Status.Players.Capacity = c.Count
		s.notify()
		return strconv.FormatInt(int64(c.Count), 10), empty, 0, ""
	}},
	"/alpha/player/count": {"GET", "PlayerCount", func(s *Server, _ []byte) (string, any, int, string) {
		return "", map[string]agones.Int64{"count": s.gs.Status.Players.Count}, 0, ""
	}},
	"/alpha/player/connect": {"POST", "PlayerConnect", func(s *Server, b []byte) (string, any, int, string) {
		id, msg := playerID(b)
		if msg != "" {
			return "", nil, http.StatusBadRequest, msg
		}
		p := s.gs.Status.Players
		if slices.Contains(p.IDs, id) {
			return id, map[string]bool{"bool": false}, 0, ""
		}
		if int64(len(p.IDs)) >= int64(p.Capacity) {
			// The SDK server's refusal (gRPC Unknown, HTTP 500).
			return id, nil, http.StatusInternalServerError, "players are already at capacity"
		}
		p.IDs = append(p.IDs, id)
		p.Count = agones.Int64(len(p.IDs))
		s.notify()
		return id, map[string]bool{"bool": true}, 0, ""
	}},
	"/alpha/player/disconnect": {"POST", "PlayerDisconnect", func(s *Server, b []byte) (string, any, int, string) {
		id, msg := playerID(b)
		if msg != "" {
			return "", nil, http.StatusBadRequest, msg
		}
		p := s.gs.Status.Players
		i := slices.Index(p.IDs, id)
		if i < 0 {
			return id, map[string]bool{"bool": false}, 0, ""
		}
		p.IDs = slices.Delete(p.IDs, i, i+1)
		p.Count = agones.Int64(len(p.IDs))
		s.notify()
		return id, map[string]bool{"bool": true}, 0, ""
	}},
}

var empty = struct{}{}

func playerID(b []byte) (string, string) {
	var p struct {
		PlayerID string `json:"playerID"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.PlayerID == "" {
		return "", fmt.Sprintf("want {\"playerID\": ...}, got %s", b)
	}
	return p.PlayerID, ""
}

// setMeta sets a label or an annotation, with the prefix the SDK server
// gives keys.
func setMeta(m func(*agones.GameServer) map[string]string) func(*Server, []byte) (string, any, int, string) {
	return func(s *Server, b []byte) (string, any, int, string) {
		var kv struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}
		if err := json.Unmarshal(b, &kv); err != nil || kv.Key == "" {
			return "", nil, http.StatusBadRequest, fmt.Sprintf("want {\"key\": ..., \"value\": ...}, got %s", b)
		}
		m(&s.gs)["agones.dev/sdk-"+kv.Key] = kv.Value
		s.notify()
		return kv.Key + "=" + kv.Value, empty, 0, ""
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	if s.down > 0 {
		s.down--
		s.mu.Unlock()
		fail(w, http.StatusServiceUnavailable, "unavailable")
		return
	}
	if r.URL.Path == "/watch/gameserver" && r.Method == "GET" {
		s.calls = append(s.calls, Call{Op: "WatchGameServer"})
		s.mu.Unlock()
		s.watch(w, r)
		return
	}
	if r.URL.Path == "/alpha/player/capacity" && r.Method == "GET" {
		s.calls = append(s.calls, Call{Op: "PlayerCapacity"})
		out := map[string]agones.Int64{"count": s.gs.Status.Players.Capacity}
		s.mu.Unlock()
		answer(w, out)
		return
	}
	// The table holds one method per path: GET on the capacity path and
	// the watch stream are answered above.
	rt, ok := routes[r.URL.Path]
	if !ok || rt.method != r.Method {
		s.mu.Unlock()
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	arg, out, code, msg := rt.do(s, body)
	s.calls = append(s.calls, Call{Op: rt.op, Arg: arg})
	s.mu.Unlock()
	if code != 0 {
		fail(w, code, msg)
		return
	}
	answer(w, out)
}

// watch streams the GameServer, one {"result": ...} line now and one on
// every change, until the client or the server goes.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fl, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	for {
		s.mu.Lock()
		gs, changed := s.copyGS(), s.changed
		s.mu.Unlock()
		if err := enc.Encode(map[string]any{"result": gs}); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers as the gateway does: {"code": gRPC code, "message": ...}.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": 2, "message": msg})
}

// Package online serves an online study's lobby (package study/lobby)
// over HTTP: the one join link participants open, the prescreen, the
// wait, the hand-over to the game server their match was allocated,
// and the completion code at the end. It is the lobby's driver: it
// keeps the lobby's clock, has each participant's round trip to the
// game server hosts measured by the hosts' probes (package probe, over
// the game's own transport), and starts each match the lobby forms
// through an Allocator.
package online

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// Allocator starts a match's session of the study on a game server.
type Allocator interface {
	// Start starts match m and returns where each of its people joins,
	// by participant id, and a Session that says when it ended.
	Start(ctx context.Context, m lobby.Match) (*Session, error)
}

// Session is a match's session on a game server.
type Session struct {
	// Links are the game server's page for each participant, by id.
	Links map[string]string
	// Done is closed when the session ended; Err then says how (nil:
	// the study played to its end).
	Done <-chan struct{}
	Err  func() error
	// Kill ends the session's game server at once, as a crash would
	// (a rehearsal's); nil where the allocator cannot.
	Kill func() error
	// Dropouts says which participants left the match mid-way and did
	// not come back in time: a bot plays their seat for the rest of the
	// session (nil: the allocator hears of none).
	Dropouts <-chan Dropout
	// Codes are the participant codes of the people's seats, by id.
	Codes map[string]string
}

// Dropout is a participant who left a match before its end.
type Dropout struct {
	ID string
	// Reason says when, for the lobby's records ("left mid-match
	// (round 2 of 4)").
	Reason string
}

// Config.OnServerLost values.
const (
	LostRequeue = "requeue"
	LostFinish  = "finish"
)

// MaxRequeues bounds how often one participant is put back in the queue
// after a lost game server: a fleet that keeps failing finishes them
// after that many.
const MaxRequeues = 2

// Config is a lobby service's configuration.
type Config struct {
	Lobby lobby.Config
	Alloc Allocator
	// Consent is the text a participant agrees to before the prescreen,
	// Agree its button's label ("": no consent step).
	Consent, Agree string
	// IDParam, StudyParam and SessionParam are the join link's query
	// parameters (the schedule's [online] table).
	IDParam, StudyParam, SessionParam string
	// CompletionURL is where a participant who completed goes, "{code}"
	// replaced ("": the code is shown).
	CompletionURL string
	// TrustProxy is the address of the reverse proxy in front of the
	// lobby, whose X-Forwarded-For names the participant's address (the
	// limit on arrivals from one address counts it); invalid (the zero
	// Addr): none, the connection's address counts.
	TrustProxy netip.Addr
	// OnServerLost is what happens to a match's people when its game
	// server ends before the study does: LostRequeue (the default)
	// puts them back in the queue, LostFinish completes them, each with
	// the reason in their status.
	OnServerLost string
	// Lost, when set, is told of each match whose game server was lost,
	// before its people are requeued or finished: the study's records
	// mark the round it cut.
	Lost func(ctx context.Context, m lobby.Match, s *Session, err error)
	// Pings is how many round trips a probe of the prescreen times on
	// each game server host (default 10).
	Pings int
	// SealKey, when set, is the key (probe.SealKey) of the seals of game
	// server hosts the lobby does not run (SetProbes): a page hands each
	// host's sealed result on (POST /lobby/probe), and the lobby keeps
	// the round trip if the seal opens, for that participant's ticket, a
	// host it named within SealFresh, made within SealFresh, and not
	// handed on before.
	SealKey []byte
	Log     *slog.Logger
	// Record, when set, stores the participants' events as they happen
	// (the study database's lobby_events), in order, called from one
	// goroutine at a time; start is when the lobby started, which the
	// events' At count from. Events it fails to store are logged, kept
	// and handed to it again with the next ones; the flow in memory is
	// unaffected.
	Record func(ctx context.Context, start time.Time, evs []lobby.Event) error
	// FindSession, when set, finds the study session (its id in the study's
	// records; 0: none stored) match m's game server recorded, once the
	// session s ended, and names it in the match's events Record stored
	// so far (those of the lobby that started at start); the events
	// stored after carry it (lobby.Event.Session). It is called in
	// turn with Record.
	FindSession func(ctx context.Context, start time.Time, m lobby.Match, s *Session) (int64, error)
}

// Server is an online study's lobby service.
type Server struct {
	cfg   Config
	start time.Time
	log   *slog.Logger

	mu     sync.Mutex
	lobby  *lobby.Lobby
	rtt    map[string]time.Duration // the best a host's probe measured
	probes []ProbeHost
	// listed is when each host SetProbes named was last named; sealed
	// the seals taken, with when they were made.
	listed   map[string]time.Time
	sealed   map[string]time.Time
	tickets  map[string]string // a probe's ticket: whose it is
	ticketOf map[string]string // a participant's ticket
	links    map[string]string // matched: the game server's page
	sessions map[int]*Session
	events   []lobby.Event
	failed   map[int]error
	// seen is when each participant's page last asked its status, and
	// platform the study and session ids its link carried.
	seen     map[string]time.Duration
	platform map[string][2]string
	// requeued counts each participant's returns to the queue after a
	// lost game server.
	requeued map[string]int
	// formed are the matches formed so far; starting counts those
	// being started or played.
	formed   []lobby.Match
	starting sync.WaitGroup

	// recMu orders the calls of Config.Record and Config.FindSession;
	// unstored are the events it has not stored yet, and sessionOf the
	// study session each match's game server recorded, once found.
	recMu     sync.Mutex
	unstored  []lobby.Event
	sessionOf map[int]int64
}

// maxUnstored bounds the events kept for a Record that keeps failing:
// past it the oldest are dropped, each logged as it was when it failed.
const maxUnstored = 1 << 16

// recordTimeout bounds one call of Config.Record.
const recordTimeout = 10 * time.Second

// Gone is how long a waiting participant's page may go without asking
// its status (it asks every second) before the participant is taken
// to have left: a closed tab must not be seated in a match.
const Gone = 30 * time.Second

// New makes a lobby service.
func New(cfg Config) (*Server, error) {
	l, err := lobby.New(cfg.Lobby)
	if err != nil {
		return nil, err
	}
	if cfg.Alloc == nil {
		return nil, errors.New("online: no allocator")
	}
	if cfg.Pings == 0 {
		cfg.Pings = 10
	}
	switch cfg.OnServerLost {
	case "":
		cfg.OnServerLost = LostRequeue
	case LostRequeue, LostFinish:
	default:
		return nil, fmt.Errorf("online: on_server_lost %q, want %s or %s", cfg.OnServerLost, LostRequeue, LostFinish)
	}
	if cfg.Pings < 3 || cfg.Pings > 100 {
		return nil, fmt.Errorf("online: pings %d, want 3 to 100", cfg.Pings)
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Server{cfg: cfg, start: time.Now(), log: cfg.Log, lobby: l, rtt: map[string]time.Duration{},
		tickets: map[string]string{}, ticketOf: map[string]string{}, listed: map[string]time.Time{}, sealed: map[string]time.Time{},
		links: map[string]string{}, sessions: map[int]*Session{}, failed: map[int]error{},
		seen: map[string]time.Duration{}, platform: map[string][2]string{}, requeued: map[string]int{}, sessionOf: map[int]int64{}}, nil
}

// Restore tells the lobby of the participants earlier lobbies of the
// study saw, from their recorded events (lobby.Lobby.Restore): call it
// before Serve. The events it makes (those in a match when their lobby
// stopped dropped out) are recorded with the first Advance. It returns
// how many participants it restored.
func (s *Server) Restore(evs []lobby.Event) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lobby.Restore(s.now(), evs)
}

func (s *Server) now() time.Duration { return time.Since(s.start) }

// Run advances the lobby every tick until ctx ends, starting each match
// it forms and completing it when its session ends.
func (s *Server) Run(ctx context.Context, tick time.Duration) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		s.advance(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// advance runs one Advance, starts the matches it formed and records
// its events.
func (s *Server) advance(ctx context.Context) {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	s.mu.Lock()
	now := s.now()
	for id, at := range s.seen {
		if now-at < Gone {
			continue
		}
		if st, err := s.lobby.Status(now, id); err == nil && (st.State == lobby.Waiting || st.State == lobby.Arrived) {
			_ = s.lobby.Leave(now, id, "the page stopped asking (closed)")
		}
		delete(s.seen, id)
	}
	r := s.lobby.Advance(now)
	matches := slices.Clone(r.Matches)
	evs := s.linked(r.Events)
	s.formed = append(s.formed, matches...)
	s.events = append(s.events, evs...)
	s.mu.Unlock()
	for _, ev := range evs {
		s.log.Info("participant", "id", ev.Participant, "kind", ev.Kind, "reason", ev.Reason, "match", ev.Match)
	}
	for _, m := range matches {
		s.log.Info("match", "id", m.ID, "group", m.Group, "people", len(m.People), "bots", m.Bots)
		// Each match is started on its own: an allocation waits for a
		// game server and its links, and the lobby goes on forming
		// matches and answering its pages meanwhile.
		s.starting.Add(1)
		go func() {
			defer s.starting.Done()
			s.begin(ctx, m)
		}()
	}
	s.record(ctx, evs)
}

// linked returns a copy of evs whose arrivals name the study and session
// ids their participants' links carried; s.mu is held.
func (s *Server) linked(evs []lobby.Event) []lobby.Event {
	out := slices.Clone(evs)
	for i, ev := range out {
		if ev.Kind == "arrived" {
			p := s.platform[ev.Participant]
			out[i].LinkStudy, out[i].LinkSession = p[0], p[1]
		}
	}
	return out
}

// begin allocates match m's session and completes its people when it
// ends.
func (s *Server) begin(ctx context.Context, m lobby.Match) {
	sess, err := s.cfg.Alloc.Start(ctx, m)
	s.mu.Lock()
	if err != nil {
		// The match never started: its people are dropped with the
		// reason, and may not be seated twice.
		s.failed[m.ID] = err
		for _, id := range m.People {
			_ = s.lobby.Leave(s.now(), id, "no game server: "+err.Error())
		}
		s.mu.Unlock()
		s.log.Error("allocate", "match", m.ID, "err", err)
		return
	}
	s.sessions[m.ID] = sess
	for id, link := range sess.Links {
		s.links[id] = link
	}
	s.mu.Unlock()
	for done := false; !done; {
		select {
		case d := <-sess.Dropouts:
			s.dropout(m, d)
		case <-sess.Done:
			done = true
		}
	}
	// Done closes once the process's output has been read: every
	// dropout it told of is in the channel.
	for drained := false; !drained; {
		select {
		case d := <-sess.Dropouts:
			s.dropout(m, d)
		default:
			drained = true
		}
	}
	err = sess.Err()
	if err != nil && s.cfg.Lost != nil {
		s.cfg.Lost(context.WithoutCancel(ctx), m, sess, err)
	}
	s.findSession(context.WithoutCancel(ctx), m, sess)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		_ = s.lobby.MatchOver(s.now(), m.ID)
		return
	}
	s.failed[m.ID] = err
	s.log.Error("session", "match", m.ID, "err", err)
	if ctx.Err() != nil {
		// The lobby is stopping and stopped its match: no one goes back
		// to a queue that is closing; they leave with the reason.
		for _, id := range m.People {
			_ = s.lobby.Leave(s.now(), id, "the lobby stopped its match: "+err.Error())
		}
		return
	}
	// The game server was lost before the study's end: its people go
	// back to the queue or finish, as the schedule says; one requeued
	// MaxRequeues times already finishes.
	var again []string
	for _, id := range m.People {
		if s.cfg.OnServerLost == LostRequeue && s.requeued[id] < MaxRequeues {
			again = append(again, id)
			s.requeued[id]++
			delete(s.links, id)
		}
	}
	_ = s.lobby.MatchLost(s.now(), m.ID, again, "the game server was lost mid-match ("+err.Error()+")")
}

// findSession finds the study session match m's game server recorded
// (Config.FindSession), once it ended, and tells the lobby: the match's
// events from then on carry it.
func (s *Server) findSession(ctx context.Context, m lobby.Match, sess *Session) {
	if s.cfg.FindSession == nil {
		return
	}
	s.recMu.Lock()
	defer s.recMu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	id, err := s.cfg.FindSession(rctx, s.start, m, sess)
	switch {
	case err != nil:
		s.log.Error("session of match", "match", m.ID, "err", err)
		return
	case id == 0:
		s.log.Warn("session of match", "match", m.ID, "err", "the game server stored no session")
		return
	}
	s.log.Info("session of match", "match", m.ID, "session", id)
	s.sessionOf[m.ID] = id
	s.mu.Lock()
	_ = s.lobby.MatchSession(m.ID, id)
	s.mu.Unlock()
}

// dropout records participant d of match m as having dropped out of it.
func (s *Server) dropout(m lobby.Match, d Dropout) {
	if !slices.Contains(m.People, d.ID) {
		return
	}
	s.mu.Lock()
	err := s.lobby.Leave(s.now(), d.ID, d.Reason)
	s.mu.Unlock()
	s.log.Info("dropout", "match", m.ID, "id", d.ID, "reason", d.Reason, "err", err)
}

// record hands evs to Config.Record after the events it failed to
// store before; s.recMu is held.
func (s *Server) record(ctx context.Context, evs []lobby.Event) {
	if s.cfg.Record == nil {
		return
	}
	s.unstored = append(s.unstored, evs...)
	if len(s.unstored) == 0 {
		return
	}
	// An event of a match made before its session was found, stored
	// after it was: Config.FindSession linked the ones stored before.
	for i, ev := range s.unstored {
		if id, ok := s.sessionOf[ev.Match]; ok && ev.Session == 0 {
			s.unstored[i].Session = id
		}
	}
	// A stopping lobby still stores its last events; a database that
	// hangs holds the lobby's forming of matches up for recordTimeout
	// at most.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	err := s.cfg.Record(rctx, s.start, s.unstored)
	if err == nil {
		s.unstored = s.unstored[:0]
		return
	}
	for _, ev := range evs {
		s.log.Error("participant event not stored yet", "id", ev.Participant, "kind", ev.Kind, "reason", ev.Reason, "match", ev.Match,
			"at", ev.At, "err", err)
	}
	if over := len(s.unstored) - maxUnstored; over > 0 {
		s.log.Error("participant events not stored, given up", "events", over)
		s.unstored = slices.Delete(s.unstored, 0, over)
	}
}

// Flush records the events since the last Advance (the matches that
// ended after the lobby stopped) and tries once more those not stored;
// it returns how many events are still not stored.
func (s *Server) Flush(ctx context.Context) int {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	s.mu.Lock()
	evs := s.linked(s.lobby.Pending())
	s.events = append(s.events, evs...)
	s.mu.Unlock()
	for _, ev := range evs {
		s.log.Info("participant", "id", ev.Participant, "kind", ev.Kind, "reason", ev.Reason, "match", ev.Match)
	}
	s.record(ctx, evs)
	return len(s.unstored)
}

// Drain waits until every match started has ended (its session's
// process exited) or ctx ends.
func (s *Server) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.starting.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flow returns the lobby's participant-flow counts.
func (s *Server) Flow() lobby.Flow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lobby.Flow()
}

// Matches returns the matches formed so far, in order.
func (s *Server) Matches() []lobby.Match {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.formed)
}

// Session returns match id's session once it started (nil before, or
// if it never did).
func (s *Server) Session(id int) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// Events returns every participant event so far.
func (s *Server) Events() []lobby.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

//go:embed join.html
var joinPage []byte

// Handler serves the join page and its API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(joinPage)
	})
	mux.HandleFunc("GET /lobby/config", s.config)
	mux.HandleFunc("POST /lobby/arrive", s.arrive)
	mux.Handle("GET /lobby/probe.js", web.ProbeScript())
	mux.HandleFunc("POST /lobby/consent", s.consent)
	mux.HandleFunc("POST /lobby/prescreen", s.prescreen)
	mux.HandleFunc("POST /lobby/probe", s.sealedProbe)
	mux.HandleFunc("GET /lobby/status", s.status)
	mux.HandleFunc("POST /lobby/leave", s.leave)
	mux.HandleFunc("POST /lobby/verify", s.verify)
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// readJSON reads a small JSON body into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		fail(w, http.StatusBadRequest, fmt.Errorf("online: request body: %v", err))
		return false
	}
	return true
}

func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id_param": s.cfg.IDParam, "study_param": s.cfg.StudyParam, "session_param": s.cfg.SessionParam,
		"consent": s.cfg.Consent, "agree": s.cfg.Agree, "pointer_lock": s.cfg.Lobby.Admission.PointerLock,
		"probes": s.Probes(),
	})
}

// remoteAddr is the address an arrival came from: the connection's, or
// behind a proxy the config trusts (Config.TrustProxy) the last address
// the proxy appended to X-Forwarded-For, since every arrival through it
// comes from the proxy's own address.
func (s *Server) remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	from := ap.Addr().Unmap()
	if !s.cfg.TrustProxy.IsValid() || from != s.cfg.TrustProxy.Unmap() {
		return from
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	if a, err := netip.ParseAddr(strings.TrimSpace(hops[len(hops)-1])); err == nil {
		return a.Unmap()
	}
	return from
}

func (s *Server) arrive(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID, Study, Session string
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	err := s.lobby.Arrive(s.now(), req.ID, s.remoteAddr(r))
	if err == nil {
		if _, ok := s.platform[req.ID]; !ok {
			s.platform[req.ID] = [2]string{trim(req.Study), trim(req.Session)}
		}
		if _, ok := s.ticketOf[req.ID]; !ok {
			t := newTicket()
			s.tickets[t], s.ticketOf[req.ID] = req.ID, t
		}
	}
	s.mu.Unlock()
	switch {
	case errors.Is(err, lobby.ErrFlood):
		fail(w, http.StatusTooManyRequests, err)
	case errors.Is(err, lobby.ErrParticipated):
		// Not a second participation; the page shows how the first
		// ended: the completion code again, the refusal's reason, the
		// dropout's answer.
		st, serr := s.statusOf(req.ID)
		if serr != nil {
			fail(w, http.StatusConflict, err)
			return
		}
		writeJSON(w, http.StatusConflict, Participated{Error: err.Error(), Status: st})
	case errors.Is(err, lobby.ErrFull):
		fail(w, http.StatusServiceUnavailable, err)
	case err != nil:
		fail(w, http.StatusBadRequest, err)
	default:
		s.status(w, r.WithContext(context.WithValue(r.Context(), idKey{}, req.ID)))
	}
}

type idKey struct{}

// ProbeHost is a game server host the prescreen measures: where a page
// reaches its probe, and the SHA-256 of its certificate (hex), which
// pins it for WebTransport.
type ProbeHost struct {
	Host     string `json:"host"`
	CertHash string `json:"cert_sha256"`
}

// ServeProbe serves the prescreen's round-trip probe (package probe) on
// w, a Web listener on a game server host, named to pages as host
// (HOST:PORT; "": w's address), until ctx ends, then closes w. Pages
// measure every host served, and the best round trip is a participant's
// base: the one to the host it plays on, where the fleet places
// matches near their people.
func (s *Server) ServeProbe(ctx context.Context, host string, w *transport.Web) {
	if host == "" {
		host = w.Addr()
	}
	s.mu.Lock()
	s.probes = append(s.probes, ProbeHost{Host: host, CertHash: w.CertHash()})
	s.mu.Unlock()
	p := &probe.Server{Pings: s.cfg.Pings, Ticket: s.ticket, Measured: s.measured}
	go func() {
		<-ctx.Done()
		_ = w.Close()
	}()
	go func() {
		if err := p.Serve(ctx, w); err != nil {
			s.log.Error("probe", "host", host, "err", err)
		}
	}()
}

// ListenProbe serves the prescreen's probe on a Web listener of its own
// at addr (HOST:PORT, port 0: a free one) with cert (nil: a self-signed
// one), until ctx ends, and returns the host as pages are told it. Any
// page may open it (a lobby's pages come from the lobby's origin, not
// the host's): it measures only for a ticket the lobby gave.
func (s *Server) ListenProbe(ctx context.Context, addr string, cert *transport.Certificate) (ProbeHost, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ProbeHost{}, fmt.Errorf("online: probe address %q: %w", addr, err)
	}
	w, err := transport.NewWeb(transport.WebOptions{Addr: addr, Cert: cert, OriginPatterns: []string{"*"}})
	if err != nil {
		return ProbeHost{}, err
	}
	_, port, _ := net.SplitHostPort(w.Addr())
	h := ProbeHost{Host: net.JoinHostPort(host, port), CertHash: w.CertHash()}
	s.ServeProbe(ctx, h.Host, w)
	return h, nil
}

// SetProbes names hosts as the game server hosts the prescreen measures,
// in place of those named before: probes the lobby does not run, which
// seal their results (Config.SealKey). A host dropped from the list
// (its game server allocated, or gone) still counts for SealFresh.
func (s *Server) SetProbes(hosts []ProbeHost) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.probes = slices.Clone(hosts)
	for _, h := range hosts {
		s.listed[h.Host] = now
	}
	for h, at := range s.listed {
		if now.Sub(at) > SealFresh {
			delete(s.listed, h)
		}
	}
}

// Probes returns the game server hosts the prescreen measures.
func (s *Server) Probes() []ProbeHost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.probes)
}

// newTicket makes a probe ticket: 128 random bits, so that no one
// probes in another's name.
func newTicket() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ticket says whose a probe's ticket is, while they are at the
// prescreen.
func (s *Server) ticket(t string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.tickets[t]
	if !ok {
		return "", false
	}
	st, err := s.lobby.Status(s.now(), id)
	return id, err == nil && st.State == lobby.Arrived
}

// measured keeps the best round trip a host's probe measured for id.
func (s *Server) measured(id string, rtt time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.rtt[id]; !ok || rtt < old {
		s.rtt[id] = rtt
	}
	s.log.Debug("probe", "id", id, "rtt", rtt, "best", s.rtt[id])
}

// SealFresh bounds how old a sealed result the lobby takes may be, and
// how long after a host was last named its seals still count; SealSkew
// how far ahead of the lobby's clock a host's may be.
const (
	SealFresh = 2 * time.Minute
	SealSkew  = 30 * time.Second
)

// SealedProbe is what a page hands on of a host's sealed result.
type SealedProbe struct {
	ID    string `json:"id"`
	Host  string `json:"host"`
	RTTus int64  `json:"rtt_us"`
	Seal  string `json:"seal"`
}

// sealedProbe takes a round trip a host the lobby does not run measured
// and sealed, if its seal vouches for it (Config.SealKey).
func (s *Server) sealedProbe(w http.ResponseWriter, r *http.Request) {
	var req SealedProbe
	if !readJSON(w, r, &req) {
		return
	}
	if s.cfg.SealKey == nil {
		fail(w, http.StatusNotFound, errors.New("online: this lobby's probes keep their round trips themselves: there is no sealed result to hand on"))
		return
	}
	rtt := time.Duration(req.RTTus) * time.Microsecond
	if req.RTTus <= 0 || rtt > time.Minute {
		fail(w, http.StatusBadRequest, fmt.Errorf("online: round trip of %d µs", req.RTTus))
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.lobby.Status(s.now(), req.ID)
	switch {
	case errors.Is(err, lobby.ErrUnknown):
		fail(w, http.StatusNotFound, err)
		return
	case err != nil || st.State != lobby.Arrived:
		fail(w, http.StatusConflict, fmt.Errorf("online: %s is %s, not at the prescreen", req.ID, st.State))
		return
	}
	if at, ok := s.listed[req.Host]; !ok || now.Sub(at) > SealFresh {
		fail(w, http.StatusForbidden, fmt.Errorf("online: host %q is not a game server host this lobby named", req.Host))
		return
	}
	at, err := probe.Open(s.cfg.SealKey, s.ticketOf[req.ID], req.Host, rtt, req.Seal)
	switch {
	case errors.Is(err, probe.ErrSeal):
		fail(w, http.StatusForbidden, fmt.Errorf("online: %s's round trip to %s: %w (another participant's result, or not this host's)", req.ID, req.Host, err))
		return
	case err != nil:
		fail(w, http.StatusBadRequest, err)
		return
	case now.Sub(at) > SealFresh || at.Sub(now) > SealSkew:
		fail(w, http.StatusForbidden, fmt.Errorf("online: %s's round trip to %s was measured at %s, not within %v of now (%s)",
			req.ID, req.Host, at.UTC().Format(time.RFC3339), SealFresh, now.UTC().Format(time.RFC3339)))
		return
	}
	if _, used := s.sealed[req.Seal]; used {
		fail(w, http.StatusConflict, fmt.Errorf("online: %s's round trip to %s: this result was handed on already", req.ID, req.Host))
		return
	}
	for k, t := range s.sealed {
		if now.Sub(t) > SealFresh+SealSkew {
			delete(s.sealed, k)
		}
	}
	s.sealed[req.Seal] = at
	if old, ok := s.rtt[req.ID]; !ok || rtt < old {
		s.rtt[req.ID] = rtt
	}
	s.log.Debug("probe", "id", req.ID, "host", req.Host, "rtt", rtt, "best", s.rtt[req.ID])
	writeJSON(w, http.StatusOK, map[string]float64{"rtt_ms": float64(s.rtt[req.ID]) / float64(time.Millisecond)})
}

func (s *Server) prescreen(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID          string  `json:"id"`
		FPS         float64 `json:"fps"`
		RefreshHz   float64 `json:"refresh_hz"`
		PointerLock bool    `json:"pointer_lock"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	if st, err := s.lobby.Status(s.now(), req.ID); err == nil && s.cfg.Consent != "" && !st.Consented {
		s.mu.Unlock()
		fail(w, http.StatusConflict, errors.New("online: the consent comes first: agree to it (/lobby/consent)"))
		return
	}
	rtt, measured := s.rtt[req.ID]
	if !measured {
		s.mu.Unlock()
		fail(w, http.StatusConflict, errors.New("online: no round trip measured yet: the page measures it with a game server host's probe first"))
		return
	}
	_, err := s.lobby.Prescreen(s.now(), req.ID, lobby.Screen{FPS: req.FPS, RefreshHz: req.RefreshHz, PointerLock: req.PointerLock, BaseRTT: rtt})
	s.mu.Unlock()
	if err != nil {
		fail(w, http.StatusConflict, err)
		return
	}
	s.status(w, r.WithContext(context.WithValue(r.Context(), idKey{}, req.ID)))
}

// consent records the participant's agreement to the consent text.
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID string `json:"id"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	err := s.lobby.Consent(s.now(), req.ID)
	s.mu.Unlock()
	switch {
	case errors.Is(err, lobby.ErrUnknown):
		fail(w, http.StatusNotFound, err)
	case err != nil:
		fail(w, http.StatusConflict, err)
	default:
		s.status(w, r.WithContext(context.WithValue(r.Context(), idKey{}, req.ID)))
	}
}

// Participated is the answer to an arrival of a participant who has
// taken part already (409 Conflict): the refusal, and where they stand.
type Participated struct {
	Error string `json:"error"`
	Status
}

// Status is what the page is told of where it stands.
type Status struct {
	State string `json:"state"`
	// Consented is set once the participant agreed to the consent.
	Consented  bool    `json:"consented"`
	Reason     string  `json:"reason,omitempty"`
	Ahead      int     `json:"ahead"`
	WaitAtMost float64 `json:"wait_at_most_s"`
	RTTms      float64 `json:"rtt_ms,omitempty"`
	// Probe is the ticket a page at the prescreen names itself by to
	// the game server hosts' probes.
	Probe string `json:"probe,omitempty"`
	// Join is the game server's page, once matched; Code and Redirect
	// the completion code and where to go with it, once completed.
	Join     string `json:"join,omitempty"`
	Code     string `json:"code,omitempty"`
	Redirect string `json:"redirect,omitempty"`
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	id, _ := r.Context().Value(idKey{}).(string)
	if id == "" {
		id = r.URL.Query().Get("id")
	}
	out, err := s.statusOf(id)
	if err != nil {
		fail(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// statusOf is where participant id stands, as the page is told.
func (s *Server) statusOf(id string) (Status, error) {
	s.mu.Lock()
	st, err := s.lobby.Status(s.now(), id)
	if err == nil && st.State <= lobby.Waiting {
		s.seen[id] = s.now()
	}
	out := Status{State: st.State.String(), Consented: st.Consented, Reason: st.Reason, Ahead: st.Ahead, WaitAtMost: st.WaitAtMost.Seconds(),
		RTTms: float64(s.rtt[id]) / float64(time.Millisecond), Join: s.links[id]}
	if err == nil && st.State == lobby.Arrived {
		out.Probe = s.ticketOf[id]
	}
	if err == nil && (st.State == lobby.Completed || st.State == lobby.Dropped) {
		// A dropout from a match has a code when the schedule gives one.
		out.Code, _ = s.lobby.Complete(id)
	}
	s.mu.Unlock()
	if err != nil {
		return Status{}, err
	}
	if out.Code != "" && s.cfg.CompletionURL != "" {
		out.Redirect = completionURL(s.cfg.CompletionURL, out.Code)
	}
	return out, nil
}

func (s *Server) leave(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	err := s.lobby.Leave(s.now(), req.ID, "left: "+req.Reason)
	s.mu.Unlock()
	if err != nil {
		fail(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"left": true})
}

// verify answers a platform's (or a researcher's) check of a
// completion code.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	ok := s.lobby.Verify(req.ID, req.Code)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]bool{"valid": ok})
}

// Platform returns the study and session ids participant id's link
// carried.
func (s *Server) Platform(id string) (study, session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.platform[id]
	return p[0], p[1]
}

// trim bounds a platform id's length.
func trim(v string) string {
	if len(v) > 64 {
		return v[:64]
	}
	return v
}

// completionURL puts code into a completion URL's {code}.
func completionURL(u, code string) string {
	return strings.ReplaceAll(u, "{code}", url.QueryEscape(code))
}

// Listen serves the lobby on addr until ctx ends.
func (s *Server) Listen(ctx context.Context, addr string, tick time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln, tick)
}

// Serve serves the lobby on ln, advancing it every tick, until ctx
// ends; it closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tick time.Duration) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	// No Advance after Serve returns: what happens after is Flush's.
	rctx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		_ = s.Run(rctx, tick)
	}()
	err := srv.Serve(ln)
	stop()
	<-ran
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Started returns when the lobby started: its events' At count from it.
func (s *Server) Started() time.Time { return s.start }

// Package serve assembles what lagkit serve runs: a realtime host, its
// game listeners (the page, WebSocket and WebTransport, UDP), the public
// and admin HTTP listeners, the study database the matches' records go to
// and, as an Agones GameServer, its lifecycle. A program that wants
// lagkit's server calls Run; a live study opens the game listeners alone
// with OpenListeners.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
)

// ShutdownGrace bounds a graceful shutdown: matches tell their players
// and close, the HTTP servers finish their requests.
const ShutdownGrace = 5 * time.Second

// DefaultMatch is the match lagkit serve runs without a configuration
// file: team deathmatch on metro under tlc, bots in every seat nobody
// takes.
var DefaultMatch = realtime.MatchConfig{Name: "default", Map: "metro", Mode: "tdm", Seats: 8, Bots: 8}

// Options are what Run serves: the game listeners, the HTTP listeners,
// the records and Agones. An empty address turns its listener off; the
// errors name each by lagkit serve's flag.
type Options struct {
	Listeners
	// HTTP serves /healthz and /metrics to anyone; Admin serves the
	// match API, connect tokens and pprof behind AdminToken ("" lets
	// every request through: the caller checks Admin is on loopback).
	HTTP, Admin, AdminToken string
	// TokenKey is the file of the key connect tokens are sealed under
	// with Tokens ("": a random key).
	TokenKey string
	// DB, if set, is the study database the matches' records go to, and
	// Config the configuration file stored as its schedule.
	DB, Config string
	// Agones, if set, runs the one match as an Agones GameServer.
	Agones *Agones
	// Timeouts are the HTTP listeners' (the defaults if zero).
	Timeouts api.Timeouts
	// SpectateDelay is the delay on what the page's spectators see
	// (realtime.Host.SetSpectateDelay; 0: none).
	SpectateDelay time.Duration
}

// Agones is how a GameServer talks to the Agones SDK server.
type Agones struct {
	// Health is how often Health is pinged; Wait how long each call
	// retries while the SDK server cannot be reached.
	Health, Wait time.Duration
}

// Run starts the matches and serves them as o asks until ctx ends or,
// with Agones, the match ends; then it ends every match, telling its
// players, and returns.
func Run(ctx context.Context, log *slog.Logger, o Options, maps *realtime.Maps, configs []realtime.MatchConfig) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	sv := &serving{log: log, reg: reg, host: realtime.NewHost(log, realtime.NewMetrics(reg))}
	defer sv.close()
	if err := sv.host.SetSpectateDelay(o.SpectateDelay); err != nil {
		return fmt.Errorf("--spectate-delay: %w", err)
	}
	if err := sv.open(o, maps); err != nil {
		return err
	}
	if err := sv.record(ctx, o); err != nil {
		return err
	}
	started := make([]*realtime.Match, len(configs))
	for i, mc := range configs {
		var err error
		if started[i], err = sv.host.Start(mc); err != nil {
			_ = sv.host.Shutdown(context.Background(), "server failed to start")
			return fmt.Errorf("match %d: %w", i+1, err)
		}
	}
	if o.Agones == nil {
		go logMatchesOver(ctx, log, started, sv.addrs.Admin)
	}
	sv.accept(ctx, len(configs), o.AdminToken)

	var (
		gs        *agones.Lifecycle
		matchOver <-chan struct{} // nil without Agones: serve runs until stopped
		gsDone    = make(chan struct{})
	)
	if o.Agones != nil {
		var err error
		if gs, err = startAgones(ctx, *o.Agones, sv.host, log); err != nil {
			_ = sv.host.Shutdown(context.Background(), "server failed to start")
			return err
		}
		matchOver = gs.Match().Done()
		go func() {
			defer close(gsDone)
			gs.Run(ctx, o.Agones.Health)
		}()
	}
	select {
	case <-ctx.Done():
	case <-matchOver:
		log.Info("match over", "reason", gs.Match().Reason())
	}
	return sv.shutdown(ctx, o, gs, gsDone)
}

// serving is what lagkit serve runs: the host, its listeners, its HTTP
// servers and its records.
type serving struct {
	log       *slog.Logger
	reg       *prometheus.Registry
	host      *realtime.Host
	addrs     Addrs
	listeners []transport.Listener
	servers   []*http.Server
	db        *store.DB
	records   *store.Writer
}

// open opens the game listeners, --http and --admin, and with --tokens
// has the host require connect tokens.
func (sv *serving) open(o Options, maps *realtime.Maps) error {
	var err error
	if sv.listeners, sv.addrs, err = OpenListeners(o.Listeners, sv.host, maps); err != nil {
		return err
	}
	if o.HTTP != "" {
		if sv.addrs.HTTP, err = sv.serveHTTP("http", o.HTTP, api.NewServer(api.Public(sv.reg), o.Timeouts, false)); err != nil {
			return err
		}
	}
	if o.Admin != "" {
		h := api.Admin(api.AdminOptions{Host: sv.host, Maps: maps, Registry: sv.reg, Log: sv.log, DefaultMap: DefaultMatch.Map, EndGrace: ShutdownGrace})
		h = api.WriteDeadline(o.Timeouts.WithDefaults().Write, sv.log, api.Guard(o.AdminToken, api.NewRefusedCounter(sv.reg), h))
		if sv.addrs.Admin, err = sv.serveHTTP("admin", o.Admin, api.NewServer(h, o.Timeouts, true)); err != nil {
			return err
		}
	}
	if o.Tokens {
		key, err := tokenKey(o.TokenKey)
		if err != nil {
			return err
		}
		return sv.host.RequireTokens(key, sv.addrs.UDP)
	}
	return nil
}

// serveHTTP serves srv on addr (the flag's), returning the address it
// got.
func (sv *serving) serveHTTP(flag, addr string, srv *http.Server) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", flag, err)
	}
	sv.servers = append(sv.servers, srv)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			sv.log.Error(flag, "err", err)
		}
	}()
	return ln.Addr().String(), nil
}

// record, with --db, keeps what the matches do in the study database.
func (sv *serving) record(ctx context.Context, o Options) error {
	if o.DB == "" {
		return nil
	}
	db, err := store.Open(ctx, o.DB)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	sv.db, sv.records = db, db.NewWriter(store.WriterOptions{})
	schedule := ""
	if o.Config != "" {
		b, _ := os.ReadFile(o.Config)
		schedule = string(b)
	}
	sv.records.Put(record.Study{Name: "serve", Schedule: schedule, Started: time.Now()})
	sv.host.SetSink(sv.records)
	return nil
}

// accept joins what the listeners accept to the matches, and logs where
// the server listens and who may use --admin.
func (sv *serving) accept(ctx context.Context, matches int, adminTok string) {
	for _, l := range sv.listeners {
		go func() {
			if err := sv.host.Serve(ctx, l); err != nil {
				sv.log.Error("accept", "addr", l.Addr(), "err", err)
			}
		}()
	}
	a := sv.addrs
	sv.log.Info("listening", "listen", a.Listen, "udp", a.UDP, "http", a.HTTP, "admin", a.Admin, "cert_sha256", a.CertHash, "matches", matches)
	switch {
	case a.Admin == "":
	case adminTok == "":
		sv.log.Warn("admin without a token", "admin", a.Admin, "note", "--admin is on loopback: any local user or process may use the match API; give --admin-token-file or "+api.TokenEnv+" to require a token")
	default:
		sv.log.Info("admin requires a bearer token", "admin", a.Admin)
	}
}

// shutdown stops accepting, ends every match telling its players, closes
// the records after the matches' last, then the HTTP servers and the
// Agones GameServer (gs, whose Run ends with gsDone).
func (sv *serving) shutdown(ctx context.Context, o Options, gs *agones.Lifecycle, gsDone <-chan struct{}) error {
	sv.log.Info("shutting down")
	for _, l := range sv.listeners {
		_ = l.Close() // stop accepting first
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	err := sv.host.Shutdown(sctx, "server shutting down")
	if sv.records != nil {
		if derr := sv.records.Close(); derr != nil && err == nil {
			err = derr
		}
		st := sv.records.Stats()
		sv.log.Info("records", "db", o.DB, "study", sv.records.StudyID(), "committed", st.Committed, "max_lag_ms", st.MaxLag.Milliseconds())
		sv.records = nil
	}
	for _, s := range sv.servers {
		_ = s.Shutdown(sctx)
	}
	if gs != nil {
		<-gsDone
		if aerr := gs.Finish(sctx); aerr != nil {
			if ctx.Err() != nil {
				// Stopped by a signal, as Agones stops a GameServer it
				// deletes: the SDK server may be going too.
				sv.log.Warn("agones shutdown", "err", aerr)
			} else if err == nil {
				err = aerr
			}
		}
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	sv.log.Info("stopped")
	return nil
}

// close releases whatever a failed start left open.
func (sv *serving) close() {
	for _, l := range sv.listeners {
		_ = l.Close()
	}
	for _, s := range sv.servers {
		_ = s.Close()
	}
	if sv.records != nil {
		_ = sv.records.Close()
	}
	if sv.db != nil {
		_ = sv.db.Close()
	}
}

// logMatchesOver says, once every match of the configuration has ended
// (each had a duration), that serve runs on with none, and how to start
// another or stop it.
func logMatchesOver(ctx context.Context, log *slog.Logger, matches []*realtime.Match, adminAddr string) {
	for _, m := range matches {
		select {
		case <-m.Done():
		case <-ctx.Done():
			return
		}
	}
	if ctx.Err() != nil {
		return // serve is stopping, which ended them
	}
	if adminAddr == "" {
		log.Info("every match has ended", "next", "stop serve with SIGINT or SIGTERM")
		return
	}
	log.Info("every match has ended", "next", "POST /api/matches on "+adminAddr+" (--admin) starts another; SIGINT or SIGTERM stops serve")
}

// Addrs are the addresses the listeners got, and the SHA-256 of the
// certificate Listen serves.
type Addrs struct{ Listen, UDP, HTTP, Admin, CertHash string }

// tokenKey returns the connect-token key in path, or a random one if
// path is "".
func tokenKey(path string) ([]byte, error) {
	if path == "" {
		return token.NewKey()
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--token-key: %w", err)
	}
	if len(key) != token.KeySize {
		return nil, fmt.Errorf("--token-key %s: %d bytes, want %d", path, len(key), token.KeySize)
	}
	return key, nil
}

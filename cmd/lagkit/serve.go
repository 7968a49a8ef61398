package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// shutdownGrace bounds a graceful shutdown: matches tell their players
// and close, the HTTP server finishes its requests.
const shutdownGrace = 5 * time.Second

// serveOptions are lagkit serve's flags.
type serveOptions struct {
	listen, udp, http string
	// admin is the address of the admin listener (the match API, tokens,
	// pprof), guarded by the token in adminTokenFile or AdminTokenEnv.
	admin, adminTokenFile string
	// maps is a directory of map files a match may name, besides the
	// shipped maps.
	maps      string
	config    string
	cert, key string
	logFormat string
	// tokens makes the server require connect tokens, keyed by tokenKey
	// (a file of token.KeySize raw bytes) or a key made at start.
	tokens   bool
	tokenKey string
	// db, if set, is the study database the matches' records go to.
	db     string
	agones agonesOptions
	// page, if set, adjusts the page's options (a study serves its own
	// pages).
	page func(*web.Options)
	// changed reports whether a flag was given (nil: none was).
	changed func(name string) bool
	// getenv reads the environment (nil: os.Getenv).
	getenv func(string) string
	// timeouts are the HTTP listeners' (the defaults if zero).
	timeouts api.Timeouts
}

// defaultMatch is the match lagkit serve runs without a configuration
// file: team deathmatch on metro under tlc, bots in every seat nobody
// takes.
var defaultMatch = realtime.MatchConfig{Name: "default", Map: "metro", Mode: "tdm", Seats: 8, Bots: 8}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run live matches on the wall clock for browsers, native clients and bots",
		Long: `serve runs lagkit's server core on the wall clock. Without a configuration
file it runs one match (team deathmatch on metro under tlc, bots in every
empty seat) until stopped. Browsers connect to --listen (the page and
WebSocket over HTTPS, WebTransport over UDP on the same port), native
clients and 'lagkit bots' to --udp. --http serves /healthz and /metrics
(Prometheus) to anyone. --admin serves the match API (/api/matches),
connect tokens, /debug/pprof, /metrics and /healthz to the holder of the
admin token: every request must carry "Authorization: Bearer TOKEN", the
token being the contents of --admin-token-file or $LAGKIT_ADMIN_TOKEN (at
least 16 bytes), or is answered 401. --admin is on loopback by default;
there, without a token, requests are let through (only this machine can
make them). serve refuses to bind --admin elsewhere without a token.
Port 0 picks a free port; the addresses chosen are logged at start (one
record with fields listen, udp, http and admin). An empty address turns
that listener off. SIGINT or SIGTERM ends every match, telling its
players why, and exits.

A match names its map: a shipped map (arena, courtyard, metro) or one of
the map files in --maps DIR (each DIR/NAME.json, loaded and checked at
start, is the map NAME). The API takes only names; the --config file may
also give a map file's path.

With --tokens every match admits only clients with a connect token sealed
under the key (--token-key, or a random one): POST /api/matches/{id}/tokens
on --admin with {"player": "name"} returns one (base64, valid 30 s) for
that match and the --udp address, and 'lagkit bots --token-url' fetches
one per bot. A
refused connect gets no reply. The page on --listen gets its token from
POST /lagkit/token on the same address, for the oldest match. Every
listener serves every match: a connection goes to the match its token
names.

With --agones the server runs as an Agones GameServer, talking to the
Agones SDK server beside it (localhost, port $AGONES_SDK_HTTP_PORT or
9358): it runs one match (a configuration with one [[match]]; its
duration ends it), sets the player capacity to the match's seats and
labels lagkit-match, lagkit-map and lagkit-mode, marks the GameServer
Ready once it takes players, pings Health every --agones-health, reports
each person joining and leaving (player tracking; bots in the match's own
seats are not counted), and when the match ends asks Agones to shut the
GameServer down and exits. Calls retry for --agones-wait while the SDK
server cannot be reached; if it cannot be reached at start, serve exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.changed = cmd.Flags().Changed
			return runServe(ctx, o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:0", "HOST:PORT for browsers: the page and WebSocket over HTTPS/TCP, WebTransport over UDP")
	f.StringVar(&o.udp, "udp", "127.0.0.1:0", "HOST:PORT for native clients over UDP")
	f.StringVar(&o.http, "http", "127.0.0.1:0", "HOST:PORT for /healthz and /metrics, served to anyone (Prometheus, Agones)")
	f.StringVar(&o.admin, "admin", "127.0.0.1:0", "HOST:PORT for the match API, connect tokens and /debug/pprof, behind the admin token (required unless on loopback)")
	f.StringVar(&o.adminTokenFile, "admin-token-file", "", "file holding the admin token (at least 16 bytes, trimmed) every --admin request must carry as Authorization: Bearer TOKEN (default: $"+AdminTokenEnv+")")
	f.StringVar(&o.maps, "maps", "", "directory of map files (*.json, each named as its file) that matches may name besides the shipped maps")
	f.StringVar(&o.config, "config", "", "TOML file of matches to run (default: one team deathmatch with bots)")
	f.StringVar(&o.cert, "cert", "", "TLS certificate (PEM) for --listen (default: a self-signed one, valid for 127.0.0.1, ::1 and localhost; its SHA-256 is logged as cert_sha256)")
	f.StringVar(&o.key, "key", "", "TLS key (PEM) for --cert")
	f.BoolVar(&o.tokens, "tokens", false, "admit only clients with a connect token, on every listener: get one for a player from POST /api/matches/{id}/tokens on --admin (the page on --listen gets its own)")
	f.StringVar(&o.tokenKey, "token-key", "", "file of the 32-byte key connect tokens are sealed under, shared with a matchmaker (default with --tokens: a random one)")
	f.BoolVar(&o.agones.on, "agones", false, "run as an Agones GameServer: Ready, Health, player tracking and Shutdown through the SDK server on localhost:$AGONES_SDK_HTTP_PORT")
	f.DurationVar(&o.agones.health, "agones-health", 2*time.Second, "with --agones: how often to ping Agones' Health (within the Fleet's health periodSeconds)")
	f.DurationVar(&o.agones.wait, "agones-wait", 30*time.Second, "with --agones: how long each call retries while the SDK server cannot be reached")
	f.StringVar(&o.db, "db", "", "study database the matches' shots, kills, objectives, sessions and reports go to: an SQLite file or a postgres:// URL (several servers may share one PostgreSQL database); lagkit study export reads it")
	f.StringVar(&o.logFormat, "log-format", "auto", "logs as text or json (auto: text on a terminal, json otherwise)")
	return cmd
}

// newLogger returns the logger for format on w.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "auto":
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	case "text", "json":
	default:
		return nil, usagef("--log-format %q: want auto, text or json", format)
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return slog.New(slog.NewJSONHandler(w, nil)), nil
}

// matchConfigs returns the matches to start: the configuration file's,
// whose maps may be maps', or the default match.
func matchConfigs(path string, maps *realtime.Maps) ([]realtime.MatchConfig, error) {
	if path == "" {
		return []realtime.MatchConfig{defaultMatch}, nil
	}
	f, err := realtime.LoadFileMaps(path, maps)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return f.Matches, nil
}

func runServe(ctx context.Context, o serveOptions, logOut io.Writer) error {
	log, err := newLogger(o.logFormat, logOut)
	if err != nil {
		return err
	}
	if (o.cert == "") != (o.key == "") {
		return usagef("--cert and --key go together")
	}
	if o.tokenKey != "" && !o.tokens {
		return usagef("--token-key needs --tokens")
	}
	if o.cert != "" && o.listen == "" {
		return usagef("--cert and --key are for --listen, which is off")
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	adminTok := ""
	if o.admin != "" {
		if adminTok, err = adminToken(o.adminTokenFile, getenv); err != nil {
			return err
		}
		if err := checkAdmin(o.admin, adminTok); err != nil {
			return err
		}
	} else if o.adminTokenFile != "" {
		return usagef("--admin-token-file is for --admin, which is off")
	}
	maps, err := realtime.LoadMaps(o.maps)
	if err != nil {
		return usagef("--maps: %w", err)
	}
	configs, err := matchConfigs(o.config, maps)
	if err != nil {
		return err
	}
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if err := o.agones.check(changed, len(configs)); err != nil {
		return usageError{err}
	}
	if o.listen == "" && o.udp == "" && o.http == "" && o.admin == "" {
		return usagef("--listen, --udp, --http and --admin are all off: nothing could reach the server")
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	refused := api.NewRefusedCounter(reg)
	host := realtime.NewHost(log, realtime.NewMetrics(reg))

	var listeners []transport.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	addrs, err := openListeners(o, host, maps, &listeners)
	if err != nil {
		return err
	}
	var servers []*http.Server
	serveHTTP := func(flag, addr string, srv *http.Server) (string, error) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return "", fmt.Errorf("--%s: %w", flag, err)
		}
		servers = append(servers, srv)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error(flag, "err", err)
			}
		}()
		return ln.Addr().String(), nil
	}
	defer func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}()
	if o.http != "" {
		if addrs.http, err = serveHTTP("http", o.http, api.NewServer(api.Public(reg), o.timeouts, false)); err != nil {
			return err
		}
	}
	if o.admin != "" {
		h := api.Admin(api.AdminOptions{Host: host, Maps: maps, Registry: reg, Log: log, DefaultMap: defaultMatch.Map, EndGrace: shutdownGrace})
		h = api.WriteDeadline(o.timeouts.WithDefaults().Write, log, api.Guard(adminTok, refused, h))
		if addrs.admin, err = serveHTTP("admin", o.admin, api.NewServer(h, o.timeouts, true)); err != nil {
			return err
		}
	}
	if o.tokens {
		key, err := tokenKey(o.tokenKey)
		if err != nil {
			return err
		}
		if err := host.RequireTokens(key, addrs.udp); err != nil {
			return err
		}
	}
	var records *store.Writer
	if o.db != "" {
		db, err := store.Open(ctx, o.db)
		if err != nil {
			return fmt.Errorf("--db: %w", err)
		}
		defer db.Close()
		records = db.NewWriter(store.WriterOptions{})
		schedule := ""
		if o.config != "" {
			b, _ := os.ReadFile(o.config)
			schedule = string(b)
		}
		records.Put(record.Study{Name: "serve", Schedule: schedule, Started: time.Now()})
		host.SetSink(records)
	}
	started := make([]*realtime.Match, len(configs))
	for i, mc := range configs {
		if started[i], err = host.Start(mc); err != nil {
			_ = host.Shutdown(context.Background(), "server failed to start")
			return fmt.Errorf("match %d: %w", i+1, err)
		}
	}
	if !o.agones.on {
		go logMatchesOver(ctx, log, started, addrs.admin)
	}
	for _, l := range listeners {
		go func() {
			if err := host.Serve(ctx, l); err != nil {
				log.Error("accept", "addr", l.Addr(), "err", err)
			}
		}()
	}
	log.Info("listening", "listen", addrs.listen, "udp", addrs.udp, "http", addrs.http, "admin", addrs.admin, "cert_sha256", addrs.certHash, "matches", len(configs))
	switch {
	case addrs.admin == "":
	case adminTok == "":
		log.Warn("admin without a token", "admin", addrs.admin, "note", "--admin is on loopback: any local user or process may use the match API; give --admin-token-file or "+AdminTokenEnv+" to require a token")
	default:
		log.Info("admin requires a bearer token", "admin", addrs.admin)
	}

	var (
		gs        *agones.Lifecycle
		matchOver <-chan struct{} // nil without --agones: serve runs until stopped
		gsDone    = make(chan struct{})
	)
	if o.agones.on {
		if gs, err = startAgones(ctx, o.agones, host, log); err != nil {
			_ = host.Shutdown(context.Background(), "server failed to start")
			return err
		}
		matchOver = gs.Match().Done()
		go func() {
			defer close(gsDone)
			gs.Run(ctx, o.agones.health)
		}()
	}
	select {
	case <-ctx.Done():
	case <-matchOver:
		log.Info("match over", "reason", gs.Match().Reason())
	}
	log.Info("shutting down")
	for _, l := range listeners {
		_ = l.Close() // stop accepting first
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = host.Shutdown(sctx, "server shutting down")
	if records != nil {
		// After the matches: their last records are in.
		if derr := records.Close(); derr != nil && err == nil {
			err = derr
		}
		st := records.Stats()
		log.Info("records", "db", o.db, "study", records.StudyID(), "committed", st.Committed, "max_lag_ms", st.MaxLag.Milliseconds())
	}
	for _, s := range servers {
		_ = s.Shutdown(sctx)
	}
	if gs != nil {
		<-gsDone
		if aerr := gs.Finish(sctx); aerr != nil {
			if ctx.Err() != nil {
				// Stopped by a signal, as Agones stops a GameServer it
				// deletes: the SDK server may be going too.
				log.Warn("agones shutdown", "err", aerr)
			} else if err == nil {
				err = aerr
			}
		}
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
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

// boundAddrs are the addresses the listeners got.
type boundAddrs struct{ listen, udp, http, admin, certHash string }

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

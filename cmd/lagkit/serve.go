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
	adminTok, maps, configs, err := checkServe(o)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	sv := &serving{log: log, reg: reg, host: realtime.NewHost(log, realtime.NewMetrics(reg))}
	defer sv.close()
	if err := sv.open(o, maps, adminTok); err != nil {
		return err
	}
	if err := sv.record(ctx, o); err != nil {
		return err
	}
	started := make([]*realtime.Match, len(configs))
	for i, mc := range configs {
		if started[i], err = sv.host.Start(mc); err != nil {
			_ = sv.host.Shutdown(context.Background(), "server failed to start")
			return fmt.Errorf("match %d: %w", i+1, err)
		}
	}
	if !o.agones.on {
		go logMatchesOver(ctx, log, started, sv.addrs.admin)
	}
	sv.accept(ctx, len(configs), adminTok)

	var (
		gs        *agones.Lifecycle
		matchOver <-chan struct{} // nil without --agones: serve runs until stopped
		gsDone    = make(chan struct{})
	)
	if o.agones.on {
		if gs, err = startAgones(ctx, o.agones, sv.host, log); err != nil {
			_ = sv.host.Shutdown(context.Background(), "server failed to start")
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
	return sv.shutdown(ctx, o, gs, gsDone)
}

// checkServe checks o's flags against each other and loads what they
// name: the admin token, the --maps folder and the matches to run.
func checkServe(o serveOptions) (adminTok string, maps *realtime.Maps, configs []realtime.MatchConfig, err error) {
	switch {
	case (o.cert == "") != (o.key == ""):
		return "", nil, nil, usagef("--cert and --key go together")
	case o.tokenKey != "" && !o.tokens:
		return "", nil, nil, usagef("--token-key needs --tokens")
	case o.cert != "" && o.listen == "":
		return "", nil, nil, usagef("--cert and --key are for --listen, which is off")
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.admin != "" {
		if adminTok, err = adminToken(o.adminTokenFile, getenv); err != nil {
			return "", nil, nil, err
		}
		if err := checkAdmin(o.admin, adminTok); err != nil {
			return "", nil, nil, err
		}
	} else if o.adminTokenFile != "" {
		return "", nil, nil, usagef("--admin-token-file is for --admin, which is off")
	}
	if maps, err = realtime.LoadMaps(o.maps); err != nil {
		return "", nil, nil, usagef("--maps: %w", err)
	}
	if configs, err = matchConfigs(o.config, maps); err != nil {
		return "", nil, nil, err
	}
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if err := o.agones.check(changed, len(configs)); err != nil {
		return "", nil, nil, usageError{err}
	}
	if o.listen == "" && o.udp == "" && o.http == "" && o.admin == "" {
		return "", nil, nil, usagef("--listen, --udp, --http and --admin are all off: nothing could reach the server")
	}
	return adminTok, maps, configs, nil
}

// serving is what lagkit serve runs: the host, its listeners, its HTTP
// servers and its records.
type serving struct {
	log       *slog.Logger
	reg       *prometheus.Registry
	host      *realtime.Host
	addrs     boundAddrs
	listeners []transport.Listener
	servers   []*http.Server
	db        *store.DB
	records   *store.Writer
}

// open opens the game listeners, --http and --admin, and with --tokens
// has the host require connect tokens.
func (sv *serving) open(o serveOptions, maps *realtime.Maps, adminTok string) error {
	var err error
	if sv.addrs, err = openListeners(o, sv.host, maps, &sv.listeners); err != nil {
		return err
	}
	if o.http != "" {
		if sv.addrs.http, err = sv.serveHTTP("http", o.http, api.NewServer(api.Public(sv.reg), o.timeouts, false)); err != nil {
			return err
		}
	}
	if o.admin != "" {
		h := api.Admin(api.AdminOptions{Host: sv.host, Maps: maps, Registry: sv.reg, Log: sv.log, DefaultMap: defaultMatch.Map, EndGrace: shutdownGrace})
		h = api.WriteDeadline(o.timeouts.WithDefaults().Write, sv.log, api.Guard(adminTok, api.NewRefusedCounter(sv.reg), h))
		if sv.addrs.admin, err = sv.serveHTTP("admin", o.admin, api.NewServer(h, o.timeouts, true)); err != nil {
			return err
		}
	}
	if o.tokens {
		key, err := tokenKey(o.tokenKey)
		if err != nil {
			return err
		}
		return sv.host.RequireTokens(key, sv.addrs.udp)
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
func (sv *serving) record(ctx context.Context, o serveOptions) error {
	if o.db == "" {
		return nil
	}
	db, err := store.Open(ctx, o.db)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	sv.db, sv.records = db, db.NewWriter(store.WriterOptions{})
	schedule := ""
	if o.config != "" {
		b, _ := os.ReadFile(o.config)
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
	sv.log.Info("listening", "listen", a.listen, "udp", a.udp, "http", a.http, "admin", a.admin, "cert_sha256", a.certHash, "matches", matches)
	switch {
	case a.admin == "":
	case adminTok == "":
		sv.log.Warn("admin without a token", "admin", a.admin, "note", "--admin is on loopback: any local user or process may use the match API; give --admin-token-file or "+AdminTokenEnv+" to require a token")
	default:
		sv.log.Info("admin requires a bearer token", "admin", a.admin)
	}
}

// shutdown stops accepting, ends every match telling its players, closes
// the records after the matches' last, then the HTTP servers and the
// Agones GameServer (gs, whose Run ends with gsDone).
func (sv *serving) shutdown(ctx context.Context, o serveOptions, gs *agones.Lifecycle, gsDone <-chan struct{}) error {
	sv.log.Info("shutting down")
	for _, l := range sv.listeners {
		_ = l.Close() // stop accepting first
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := sv.host.Shutdown(sctx, "server shutting down")
	if sv.records != nil {
		if derr := sv.records.Close(); derr != nil && err == nil {
			err = derr
		}
		st := sv.records.Stats()
		sv.log.Info("records", "db", o.db, "study", sv.records.StudyID(), "committed", st.Committed, "max_lag_ms", st.MaxLag.Milliseconds())
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

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
	"github.com/lagkit/lagkit/realtime/serve"
)

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
	// changed reports whether a flag was given (nil: none was).
	changed func(name string) bool
	// getenv reads the environment (nil: os.Getenv).
	getenv func(string) string
	// timeouts are the HTTP listeners' (the defaults if zero).
	timeouts api.Timeouts
	// spectateDelay is --spectate-delay, which overrides the --config
	// file's spectate_delay.
	spectateDelay time.Duration
}

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
	f.DurationVar(&o.spectateDelay, "spectate-delay", realtime.DefaultSpectateDelay, "what the page's spectators (/?spectate=1) see is the match this long ago, as SourceTV's tv_delay (0 for none, at most "+realtime.MaxSpectateDelay.String()+"; default: the --config file's spectate_delay, else 30s)")
	f.StringVar(&o.logFormat, "log-format", "auto", "logs as text or json (auto: text on a terminal, json otherwise)")
	return cmd
}

// matchConfigs returns the matches to start: the configuration file's,
// whose maps may be maps', or the default match; and the file's
// spectate_delay (nil if it gives none).
func matchConfigs(path string, maps *realtime.Maps) ([]realtime.MatchConfig, *realtime.Duration, error) {
	if path == "" {
		return []realtime.MatchConfig{serve.DefaultMatch}, nil, nil
	}
	f, err := realtime.LoadFileMaps(path, maps)
	if err != nil {
		return nil, nil, fmt.Errorf("--config: %w", err)
	}
	return f.Matches, f.SpectateDelay, nil
}

func runServe(ctx context.Context, o serveOptions, logOut io.Writer) error {
	log, err := serve.NewLogger(o.logFormat, logOut)
	if err != nil {
		return usagef("--log-format %v", err)
	}
	adminTok, maps, configs, err := checkServe(&o)
	if err != nil {
		return err
	}
	so := serve.Options{
		Listeners: serve.Listeners{Listen: o.listen, UDP: o.udp, Cert: o.cert, Key: o.key, Tokens: o.tokens},
		HTTP:      o.http, Admin: o.admin, AdminToken: adminTok, TokenKey: o.tokenKey,
		DB: o.db, Config: o.config, Timeouts: o.timeouts, SpectateDelay: o.spectateDelay,
	}
	if o.agones.on {
		so.Agones = &serve.Agones{Health: o.agones.health, Wait: o.agones.wait}
	}
	return serve.Run(ctx, log, so, maps, configs)
}

// checkServe checks o's flags against each other and loads what they
// name: the admin token, the --maps folder and the matches to run; it
// sets o.spectateDelay to the --config file's unless the flag was given.
func checkServe(o *serveOptions) (adminTok string, maps *realtime.Maps, configs []realtime.MatchConfig, err error) {
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
	var fileDelay *realtime.Duration
	if configs, fileDelay, err = matchConfigs(o.config, maps); err != nil {
		return "", nil, nil, err
	}
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if fileDelay != nil && !changed("spectate-delay") {
		o.spectateDelay = time.Duration(*fileDelay)
	}
	if err := realtime.CheckSpectateDelay(o.spectateDelay); err != nil {
		return "", nil, nil, usagef("--spectate-delay: %v", err)
	}
	if err := o.agones.check(changed, len(configs)); err != nil {
		return "", nil, nil, usageError{err}
	}
	if o.listen == "" && o.udp == "" && o.http == "" && o.admin == "" {
		return "", nil, nil, usagef("--listen, --udp, --http and --admin are all off: nothing could reach the server")
	}
	return adminTok, maps, configs, nil
}

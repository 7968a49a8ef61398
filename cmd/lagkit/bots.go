package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/realtime/bots"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// botsOptions are lagkit bots' flags.
type botsOptions struct {
	connect  string
	count    int
	duration time.Duration
	mapName  string
	skill    float64
	seed     uint64
	server   string
	certHash string
	tokenURL string
	// adminTokenFile holds the token --server and --token-url want
	// (default: AdminTokenEnv).
	adminTokenFile string
	asJSON         bool
}

func newBotsCmd() *cobra.Command {
	var o botsOptions
	cmd := &cobra.Command{
		Use:   "bots",
		Short: "Play bots against a live server over real sockets",
		Long: `bots connects --count bots to a lagkit server, each a real client with its
own connection (ADDR is udp://HOST:PORT, wt://HOST:PORT, ws://HOST:PORT or
wss://HOST:PORT; --cert-hash pins a self-signed certificate),
plays for --duration and prints each bot's snapshots received, measured
round trip, prediction error, shots, hits and hits behind cover received.
With --server http://HOST:PORT (the server's --admin address) it also reads
the server's tick statistics and metrics before and after, and reports
tick p99, tick-start lateness p99, overruns, CPU per tick and bytes per
second per client: a load benchmark. A bot the server never seats
(nothing listens at ADDR, every seat is taken, or the server requires
connect tokens and --token-url is not given: a UDP server answers none
of these) ends with "no seat"; when no bot got a seat, bots exits 1.
--server and --token-url are on the server's admin listener: bots sends
them the admin token, from --admin-token-file or $LAGKIT_ADMIN_TOKEN.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := runBots(ctx, o)
			if err != nil {
				return err
			}
			if o.asJSON {
				err = json.NewEncoder(cmd.OutOrStdout()).Encode(rep)
			} else {
				rep.WriteTable(cmd.OutOrStdout())
			}
			if err == nil && rep.Connected() == 0 {
				err = fmt.Errorf("no bot got a seat at %s", o.connect)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.connect, "connect", "", "server address: udp://HOST:PORT (lagkit serve's --udp), wt://HOST:PORT or wss://HOST:PORT (its --listen), or ws://HOST:PORT (WebSocket without TLS)")
	f.IntVar(&o.count, "count", 8, "number of bots (1-128)")
	f.DurationVar(&o.duration, "duration", 30*time.Second, "how long the bots play")
	f.StringVar(&o.mapName, "map", "metro", "the server's map (a shipped map's name or a map file)")
	f.Float64Var(&o.skill, "skill", 0.5, "bot skill from 0 to 1")
	f.Uint64Var(&o.seed, "seed", 1, "random seed of the bots")
	f.StringVar(&o.server, "server", "", "the server's --admin address, to report its load (http://HOST:PORT)")
	f.StringVar(&o.tokenURL, "token-url", "", "for a server run with --tokens: its token endpoint on --admin, http://HOST:PORT/api/matches/{id}/tokens, from which each bot gets a connect token")
	f.StringVar(&o.adminTokenFile, "admin-token-file", "", "file holding the server's admin token, sent to --server and --token-url (default: $"+AdminTokenEnv+")")
	f.StringVar(&o.certHash, "cert-hash", "", "for wt:// and wss://: the server certificate's SHA-256 in hex, as lagkit serve logs it (cert_sha256)")
	f.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	return cmd
}

// botDialer returns the dialer for addr, checking a wt:// or wss://
// server's certificate against certHash when given.
func botDialer(addr, certHash string) (func(context.Context) (transport.Conn, error), error) {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return nil, usagef("--connect %q: want udp://HOST:PORT, wt://HOST:PORT, ws://HOST:PORT or wss://HOST:PORT", addr)
	}
	switch u.Scheme {
	case "udp", "wt", "ws", "wss":
	default:
		return nil, usagef("--connect %q: unknown scheme %q (want udp, wt, ws or wss)", addr, u.Scheme)
	}
	if certHash != "" {
		if u.Scheme != "wt" && u.Scheme != "wss" {
			return nil, usagef("--cert-hash applies only to wt:// and wss://, not %s://", u.Scheme)
		}
		if h, err := hex.DecodeString(certHash); err != nil || len(h) != sha256.Size {
			return nil, usagef("--cert-hash %q: want the %d-byte SHA-256 in hex (64 digits) that lagkit serve logs as cert_sha256", certHash, sha256.Size)
		}
	}
	opts := transport.DialOptions{TLS: transport.ClientTLS{CertHash: certHash}}
	return func(ctx context.Context) (transport.Conn, error) { return transport.Dial(ctx, addr, opts) }, nil
}

// runBots checks o's flags and plays the bots (bots.Run).
func runBots(ctx context.Context, o botsOptions) (*bots.Report, error) {
	bearer, err := checkBotsFlags(&o)
	if err != nil {
		return nil, err
	}
	dial, err := botDialer(o.connect, o.certHash)
	if err != nil {
		return nil, err
	}
	m, err := world.LoadNamed(o.mapName)
	if err != nil {
		return nil, fmt.Errorf("--map: %w", err)
	}
	return bots.Run(ctx, bots.Config{Connect: o.connect, Dial: dial, Count: o.count, Duration: o.duration, Map: m,
		Skill: o.skill, Seed: o.seed, Server: o.server, TokenURL: o.tokenURL, Bearer: bearer, CertHash: o.certHash})
}

// checkBotsFlags checks o's flags and returns the admin token --server and
// --token-url are sent.
func checkBotsFlags(o *botsOptions) (bearer string, err error) {
	switch {
	case o.count < 1 || o.count > game.MaxPlayers:
		return "", usagef("--count %d: want %s", o.count, game.PlayersRange)
	case o.duration <= 0 || o.duration > game.MaxDuration:
		return "", usagef("--duration %v: want more than 0, at most 24h", o.duration)
	case !(o.skill >= 0 && o.skill <= 1):
		return "", usagef("--skill %v: want 0 to 1", o.skill)
	}
	if err := cmp.Or(httpURL("server", o.server), httpURL("token-url", o.tokenURL)); err != nil {
		return "", err
	}
	o.server = strings.TrimSuffix(o.server, "/")
	if o.server != "" || o.tokenURL != "" {
		return readAdminToken(o.adminTokenFile)
	}
	if o.adminTokenFile != "" {
		return "", usagef("--admin-token-file is for --server and --token-url, neither given")
	}
	return "", nil
}

// httpURL rejects a flag's URL that is neither empty nor http:// or
// https:// with a host.
func httpURL(flag, s string) error {
	if s == "" {
		return nil
	}
	if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--%s %q: want an http://HOST:PORT URL", flag, s)
	}
	return nil
}

package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
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

// botsReport is what lagkit bots prints with --json.
type botsReport struct {
	Connect   string      `json:"connect"`
	DurationS float64     `json:"duration_s"`
	Bots      []botLine   `json:"bots"`
	Server    *serverLoad `json:"server,omitempty"`
}

// botLine is one bot's session.
type botLine struct {
	realtime.ClientStats
	Error string `json:"error,omitempty"`
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
				printBots(cmd.OutOrStdout(), rep)
			}
			if err == nil && rep.connected() == 0 {
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

func runBots(ctx context.Context, o botsOptions) (*botsReport, error) {
	bearer, err := checkBotsFlags(&o)
	if err != nil {
		return nil, err
	}
	dial, err := botDialer(o.connect, o.certHash)
	if err != nil {
		return nil, err
	}
	m, err := loadWorld(o.mapName)
	if err != nil {
		return nil, fmt.Errorf("--map: %w", err)
	}
	params := game.DefaultParams()
	grid, err := nav.Build(m, &params)
	if err != nil {
		return nil, err
	}
	weapon := game.Rifle()
	var before *loadSample
	if o.server != "" {
		if before, err = sampleLoad(ctx, o.server, bearer, nil); err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
	}
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	rep := &botsReport{Connect: o.connect, Bots: make([]botLine, o.count)}
	var wg sync.WaitGroup
	for i := range o.count {
		// Three in four bots attack, as in lagkit's matches of bots.
		b, err := bot.New(bot.Config{Skill: o.skill, Attacker: i%4 != 3}, m, grid, &params, &weapon, o.seed+uint64(i)*0x9e3779b97f4a7c15)
		if err != nil {
			return nil, err
		}
		line := &rep.Bots[i]
		line.Name, line.Seat = fmt.Sprintf("bot%d", i), -1
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.play(pctx, dial, bearer, client.Config{Map: m, Movement: &params, Name: line.Name}, b, line)
		}()
		// Bots join a few milliseconds apart, as players do, rather than in
		// one burst of connects.
		select {
		case <-time.After(10 * time.Millisecond):
		case <-pctx.Done():
		}
	}
	wg.Wait()
	rep.DurationS = time.Since(start).Seconds()
	if before != nil {
		after, err := sampleLoad(ctx, o.server, bearer, before)
		if err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
		rep.Server = before.load(after, o.count)
	}
	return rep, nil
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

// play runs one bot's session, its connect token fetched first with
// --token-url, and notes how it went in line.
func (o botsOptions) play(ctx context.Context, dial func(context.Context) (transport.Conn, error), bearer string, cc client.Config, brain realtime.Brain, line *botLine) {
	if o.tokenURL != "" {
		var err error
		if cc.Token, err = fetchToken(ctx, o.tokenURL, bearer, cc.Name); err != nil {
			line.Error = err.Error()
			return
		}
	}
	conn, err := dial(ctx)
	if err != nil {
		line.Error = err.Error()
		if o.certHash == "" && strings.Contains(line.Error, "certificate signed by unknown authority") {
			line.Error += " (a self-signed certificate: give --cert-hash the cert_sha256 lagkit serve logs)"
		}
		return
	}
	st, err := realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: cc, Brain: brain})
	line.ClientStats = st
	switch {
	case err != nil:
		line.Error = err.Error()
	case st.Seat < 0:
		line.Error = noSeat
	}
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

// noSeat is the end of a bot that never got a seat: a UDP server that
// is full, requires a token the bot lacks, or is not there does not
// answer.
const noSeat = "no seat: the server did not answer (nothing listens there, every seat is taken, or it requires connect tokens: --token-url)"

// connected returns how many bots got a seat.
func (r *botsReport) connected() int {
	n := 0
	for _, b := range r.Bots {
		if b.Seat >= 0 {
			n++
		}
	}
	return n
}

func printBots(w io.Writer, r *botsReport) {
	fmt.Fprintf(w, "%s on %s for %.1f s\n", count(len(r.Bots), "bot", "bots"), r.Connect, r.DurationS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bot\tseat\tsnapshots\trtt\tpred err\tshots\thits\thit by\tsbc\tend\t")
	for _, b := range r.Bots {
		end := b.Reason
		if b.Error != "" {
			end = b.Error
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f ms\t%.4f m\t%d\t%d\t%d\t%d\t%s\t\n", b.Name, b.Seat, b.Snapshots, b.RTTMeanMS,
			b.PredErrMeanM, b.Shots, b.Hits, b.HitsReceived, b.SBCReceived, end)
	}
	tw.Flush()
	if s := r.Server; s != nil {
		fmt.Fprintf(w, "server: %d ticks at %.0f Hz, tick p99 %.0f us (mean %.0f), tick-start lateness p99 %.0f us, %d overruns, CPU %.0f us per tick, %.0f B/s per client\n",
			s.Ticks, s.TickRateHz, s.TickP99US, s.TickMeanUS, s.LatenessP99US, s.Overruns, s.CPUPerTickUS, s.BytesPerSPerClient)
	}
}

// fetchToken gets a connect token for player from a lagkit serve token
// endpoint (POST /api/matches/{id}/tokens), sending the admin token
// bearer if set.
func fetchToken(ctx context.Context, url, bearer, player string) ([]byte, error) {
	body, _ := json.Marshal(map[string]string{"player": player})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("--token-url: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	withBearer(req, bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("--token-url: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&out); err != nil {
		return nil, fmt.Errorf("--token-url: %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("--token-url: %s: %s", resp.Status, out.Error)
	}
	tok, err := base64.StdEncoding.DecodeString(out.Token)
	if err != nil {
		return nil, fmt.Errorf("--token-url: token: %w", err)
	}
	return tok, nil
}

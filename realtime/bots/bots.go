// Package bots plays bots against a live lagkit server over real
// sockets, each a real client with its own connection, and reads the
// server's load from its admin listener meanwhile: what lagkit bots
// runs, a load benchmark.
package bots

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/shooter"
	lkbots "github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// Config is a run of bots.
type Config struct {
	// Connect is the server's address, as the report names it; Dial
	// connects one bot to it.
	Connect string
	Dial    func(context.Context) (transport.Conn, error)
	// Count bots play for Duration on Map with Skill (0 to 1), seeded
	// from Seed.
	Count    int
	Duration time.Duration
	Map      *world.Map
	Skill    float64
	Seed     uint64
	// Server, if set, is the server's admin listener (http://HOST:PORT),
	// whose load is read before and after; TokenURL, if set, its token
	// endpoint, from which each bot gets a connect token. Both are sent
	// Bearer, the admin token, if set.
	Server, TokenURL, Bearer string
	// CertHash is the pinned certificate's SHA-256 in hex, if any (an
	// error about an unknown authority without it says to give one).
	CertHash string
	// Policy makes bot i's policy from its seed (bot.Maker): a game's
	// own bots. nil is lagkit's shooter bot on Map with Skill, three in
	// four attacking, on Map's navigation grid.
	Policy bot.Maker
	// Client is every bot's client core configuration, for a game's own
	// (its Step, Game and Commands, as its server has them); its Name
	// is set per bot, and a nil Map or Movement takes Map and lagkit's
	// movement rules.
	Client client.Config
}

// Report is how a run of bots went.
type Report struct {
	Connect   string      `json:"connect"`
	DurationS float64     `json:"duration_s"`
	Bots      []Line      `json:"bots"`
	Server    *ServerLoad `json:"server,omitempty"`
}

// Line is one bot's session.
type Line struct {
	realtime.ClientStats
	Error string `json:"error,omitempty"`
}

// Run plays o.Count bots for o.Duration, joining a few milliseconds
// apart, and reports each bot's session and, with o.Server, the server's
// load meanwhile.
func Run(ctx context.Context, o Config) (*Report, error) {
	m, bearer := o.Map, o.Bearer
	params := game.DefaultParams()
	cc := o.Client
	if cc.Map == nil {
		cc.Map = m
	}
	if cc.Movement == nil {
		cc.Movement = &params
	}
	if cc.Map == nil {
		return nil, fmt.Errorf("bots: no map")
	}
	makeBot := o.Policy
	if makeBot == nil {
		grid, err := nav.Build(cc.Map, cc.Movement)
		if err != nil {
			return nil, err
		}
		rifle := weapon.Rifle()
		// Three in four bots attack, as in lagkit's matches of bots.
		skill := o.Skill
		makeBot = lkbots.Shooter(func(i int) lkbots.Config { return lkbots.Config{Skill: skill, Attacker: i%4 != 3} }, cc.Map, grid, cc.Movement, &rifle)
		if cc.Step == nil && cc.Game == nil {
			// lagkit's shooter, as lagkit serve arms it: the rifle alone.
			if err := shooter.ArmClient(&cc, nil); err != nil {
				return nil, err
			}
		}
	}
	var before *loadSample
	if o.Server != "" {
		var err error
		if before, err = sampleLoad(ctx, o.Server, bearer, nil); err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
	}
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	rep := &Report{Connect: o.Connect, Bots: make([]Line, o.Count)}
	var wg sync.WaitGroup
	for i := range o.Count {
		b, err := makeBot(i, o.Seed+uint64(i)*0x9e3779b97f4a7c15)
		if err != nil {
			return nil, fmt.Errorf("bots: bot %d: %w", i, err)
		}
		if b == nil {
			return nil, fmt.Errorf("bots: bot %d: no policy", i)
		}
		line := &rep.Bots[i]
		line.Name, line.Seat = fmt.Sprintf("bot%d", i), -1
		bc := cc
		bc.Name = line.Name
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.play(pctx, o.Dial, bearer, bc, b, line)
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
		after, err := sampleLoad(ctx, o.Server, bearer, before)
		if err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
		rep.Server = before.load(after, o.Count)
	}
	return rep, nil
}

// play runs one bot's session, its connect token fetched first with
// --token-url, and notes how it went in line.
func (o Config) play(ctx context.Context, dial func(context.Context) (transport.Conn, error), bearer string, cc client.Config, brain realtime.Brain, line *Line) {
	if o.TokenURL != "" {
		var err error
		if cc.Token, err = fetchToken(ctx, o.TokenURL, bearer, cc.Name); err != nil {
			line.Error = err.Error()
			return
		}
	}
	conn, err := dial(ctx)
	if err != nil {
		line.Error = err.Error()
		if o.CertHash == "" && strings.Contains(line.Error, "certificate signed by unknown authority") {
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
		line.Error = NoSeat
	}
}

// NoSeat is the end of a bot that never got a seat: a UDP server that
// is full, requires a token the bot lacks, or is not there does not
// answer.
const NoSeat = "no seat: the server did not answer (nothing listens there, every seat is taken, or it requires connect tokens: --token-url)"

// Connected returns how many bots got a seat.
func (r *Report) Connected() int {
	n := 0
	for _, b := range r.Bots {
		if b.Seat >= 0 {
			n++
		}
	}
	return n
}

// WriteTable writes r for people: a row per bot, then the server's load.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "%s on %s for %.1f s\n", botCount(len(r.Bots)), r.Connect, r.DurationS)
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

// botCount says n bots, in the singular for one.
func botCount(n int) string {
	if n == 1 {
		return "1 bot"
	}
	return fmt.Sprintf("%d bots", n)
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
	WithBearer(req, bearer)
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

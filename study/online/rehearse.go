package online

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// Rehearsal is a rehearsal of an online study: headless participants
// arriving by a Poisson process, each going through the lobby's
// protocol as a page does (arrival, the round trip's measurement by the
// game server host's probe, the prescreen, the wait) and then playing its seat's session with a bot
// (SeatPlayer), the sessions on the game servers the allocator starts.
type Rehearsal struct {
	// Config is the lobby's (its Alloc starts the sessions).
	Config Config
	// Participants arrive over Over on average (a Poisson process of
	// rate Participants/Over, drawn from Seed).
	Participants int
	Over         time.Duration
	Seed         uint64
	// TLS pins the game servers' certificate for the seat players.
	TLS transport.ClientTLS
	// KillAfter, when set, kills the first match's game server that long
	// after it started, as a crash would; with KillRound (1 on), that
	// long after one of its seats saw that round played.
	KillAfter time.Duration
	KillRound int
	// LeaveAfter, when set, has one headless participant (the first
	// seated in a match KillAfter does not kill) close its seat's page
	// that long after it began playing, as a person leaving mid-match
	// would, and open it again once the lobby has recorded the dropout:
	// a bot has taken the seat by then.
	LeaveAfter time.Duration
	// Tick is how often the lobby forms matches (default 100 ms).
	Tick time.Duration
	// Attention is the schedule's attention checks' instructed answers,
	// by question id, which the headless participants give; but
	// Inattentive of them (a share, 0 to 1, drawn from each one's
	// seed) answer each scale's middle instead, as a participant who
	// does not read would, and so fail the checks the answer is not the
	// middle of.
	Attention   map[string]int
	Inattentive float64

	// reached is closed once a seat of the first match saw KillRound
	// played (reach closes it).
	reached chan struct{}
	reach   func()
	// ProbeAddr is where the prescreen's probe listens, on the game
	// servers' host (default 127.0.0.1:0), with ProbeCert (nil: a
	// self-signed one).
	ProbeAddr string
	ProbeCert *transport.Certificate
	// Pages of the participants, the first to arrive, are real pages in
	// Browser's Chromium rather than headless Go ones: the join page,
	// its prescreen, the wait, the shooter page played by scripted keys
	// and the completion (page.mjs). The first keeps screenshots of the
	// lobby's pages in Shots, when set.
	Pages   int
	Browser Browser
	Shots   string
}

// MaxRehearsal bounds a rehearsal's participants: each is a goroutine
// with its own client core and bot in this process.
const MaxRehearsal = 2000

// Outcome is how one headless participant's part ended.
type Outcome struct {
	ID string
	// State is its last lobby state (completed, dropped, refused), and
	// Reason the lobby's reason for dropped and refused.
	State, Reason string
	// Match is the match it was seated in (-1: none); Rounds and
	// Answered what its seat played and answered.
	Match            int
	Rounds, Answered int
	Err              string
	// Requeued is how often it went back to the queue after its match's
	// game server was lost; Left, for the one that left mid-match, what
	// its seat's page said when it came back.
	Requeued int
	Left     string
	// Page says the participant was a Chromium page.
	Page bool
}

// RehearsalReport is what a rehearsal found.
type RehearsalReport struct {
	Flow     lobby.Flow
	Matches  []lobby.Match
	Groups   []string
	Played   []int // matches per group
	Outcomes []Outcome
	// Killed is the match whose game server was killed (-1: none).
	Killed int
	// Unstored counts the participant events the lobby could not store
	// (Config.Record); they are in its log.
	Unstored int
	Wall     time.Duration
}

// Run plays the rehearsal until every participant's part has ended or
// ctx ends.
func (r *Rehearsal) Run(ctx context.Context) (*RehearsalReport, error) {
	switch {
	case r.Participants < 1 || r.Participants > MaxRehearsal:
		return nil, fmt.Errorf("online: rehearsal of %d participants, want 1 to %d", r.Participants, MaxRehearsal)
	case r.Over < 0:
		return nil, fmt.Errorf("online: arrivals over %v", r.Over)
	case r.KillRound < 0 || r.KillRound > 0 && r.KillAfter <= 0:
		return nil, fmt.Errorf("online: kill in round %d (after %v): want a round from 1, with a time to kill after", r.KillRound, r.KillAfter)
	case !(r.Inattentive >= 0 && r.Inattentive <= 1):
		return nil, fmt.Errorf("online: inattentive share %v: want 0 to 1", r.Inattentive)
	case r.Pages < 0 || r.Pages > r.Participants:
		return nil, fmt.Errorf("online: %d pages of %d participants", r.Pages, r.Participants)
	case r.Pages > 0 && (r.Browser.Node == "" || r.Browser.Chromium == "" || r.Browser.Playwright == ""):
		return nil, errors.New("online: pages without a browser (FindBrowser)")
	}
	tick := r.Tick
	if tick <= 0 {
		tick = 100 * time.Millisecond
	}
	cfg := r.Config
	cfg.TrustProxy = netip.MustParseAddr("127.0.0.1")
	srv, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	lctx, stopLobby := context.WithCancel(ctx)
	defer stopLobby()
	paddr := r.ProbeAddr
	if paddr == "" {
		paddr = "127.0.0.1:0"
	}
	if _, err := srv.ListenProbe(lctx, paddr, r.ProbeCert); err != nil {
		ln.Close()
		return nil, err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lctx, ln, tick) }()
	base := "http://" + ln.Addr().String()

	rep := &RehearsalReport{Killed: -1}
	for _, g := range r.Config.Lobby.Groups {
		rep.Groups = append(rep.Groups, g.Name)
	}
	var leaving sync.Mutex
	left := false
	// leaver claims the leaving for a participant seated in match m.
	leaver := func(m int) bool {
		leaving.Lock()
		defer leaving.Unlock()
		if r.LeaveAfter <= 0 || left || (r.KillAfter > 0 && m == 0) {
			return false
		}
		left = true
		return true
	}
	r.reached = make(chan struct{})
	r.reach = sync.OnceFunc(func() { close(r.reached) })
	killed := make(chan int, 1)
	if r.KillAfter > 0 {
		go func() { killed <- r.kill(lctx, srv) }()
	} else {
		killed <- -1
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0x7e4ea75e))
	outs := make([]Outcome, r.Participants)
	var wg sync.WaitGroup
	mean := float64(r.Over) / float64(r.Participants)
	for i := range r.Participants {
		if i > 0 && mean > 0 {
			gap := time.Duration(rng.ExpFloat64() * mean)
			select {
			case <-time.After(gap):
			case <-ctx.Done():
			}
		}
		seed := rng.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each from an address of its own, as people at home are:
			// the lobby, in front of which the rehearsal stands as the
			// proxy, limits arrivals per address.
			from := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			id := fmt.Sprintf("rehearsal-%04d", i)
			if i < r.Pages {
				shots := ""
				if i == 0 {
					shots = r.Shots
				}
				outs[i] = r.page(ctx, base, id, shots)
				return
			}
			outs[i] = r.participant(ctx, srv, base, id, from, seed, leaver)
		}()
	}
	wg.Wait()
	stopLobby()
	rep.Killed = <-killed
	if err := <-served; err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := srv.Drain(drain); err != nil {
		return nil, fmt.Errorf("online: matches still running after the rehearsal: %w", err)
	}
	rep.Unstored = srv.Flush(ctx)
	rep.Flow, rep.Matches, rep.Outcomes = srv.Flow(), srv.Matches(), outs
	rep.Played = make([]int, len(rep.Groups))
	seated := map[string]int{}
	for _, m := range rep.Matches {
		if m.Group >= 0 && m.Group < len(rep.Played) {
			rep.Played[m.Group]++
		}
		for _, id := range m.People {
			seated[id] = m.ID
		}
	}
	for i := range rep.Outcomes {
		if m, ok := seated[rep.Outcomes[i].ID]; ok {
			rep.Outcomes[i].Match = m
		}
	}
	rep.Wall = time.Since(start)
	return rep, ctx.Err()
}

// kill kills the first match's game server KillAfter after it started,
// and returns the match's id (-1 if none started first).
func (r *Rehearsal) kill(ctx context.Context, srv *Server) int {
	for {
		if s := srv.Session(0); s != nil && s.Kill != nil {
			if r.KillRound > 0 {
				select {
				case <-r.reached:
				case <-s.Done:
					return -1
				case <-ctx.Done():
					return -1
				}
			}
			select {
			case <-time.After(r.KillAfter):
			case <-s.Done:
				return -1 // over before it could be killed
			case <-ctx.Done():
				return -1
			}
			if s.Kill() != nil {
				return -1
			}
			return 0
		}
		select {
		case <-ctx.Done():
			return -1
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// participant plays one headless participant's part: through the lobby
// to a seat, the seat's session with a bot, and back to the lobby for
// the completion, or, its game server lost, back to the queue for
// another match when the schedule says so. The one leaver claims leaves
// its match mid-way.
func (r *Rehearsal) participant(ctx context.Context, srv *Server, base, id string, from netip.Addr, seed uint64, leaver func(match int) bool) Outcome {
	out := Outcome{ID: id, Match: -1}
	p := &Participant{Base: base, ID: id, Study: "rehearsal", Session: id, From: from}
	fail := func(err error) Outcome {
		out.Err = err.Error()
		if st, serr := p.Status(context.WithoutCancel(ctx)); serr == nil {
			out.State, out.Reason = st.State, st.Reason
		}
		return out
	}
	if _, err := p.Arrive(ctx); err != nil {
		return fail(err)
	}
	if r.Config.Consent != "" {
		if _, err := p.Consent(ctx); err != nil {
			return fail(err)
		}
	}
	if _, err := p.Measure(ctx); err != nil {
		return fail(err)
	}
	st, err := p.Prescreen(ctx, Screen{FPS: 120, RefreshHz: 60, PointerLock: true})
	if err != nil {
		return fail(err)
	}
	for {
		st, err = p.Until(ctx, 250*time.Millisecond, func(s Status) bool {
			return s.Join != "" || s.State == lobby.Dropped.String() || s.State == lobby.Refused.String() || s.State == lobby.Completed.String()
		})
		if err != nil {
			return fail(err)
		}
		if st.Join == "" || st.State != lobby.Matched.String() {
			break
		}
		sp := &SeatPlayer{Link: st.Join, TLS: r.TLS, Seed: seed}
		if rand.New(rand.NewPCG(seed, 0x1a77e)).Float64() >= r.Inattentive {
			sp.Attention = r.Attention
		}
		if m := matchOf(srv, id); m == 0 && r.KillRound > 0 {
			sp.Seen = func(st web.StudyStatus) {
				if st.Round >= r.KillRound-1 && st.Phase == study.PhasePlaying {
					r.reach()
				}
			}
		}
		var res SeatResult
		if leaver(matchOf(srv, id)) {
			res, err = r.leave(ctx, p, sp)
		} else {
			res, err = sp.Play(ctx)
		}
		out.Rounds, out.Answered = out.Rounds+res.Rounds, out.Answered+res.Answered
		out.Err = ""
		if si := (*StoodInError)(nil); errors.As(err, &si) {
			out.Left = si.Error()
		} else if err != nil {
			out.Err = err.Error()
		}
		// The lobby completes the match's people once its session has
		// ended; when its game server died, it requeues or finishes
		// them, and a requeued one may be in its next match at once.
		was := st.Join
		st, err = p.Until(ctx, 250*time.Millisecond, func(s Status) bool { return s.State != lobby.Matched.String() || s.Join != was })
		if err != nil {
			return fail(err)
		}
		if st.State != lobby.Waiting.String() && st.State != lobby.Matched.String() {
			break
		}
		out.Requeued++
	}
	out.State, out.Reason = st.State, st.Reason
	return out
}

// matchOf returns the match participant id was last seated in (-1:
// none).
func matchOf(srv *Server, id string) int {
	ms := srv.Matches()
	for i := len(ms) - 1; i >= 0; i-- {
		if slices.Contains(ms[i].People, id) {
			return ms[i].ID
		}
	}
	return -1
}

// leave plays sp's seat for LeaveAfter and closes it, as a person
// leaving mid-match closes the tab; once the lobby has recorded the
// dropout (the game server gave the seat to a bot), it opens the seat's
// page again, which says a bot has taken the seat.
func (r *Rehearsal) leave(ctx context.Context, p *Participant, sp *SeatPlayer) (SeatResult, error) {
	pctx, cancel := context.WithTimeout(ctx, r.LeaveAfter)
	res, err := sp.Play(pctx)
	left := pctx.Err() != nil
	cancel()
	if !left || ctx.Err() != nil {
		return res, err // the session ended before the leaving
	}
	if _, err := p.Until(ctx, 250*time.Millisecond, func(s Status) bool { return s.State != lobby.Matched.String() }); err != nil {
		return res, err
	}
	again, err := sp.Play(ctx)
	res.Rounds += again.Rounds
	return res, err
}

// page plays one participant in a Chromium page, from the join link as
// the platform fills it in.
func (r *Rehearsal) page(ctx context.Context, base, id, shots string) Outcome {
	q := url.Values{}
	for k, v := range map[string]string{r.Config.IDParam: id, r.Config.StudyParam: "rehearsal", r.Config.SessionParam: id} {
		if k != "" {
			q.Set(k, v)
		}
	}
	out := Outcome{ID: id, Match: -1, Page: true}
	res, err := r.Browser.Play(ctx, base+"/?"+q.Encode(), shots)
	out.State, out.Reason, out.Rounds, out.Answered, out.Requeued = res.State, res.Reason, res.Rounds, res.Answered, res.Requeued
	if err != nil {
		out.Err = err.Error()
		if st, serr := (&Participant{Base: base, ID: id}).Status(context.WithoutCancel(ctx)); serr == nil {
			out.State, out.Reason = st.State, st.Reason
		}
	}
	return out
}

// PagesFailed returns how many of the rehearsal's Chromium pages ended
// in an error.
func (rep *RehearsalReport) PagesFailed() int {
	n := 0
	for _, o := range rep.Outcomes {
		if o.Page && o.Err != "" {
			n++
		}
	}
	return n
}

// Waits returns the people's waits from admission to their match, in
// order.
func (rep *RehearsalReport) Waits() []time.Duration {
	var w []time.Duration
	for _, m := range rep.Matches {
		w = append(w, m.Waits...)
	}
	slices.Sort(w)
	return w
}

// quantile returns the q-quantile of sorted xs (nearest rank).
func quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// Write writes the rehearsal's flow, balance and wait tables.
func (rep *RehearsalReport) Write(w io.Writer) {
	f := rep.Flow
	fmt.Fprintf(w, "participant flow (%d participants, %.0f s)\n", len(rep.Outcomes), rep.Wall.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range []struct {
		name string
		n    int
	}{
		{"arrived", f.Arrived}, {"consented", f.Consented}, {"admitted", f.Admitted}, {"refused", f.Refused}, {"  timed out at the prescreen", f.TimedOut},
		{"matched", f.Matched}, {"requeued (game server lost)", f.Requeued}, {"completed", f.Completed}, {"  game server lost", f.Lost}, {"dropped", f.Dropped},
		{"  at the prescreen", f.DroppedPrescreen}, {"  waiting", f.DroppedWaiting},
		{"  from a match", f.Dropped - f.DroppedPrescreen - f.DroppedWaiting},
	} {
		fmt.Fprintf(tw, "%s\t%d\t\n", row.name, row.n)
	}
	tw.Flush()
	accounted, missing := f.Completed+f.Dropped+f.Refused, 0
	for _, o := range rep.Outcomes {
		if o.State == "" {
			missing++ // its arrival was refused: the lobby never knew it
		}
	}
	fmt.Fprintf(w, "accounted for: %d of %d participants (%d of %d arrived completed, dropped or refused; %d did not arrive)\n",
		accounted+missing, len(rep.Outcomes), accounted, f.Arrived, missing)
	if rep.Unstored > 0 {
		fmt.Fprintf(w, "%d participant events were not stored in the study database: they are in the lobby's log\n", rep.Unstored)
	}
	if rep.Killed >= 0 {
		fmt.Fprintf(w, "match %d's game server was killed mid-round\n", rep.Killed)
	}
	for _, o := range rep.Outcomes {
		if o.Page {
			fmt.Fprintf(w, "page %s (Chromium): %s, %d rounds joined, %d questionnaires answered", o.ID, o.State, o.Rounds, o.Answered)
			if o.Err != "" {
				fmt.Fprintf(w, " (%s)", o.Err)
			}
			fmt.Fprintln(w)
		}
		if o.Requeued > 0 {
			fmt.Fprintf(w, "  %s went back to the queue %d time(s) and ended %s\n", o.ID, o.Requeued, o.State)
		}
		if o.Left != "" {
			fmt.Fprintf(w, "  %s left mid-match; back at its seat's page: %s\n", o.ID, strings.TrimPrefix(o.Left, "online: "))
		}
	}
	reasons := map[string]int{}
	for _, o := range rep.Outcomes {
		switch {
		case o.State == "":
			reasons["did not arrive: "+o.Err]++
		case o.Reason != "":
			reasons[o.State+": "+o.Reason]++
		}
	}
	keys := slices.Sorted(maps.Keys(reasons))
	for _, k := range keys {
		fmt.Fprintf(w, "  %d %s\n", reasons[k], k)
	}
	fmt.Fprintln(w, "\nbalance: matches by counterbalancing group")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for g, name := range rep.Groups {
		people := 0
		for _, m := range rep.Matches {
			if m.Group == g {
				people += len(m.People)
			}
		}
		fmt.Fprintf(tw, "%s\t%d matches\t%d people\t\n", name, rep.Played[g], people)
	}
	tw.Flush()
	waits := rep.Waits()
	fmt.Fprintf(w, "\nwaits from admission to a match: %d people, median %.1f s, 95th percentile %.1f s, longest %.1f s; %d bots took empty seats\n",
		len(waits), quantile(waits, 0.5).Seconds(), quantile(waits, 0.95).Seconds(), quantile(waits, 1).Seconds(), f.Bots)
}

package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/live"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/study/online"
	"github.com/lagkit/lagkit/transport"
)

// studyLobbyFlags are lagkit study lobby's flags.
type studyLobbyFlags struct {
	listen, gameHost, dsn, secretFile string
	cert, key, logFormat              string
	servers, probePort                int
	quick                             bool
	seed                              uint64
	tick                              time.Duration
	trustProxy                        string
	join                              study.Join
	// allocator is local or agones; kubeconfig, namespace, fleet,
	// selector and allocateWait configure agones.
	allocator, kubeconfig, namespace, fleet string
	selector                                map[string]string
	allocateWait                            time.Duration
	// studyID is the study every match's session joins (joinStudy),
	// created whether joinStudy started it.
	studyID int64
	created bool
	// consent says the schedule has a consent text, which the lobby asks
	// before its prescreen: its matches' pages do not ask again.
	consent bool
}

func newStudyLobbyCmd() *cobra.Command {
	var o studyLobbyFlags
	cmd := &cobra.Command{
		Use:   "lobby FILE",
		Short: "Serve an online study's lobby: one join link, a prescreen, matches formed as people arrive",
		Long: `Lobby serves the lobby of an online study, a schedule with an [online]
table: one join link for everyone (carrying the recruitment platform's
participant, study and session ids, named by the table), consent, a
prescreen of the browser and of the participant's round trip with the
table's admission rules, and a wait. The round trip is the one to
--game-host over the game's own transport: a probe there
(--probe-port) times its own pings, which the page echoes over the
link the game opens. With --allocator agones it is the one to the
Fleet's game servers instead: each serves the probe while it waits
Ready (lagkit study run --agones --agones-probe), on its GameServer
port named probe, and seals each result with --secret-file's key (the
same Secret mounted in both); the lobby names pages the probes of a
few Ready GameServers (one per node address, at most 4), and keeps a
round trip the page hands on only if its seal holds for that
participant's ticket and a host it named, made within 2 minutes and
not handed on before. Matches form in order of arrival, the schedule's
counterbalancing groups balanced as they form; a match that waited
max_wait starts with bots in the empty seats.

Each match is a session of the study served by a game server process
of its own on this machine, at most --servers at once: lagkit study
run FILE --group G for the match's group, with each person's seat
given a participant code (--codes) and the seats no one took played by
bots and recorded as bots' (--absent), writing to the same --db. Its
page is on --game-host at a port of its own. A participant agrees to
the schedule's consent text in the lobby, before the prescreen, and
the session records that consent (--consented) rather than ask again.
A participant's page goes from the lobby to its seat's link; when the
session ends it shows the completion code (or sends the participant to
completion_url), a code the lobby can verify later from
--secret-file's key.

With --allocator agones the matches run on Kubernetes instead: each is
a GameServerAllocation (allocation.agones.dev/v1) of a Ready GameServer
of Agones fleet --fleet in --namespace (and with the labels --selector
names), its match in the allocation's lagkit.dev/ annotations: the
study, the group, the seed, each person's seat's code and the seats
left to bots. The Fleet's game servers run lagkit study run FILE
--agones, which read those annotations once allocated and serve the
session, writing to the same database (a postgres:// --db for both). A
participant's link is the GameServer's address and its port named
"web", with the seat's code; the lobby sends people there once the port
answers, and watches the GameServer until it says how its session
ended. An allocation the Fleet cannot serve (UnAllocated, Contention)
is tried again for --allocate-wait; then the match's people are
dropped, as when a local session fails to start. The lobby finds the
Kubernetes API from --kubeconfig, else in a pod from its service
account, else as kubectl does ($KUBECONFIG, ~/.kube/config). The
game servers' addresses, ports and TLS are the Fleet's: --servers,
--game-host, --cert and --key are the local allocator's.

A participant away from a running match for the schedule's rejoin grace
loses the seat to a bot for the rest of the session (the game server
prints "dropout seat N: REASON"; the lobby records them dropped), and
a match whose game server dies mid-round has its round marked cut and
its people requeued or finished, as on_server_lost says.

The lobby stores each participant's events in --db (lobby_events), a
match's with the study session its game server recorded, an arrival's
with the platform's study and session ids its link carried. Started again
on the same study, it remembers from them who took part: each id takes
part once, and one who took part is answered how their part ended (the
completion code again, the refusal's reason, the dropout's answer); one
who never reached a match starts afresh, and one in a match when the
lobby stopped dropped out of it.

The lobby itself is plain HTTP on --listen; put it behind the TLS
proxy that serves the study's domain. It runs until SIGINT or SIGTERM,
then prints its participant flow; a match still playing is stopped with
it and can be resumed with lagkit study run (with --allocator agones it
plays on, on its GameServer).`,
		Args: cobra.ExactArgs(1),
		RunE: o.run,
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:8080", "HOST:PORT of the lobby's join page (HTTP)")
	f.StringVar(&o.gameHost, "game-host", "127.0.0.1", "the host the matches' game servers listen on and their links name")
	f.IntVar(&o.probePort, "probe-port", 0, "the port on --game-host of the prescreen's round-trip probe, over the game's WebTransport and WebSocket (0: a free one)")
	f.IntVar(&o.servers, "servers", 4, "game server processes at most at once (1 to 64); a match beyond them waits")
	f.StringVar(&o.dsn, "db", defaultDB, "study database every match writes to: an SQLite file, or a postgres:// URL")
	f.StringVar(&o.secretFile, "secret-file", "lobby.secret", "the key of the completion codes: read if it exists, else made (32 random bytes, mode 0600)")
	f.StringVar(&o.cert, "cert", "", "the game servers' TLS certificate (PEM; default: each a self-signed one)")
	f.StringVar(&o.key, "key", "", "TLS key (PEM) for --cert")
	f.BoolVar(&o.quick, "quick", false, fmt.Sprintf("a smoke test: each match's rounds cut to at most %v", quickRound))
	f.Uint64Var(&o.seed, "seed", 1, "random seed of the matches' bots")
	f.DurationVar(&o.tick, "tick", 250*time.Millisecond, "how often the lobby forms matches (10ms to 5s)")
	f.StringVar(&o.logFormat, "log-format", "auto", "logs as text or json (auto: text on a terminal, json otherwise)")
	f.StringVar(&o.trustProxy, "trust-proxy", "", "the reverse proxy's address in front of the lobby: arrivals from it are counted by the address its X-Forwarded-For names (the limit on arrivals per address)")
	f.StringVar(&o.join.Study, "study", "", "the study the matches' sessions join: its id, or its name (default: the one study of this schedule's name that ran it, else a new one)")
	f.BoolVar(&o.join.New, "new-study", false, "start a new study, even when one of this name and schedule exists")
	f.StringVar(&o.allocator, "allocator", "local", "where matches run: local (lagkit study run processes on this machine) or agones (GameServers of an Agones Fleet on Kubernetes)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "agones: the kubeconfig of the cluster (default: the pod's service account in a pod, else $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&o.namespace, "namespace", "", "agones: the namespace of the Fleet (default: the pod's, else the kubeconfig context's, else default)")
	f.StringVar(&o.fleet, "fleet", "lagkit-study", "agones: the Fleet whose GameServers run the matches (lagkit study run --agones)")
	f.StringToStringVar(&o.selector, "selector", nil, "agones: KEY=VALUE,...: labels an allocated GameServer must have besides the Fleet's")
	f.DurationVar(&o.allocateWait, "allocate-wait", time.Minute, "agones: how long a match's allocation is retried while the Fleet has no Ready GameServer (1s to 30m)")
	return cmd
}

// probeListing is how often the lobby lists the Fleet's probes under
// Agones: a GameServer allocated drops out, a new Ready one comes in.
const probeListing = 5 * time.Second

// joinStudy finds the study every match's session joins, or starts it,
// before any match: sessions started at once would each start a study
// of their own.
func (o *studyLobbyFlags) joinStudy(ctx context.Context, s *study.Schedule, out io.Writer) error {
	if o.join.New && o.join.Study != "" {
		return usagef("--study and --new-study: give one of them")
	}
	db, err := store.Open(ctx, o.dsn)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	defer db.Close()
	target, err := o.join.Target(ctx, db, s, false)
	if err != nil {
		return err
	}
	if target.ID == 0 {
		if target.ID, err = db.NewStudySet(ctx, store.StudySet{Name: s.Name, Key: s.StudyKey(), Created: time.Now()}); err != nil {
			return err
		}
		o.created = true
		fmt.Fprintf(out, "study %s: new study %d in %s; every match is a session of it\n", s.Name, target.ID, o.dsn)
	} else {
		fmt.Fprintf(out, "study %s: the matches are sessions of study %s\n", s.Name, target.Describe())
	}
	o.studyID = target.ID
	return nil
}

// recorder opens --db for the lobby's events and returns the online
// service's Record, storing them as study o.studyID's, and the close of
// the database.
func (o *studyLobbyFlags) recorder(ctx context.Context) (func(context.Context, time.Time, []lobby.Event) error, func() error, error) {
	db, err := store.Open(ctx, o.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("--db: %w", err)
	}
	return o.recordIn(db), db.Close, nil
}

// recordIn is the online service's Record, storing the lobby's events
// in db as study o.studyID's.
func (o *studyLobbyFlags) recordIn(db *store.DB) func(context.Context, time.Time, []lobby.Event) error {
	return func(ctx context.Context, start time.Time, evs []lobby.Event) error {
		out := make([]store.LobbyEvent, len(evs))
		for i, e := range evs {
			out[i] = store.LobbyEvent{Lobby: start, At: start.Add(e.At), Participant: e.Participant, Kind: e.Kind, Reason: e.Reason, Match: e.Match, Session: e.Session,
				LinkStudy: e.LinkStudy, LinkSession: e.LinkSession}
		}
		return db.AddLobbyEvents(ctx, o.studyID, out)
	}
}

// sessionIn is the online service's FindSession: the session of study
// o.studyID in db whose people's seats had the codes the lobby gave
// match m's, named in the match's events stored so far.
func (o *studyLobbyFlags) sessionIn(db *store.DB) func(context.Context, time.Time, lobby.Match, *online.Session) (int64, error) {
	return func(ctx context.Context, start time.Time, m lobby.Match, sess *online.Session) (int64, error) {
		codes := make([]string, 0, len(sess.Codes))
		for _, c := range sess.Codes {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		id, err := db.SessionOfCodes(ctx, o.studyID, codes)
		if err != nil || id == 0 {
			return id, err
		}
		if _, err := db.LinkLobbySession(ctx, o.studyID, start, m.ID, id); err != nil {
			return 0, err
		}
		return id, nil
	}
}

// restore tells srv of the participants earlier lobbies of study
// o.studyID recorded in db (a lobby started again, or another serving
// the study before): each takes part once across them. out is told how
// many.
func (o *studyLobbyFlags) restore(ctx context.Context, db *store.DB, srv *online.Server, name string, out io.Writer) error {
	stored, err := db.LobbyEvents(ctx, o.studyID)
	if err != nil {
		return err
	}
	if len(stored) == 0 {
		return nil
	}
	evs := make([]lobby.Event, len(stored))
	lobbies := map[int64]bool{}
	for i, e := range stored {
		evs[i] = lobby.Event{At: e.At.Sub(e.Lobby), Participant: e.Participant, Kind: e.Kind, Reason: e.Reason, Match: e.Match, Session: e.Session,
			LinkStudy: e.LinkStudy, LinkSession: e.LinkSession}
		lobbies[e.Lobby.UnixNano()] = true
	}
	n, err := srv.Restore(evs)
	switch {
	case errors.Is(err, lobby.ErrFull):
		// The lobby answers those it remembers and takes no one new:
		// the study is full.
		fmt.Fprintf(out, "study %s: %v\n", name, err)
	case err != nil:
		return fmt.Errorf("the lobby events of study %d in %s: %w", o.studyID, o.dsn, err)
	}
	fmt.Fprintf(out, "study %s: %d participants of %d earlier lobbies remembered: each takes part once\n", name, n, len(lobbies))
	return nil
}

// dropStudy drops the study joinStudy started when no session of it
// came: a lobby that seated no one leaves no empty study behind.
func (o *studyLobbyFlags) dropStudy(ctx context.Context) error {
	if !o.created {
		return nil
	}
	db, err := store.Open(ctx, o.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.DropEmptySet(ctx, o.studyID)
}

// run checks the schedule and its flags and serves the lobby until a
// signal.
func (o *studyLobbyFlags) run(cmd *cobra.Command, args []string) error {
	path := args[0]
	s, err := checkStudy(path, false, -1)
	if err != nil {
		return err
	}
	if s.Online == nil {
		return fmt.Errorf("%s: no [online] table: study lobby serves an online study (see docs/study.md); a lab study runs with study run", path)
	}
	if err := o.checkAllocator(cmd.Flags().Changed); err != nil {
		return err
	}
	switch {
	case o.servers < 1 || o.servers > 64:
		return usagef("--servers %d: want 1 to 64", o.servers)
	case o.tick < 10*time.Millisecond || o.tick > 5*time.Second:
		return usagef("--tick %v: want 10ms to 5s", o.tick)
	case (o.cert == "") != (o.key == ""):
		return usagef("--cert and --key go together")
	case o.probePort < 0 || o.probePort > 65535:
		return usagef("--probe-port %d: want 0 to 65535", o.probePort)
	case net.ParseIP(o.gameHost) == nil && !validHost(o.gameHost):
		return usagef("--game-host %q: want a host name or an IP address", o.gameHost)
	}
	if _, _, err := net.SplitHostPort(o.listen); err != nil {
		return usagef("--listen %q: want HOST:PORT", o.listen)
	}
	secret, err := lobbySecret(o.secretFile)
	if err != nil {
		return fmt.Errorf("--secret-file: %w", err)
	}
	log, err := serve.NewLogger(o.logFormat, cmd.ErrOrStderr())
	if err != nil {
		return usagef("--log-format %v", err)
	}
	out := cmd.OutOrStdout()
	var kube kubeAPI
	if o.allocator == "agones" {
		// Found before the study is: a lobby that cannot reach the
		// cluster starts no study.
		if kube, err = newKubeAPI(o.kubeconfig, o.namespace); err != nil {
			return fmt.Errorf("--allocator agones: %w", err)
		}
	}
	if err := o.joinStudy(cmd.Context(), s, out); err != nil {
		return err
	}
	oc, err := o.onlineConfig(s, path, secret, out, cmd.ErrOrStderr(), log)
	if err != nil {
		return err
	}
	var fleet *online.Agones
	if o.allocator == "agones" {
		fleet = o.agonesAllocator(s, kube, out, log)
		oc.Alloc = fleet
		// The round trip is measured by the Fleet's game servers, which
		// seal their results with the lobby's key.
		oc.SealKey = probe.SealKey(secret)
	}
	if o.trustProxy != "" {
		if oc.TrustProxy, err = netip.ParseAddr(o.trustProxy); err != nil {
			return usagef("--trust-proxy %q: want an IP address", o.trustProxy)
		}
	}
	lc, o2 := oc.Lobby, s.Online
	db, err := store.Open(cmd.Context(), o.dsn)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	defer db.Close()
	oc.Record, oc.FindSession = o.recordIn(db), o.sessionIn(db)
	srv, err := online.New(oc)
	if err != nil {
		return err
	}
	if err := o.restore(cmd.Context(), db, srv, s.Name, out); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	// The join link as a recruitment platform fills it in: Prolific puts
	// its parameter ID where the link says {{%ID%}}.
	q := make([]string, 0, 3)
	for _, p := range []string{o2.IDParam, o2.StudyParam, o2.SessionParam} {
		if p != "" {
			q = append(q, p+"={{%"+p+"%}}")
		}
	}
	var probeCert *transport.Certificate
	if o.cert != "" {
		if probeCert, err = transport.LoadCertificate(o.cert, o.key); err != nil {
			return fmt.Errorf("--cert: %w", err)
		}
	}
	if fleet != nil {
		go fleet.FollowProbes(ctx, probeListing, srv.SetProbes)
		fmt.Fprintf(out, "study %s: the prescreen's round trip measured by the probes of fleet %s's Ready GameServers (port %s), at most %d node addresses, sealed with --secret-file's key\n",
			s.Name, o.fleet, online.ProbePort, online.MaxFleetProbes)
	} else {
		ph, err := srv.ListenProbe(ctx, net.JoinHostPort(o.gameHost, strconv.Itoa(o.probePort)), probeCert)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--probe-port: %w", err)
		}
		fmt.Fprintf(out, "study %s: the prescreen's round-trip probe on %s (WebTransport and WebSocket)\n", s.Name, ph.Host)
	}
	fmt.Fprintf(out, "study %s: lobby http://%s/?%s\n", s.Name, ln.Addr(), strings.Join(q, "&"))
	if len(lc.Groups) > 1 {
		for _, grp := range lc.Groups {
			fmt.Fprintf(out, "study %s: %s\n", s.Name, grp.Name)
		}
	}
	err = srv.Serve(ctx, ln, o.tick)
	// The matches got the stop too (their processes a SIGINT): each
	// stops its round and keeps its records, to be resumed.
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if derr := srv.Drain(drain); derr != nil {
		fmt.Fprintf(out, "study %s: matches still running after 30 s: %v\n", s.Name, derr)
	}
	if n := srv.Flush(context.WithoutCancel(ctx)); n > 0 {
		fmt.Fprintf(out, "study %s: %d participant events were not stored in %s: they are in the log\n", s.Name, n, o.dsn)
	}
	printFlow(out, srv.Flow())
	if derr := o.dropStudy(context.WithoutCancel(ctx)); derr != nil {
		fmt.Fprintf(out, "study %s: %v\n", s.Name, derr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// onlineConfig is the lobby service's configuration for schedule s (at
// path): its lobby with secret, and a Local allocator running each
// match as lagkit study run in a process of its own, its output's
// lines for the lobby and its log to logOut; out is told of each match.
func (o *studyLobbyFlags) onlineConfig(s *study.Schedule, path string, secret []byte, out, logOut io.Writer, log *slog.Logger) (online.Config, error) {
	self, err := os.Executable()
	if err != nil {
		return online.Config{}, err
	}
	lc, err := s.LobbyConfig(secret)
	if err != nil {
		return online.Config{}, err
	}
	var people []int
	for _, st := range s.Seats() {
		if !st.Bot {
			people = append(people, st.Index)
		}
	}
	alloc := &online.Local{Seats: people, Max: o.servers, NewCode: live.NewCode, Log: log,
		Command: func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
			c := exec.CommandContext(ctx, self, o.sessionArgs(path, m, codes, absent, port)...)
			c.Stderr = logOut
			// A stopped lobby stops its matches as a signal would: each
			// stays in the database, to be resumed.
			c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
			c.WaitDelay = 10 * time.Second
			fmt.Fprintf(out, "match %d: group %d, %d people, bots in %d of the people's seats, game server on port %d\n", m.ID, m.Group, len(m.People), len(absent), port)
			return c
		}}
	var consent, agree string
	o.consent = s.Consent != nil
	if c := s.Consent; c != nil {
		consent, agree = c.Text, c.Agree
		if agree == "" {
			agree = study.DefaultAgree
		}
	}
	on := s.Online
	return online.Config{Lobby: lc, Alloc: alloc, Consent: consent, Agree: agree,
		IDParam: on.IDParam, StudyParam: on.StudyParam, SessionParam: on.SessionParam,
		CompletionURL: on.CompletionURL, OnServerLost: on.OnServerLost, Log: log,
		Lost: func(ctx context.Context, m lobby.Match, sess *online.Session, lost error) {
			n, err := o.cutRounds(ctx, sess)
			if err != nil {
				log.Error("cut rounds", "match", m.ID, "err", err)
			}
			fmt.Fprintf(out, "match %d: the game server was lost (%v); %d round cut short, its records kept; its people: %s\n", m.ID, lost, n, on.OnServerLost)
		}}, nil
}

// cutRounds marks cut the round the lost session sess was playing
// (store.DB.CutRounds), found by its people's participant codes.
func (o *studyLobbyFlags) cutRounds(ctx context.Context, sess *online.Session) (int, error) {
	db, err := store.Open(ctx, o.dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	codes := make([]string, 0, len(sess.Codes))
	for _, c := range sess.Codes {
		codes = append(codes, c)
	}
	return db.CutRounds(ctx, o.studyID, codes)
}

// checkAllocator checks --allocator and refuses the flags of the other
// allocator.
func (o *studyLobbyFlags) checkAllocator(changed func(string) bool) error {
	var other []string
	switch o.allocator {
	case "local":
		other = []string{"kubeconfig", "namespace", "fleet", "selector", "allocate-wait"}
	case "agones":
		other = []string{"servers", "game-host", "probe-port", "cert", "key"}
		if o.fleet == "" {
			return usagef("--fleet: want the name of a Fleet")
		}
		if o.allocateWait < time.Second || o.allocateWait > 30*time.Minute {
			return usagef("--allocate-wait %v: want 1s to 30m", o.allocateWait)
		}
	default:
		return usagef("--allocator %q: want local or agones", o.allocator)
	}
	for _, name := range other {
		if changed(name) {
			return usagef("--%s is not for --allocator %s", name, o.allocator)
		}
	}
	return nil
}

// agonesAllocator is the Agones allocator of schedule s's matches
// through kube, joining o.studyID; out is told where the matches run.
func (o *studyLobbyFlags) agonesAllocator(s *study.Schedule, kube kubeAPI, out io.Writer, log *slog.Logger) *online.Agones {
	var people []int
	for _, st := range s.Seats() {
		if !st.Bot {
			people = append(people, st.Index)
		}
	}
	fmt.Fprintf(out, "study %s: matches on GameServers of Agones fleet %s in namespace %s (Kubernetes API %s)\n", s.Name, o.fleet, kube.namespace, kube.host)
	return &online.Agones{Client: kube.client, Namespace: kube.namespace, Fleet: o.fleet, Selector: o.selector, Seats: people,
		Study: o.studyID, Seed: o.seed, Quick: o.quick, NewCode: live.NewCode, Wait: o.allocateWait, Log: log,
		Allocated: func(m lobby.Match, absent []int, gameServer, addr string) {
			fmt.Fprintf(out, "match %d: group %d, %d people, bots in %d of the people's seats, game server %s at %s\n", m.ID, m.Group, len(m.People), len(absent), gameServer, addr)
		}}
}

// sessionArgs are the arguments of lagkit study run serving match m.
func (o *studyLobbyFlags) sessionArgs(path string, m lobby.Match, codes map[int]string, absent []int, port int) []string {
	args := []string{"study", "run", path, "--group", strconv.Itoa(m.Group), "--study", strconv.FormatInt(o.studyID, 10), "--fresh", "--start",
		"--listen", net.JoinHostPort(o.gameHost, strconv.Itoa(port)), "--udp", "",
		"--db", o.dsn, "--seed", strconv.FormatUint(o.seed+uint64(m.ID), 10), "--log-format", "json"}
	if len(codes) > 0 {
		seats := make([]int, 0, len(codes))
		for seat := range codes {
			seats = append(seats, seat)
		}
		sort.Ints(seats)
		pairs := make([]string, len(seats))
		for i, seat := range seats {
			pairs[i] = fmt.Sprintf("%d=%s", seat, codes[seat])
		}
		args = append(args, "--codes", strings.Join(pairs, ","))
		if o.consent {
			// The lobby admits no one who did not agree to the consent
			// text: every person's seat did.
			consented := make([]string, len(seats))
			for i, seat := range seats {
				consented[i] = strconv.Itoa(seat)
			}
			args = append(args, "--consented", strings.Join(consented, ","))
		}
	}
	if len(absent) > 0 {
		seats := make([]string, len(absent))
		for i, seat := range absent {
			seats[i] = strconv.Itoa(seat)
		}
		args = append(args, "--absent", strings.Join(seats, ","))
	}
	if o.cert != "" {
		args = append(args, "--cert", o.cert, "--key", o.key)
	}
	if o.quick {
		args = append(args, "--quick")
	}
	return args
}

// lobbySecret reads the completion codes' key from path, or makes one
// there if there is none.
func lobbySecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if len(b) < 16 {
			return nil, fmt.Errorf("%s holds %d bytes, want at least 16", path, len(b))
		}
		return b, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	b = make([]byte, 32)
	rand.Read(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return b, f.Close()
}

// validHost reports whether h is a plausible DNS name.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, r := range h {
		if !(r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// printFlow prints the lobby's participant flow.
func printFlow(w io.Writer, f lobby.Flow) {
	fmt.Fprintf(w, "flow: arrived %d, consented %d, admitted %d, refused %d (%d timed out at the prescreen), matched %d, requeued %d after a lost game server, completed %d (%d with the game server lost), dropped %d (%d at the prescreen, %d waiting, %d from a match); bots took %d seats\n",
		f.Arrived, f.Consented, f.Admitted, f.Refused, f.TimedOut, f.Matched, f.Requeued, f.Completed, f.Lost, f.Dropped, f.DroppedPrescreen, f.DroppedWaiting,
		f.Dropped-f.DroppedPrescreen-f.DroppedWaiting, f.Bots)
}

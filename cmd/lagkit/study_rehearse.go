package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/online"
	"github.com/lagkit/lagkit/transport"
)

// studyRehearseFlags are lagkit study rehearse's flags.
type studyRehearseFlags struct {
	lobbyFlags          studyLobbyFlags
	participants, pages int
	shots               string
	over                time.Duration
	killAfter           time.Duration
	leaveAfter          time.Duration
	inattentive         float64
	killRound           int
	maxWait             time.Duration
}

func newStudyRehearseCmd() *cobra.Command {
	var o studyRehearseFlags
	cmd := &cobra.Command{
		Use:   "rehearse FILE",
		Short: "Rehearse an online study: headless participants through the lobby and its game servers",
		Long: `Rehearse plays an online study (a schedule with an [online] table) as
lagkit study lobby would serve it, with headless participants in place
of people: --participants of them arrive by a Poisson process over
--over, each through the lobby's protocol as the join page speaks it
(arrival with platform ids, consent, the round trip's measurement by
the game server host's probe over WebTransport or WebSocket, the
prescreen, the wait), then plays its seat's session with lagkit's bot
through the page's endpoints and WebSocket, answering every
questionnaire with each scale's middle and each attention check as
instructed; --inattentive of them (a share) answer the checks' scales'
middle too, as people who do not read, so that the schedule's
exclusion rules have someone to exclude. --pages of them, the first to
arrive, are real pages in headless Chromium instead: the join page,
its prescreen, the wait, the shooter page played by scripted keys (it
walks and turns), each questionnaire answered with its first choice,
and the completion page; --shots keeps the first page's screenshots of
the lobby's waiting, refusal and completion pages (no completion page
when the schedule's completion_url sends people on). The records, the
headless participants' answers among them, go to a database of the
rehearsal's own (--db, rehearsal.db by default).
The matches run on at most --servers game server processes (lagkit
study run), all writing to --db; --kill-after kills the first match's
game server that long after it started, as a crash would: its people
go back to the queue or finish as the schedule's on_server_lost says,
and the round it cut is marked cut. --leave-after has one participant
(of another match) close its seat's page that long after it began
playing: once the schedule's rejoin grace has passed a bot plays the
seat for the rest of the session, and the participant, back at the
page, is told so.

It prints the participant flow (every arrival accounted for), the
balance of the counterbalancing groups and the waits from admission to
a match. lagkit study report --db on the same database reports the
sessions as one study.`,
		Args: cobra.ExactArgs(1),
		RunE: o.run,
	}
	f := cmd.Flags()
	f.IntVar(&o.participants, "participants", 20, fmt.Sprintf("headless participants (1 to %d)", online.MaxRehearsal))
	f.IntVar(&o.pages, "pages", 0, "of the participants, this many (the first to arrive) are real pages in headless Chromium: the join page, its prescreen, the wait, the shooter page played by scripted keys, the completion (needs node, /usr/bin/chromium and playwright-core: report/browser/install.sh)")
	f.StringVar(&o.shots, "shots", "", "a directory where the first page keeps screenshots of the lobby's waiting, refusal and completion pages")
	f.DurationVar(&o.over, "over", time.Minute, "the arrivals' span: participants arrive at a rate of --participants per --over")
	f.DurationVar(&o.killAfter, "kill-after", 0, "kill the first match's game server this long after it started (0: none)")
	f.IntVar(&o.killRound, "kill-in-round", 0, "count --kill-after from when the first match's people see this round (1 on) played (0: from the game server's start)")
	f.DurationVar(&o.leaveAfter, "leave-after", 0, "one participant leaves its match this long after it began playing (0: none)")
	f.Float64Var(&o.inattentive, "inattentive", 0.05, "the share of the headless participants (0 to 1) who answer the attention checks without reading them, each scale's middle")
	f.DurationVar(&o.maxWait, "max-wait", 0, "the lobby's wait before bots fill a match, in place of the schedule's (0: the schedule's)")
	f.IntVar(&o.lobbyFlags.servers, "servers", 4, "game server processes at most at once (1 to 64)")
	f.StringVar(&o.lobbyFlags.dsn, "db", "rehearsal.db", "study database the matches write to: an SQLite file, or a postgres:// URL")
	f.BoolVar(&o.lobbyFlags.quick, "quick", false, fmt.Sprintf("each match's rounds cut to at most %v", quickRound))
	f.Uint64Var(&o.lobbyFlags.seed, "seed", 1, "random seed of the arrivals and the bots")
	f.StringVar(&o.lobbyFlags.logFormat, "log-format", "auto", "logs as text or json (auto: text on a terminal, json otherwise)")
	return cmd
}

func (o *studyRehearseFlags) run(cmd *cobra.Command, args []string) error {
	path := args[0]
	s, err := checkStudy(path, false, -1)
	if err != nil {
		return err
	}
	if s.Online == nil {
		return fmt.Errorf("%s: no [online] table: a rehearsal is of an online study (see docs/study.md)", path)
	}
	lf := &o.lobbyFlags
	switch {
	case o.participants < 1 || o.participants > online.MaxRehearsal:
		return usagef("--participants %d: want 1 to %d", o.participants, online.MaxRehearsal)
	case o.over < 0 || o.over > 24*time.Hour:
		return usagef("--over %v: want 0 to 24h", o.over)
	case o.killAfter < 0:
		return usagef("--kill-after %v: want 0 or more", o.killAfter)
	case o.killRound < 0 || o.killRound > 0 && o.killAfter <= 0:
		return usagef("--kill-in-round %d: want a round from 1, with --kill-after", o.killRound)
	case !(o.inattentive >= 0 && o.inattentive <= 1):
		return usagef("--inattentive %v: want a share from 0 to 1", o.inattentive)
	case o.leaveAfter < 0:
		return usagef("--leave-after %v: want 0 or more", o.leaveAfter)
	case o.maxWait < 0 || o.maxWait > time.Hour:
		return usagef("--max-wait %v: want 0 to 1h", o.maxWait)
	case lf.servers < 1 || lf.servers > 64:
		return usagef("--servers %d: want 1 to 64", lf.servers)
	case o.pages < 0 || o.pages > o.participants:
		return usagef("--pages %d: want 0 to the %d participants", o.pages, o.participants)
	case o.shots != "" && o.pages == 0:
		return usagef("--shots: the pages keep screenshots; give --pages")
	}
	var browser online.Browser
	if o.pages > 0 {
		if browser, err = online.FindBrowser(); err != nil {
			return fmt.Errorf("--pages: %w", err)
		}
	}
	log, err := serve.NewLogger(lf.logFormat, cmd.ErrOrStderr())
	if err != nil {
		return usagef("--log-format %v", err)
	}
	// The game servers present one certificate, which the seats' players
	// pin as the page pins a self-signed one.
	dir, err := os.MkdirTemp("", "lagkit-rehearsal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cert, err := transport.SelfSigned(0)
	if err != nil {
		return err
	}
	lf.gameHost, lf.cert, lf.key = "127.0.0.1", filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := cert.WritePEM(lf.cert, lf.key); err != nil {
		return err
	}
	secret := make([]byte, 32)
	copy(secret, fmt.Sprintf("rehearsal %d", lf.seed))
	out := cmd.OutOrStdout()
	if err := lf.joinStudy(cmd.Context(), s, out); err != nil {
		return err
	}
	oc, err := lf.onlineConfig(s, path, secret, out, cmd.ErrOrStderr(), log)
	if err != nil {
		return err
	}
	db, err := store.Open(cmd.Context(), lf.dsn)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	defer db.Close()
	oc.Record, oc.FindSession = lf.recordIn(db), lf.sessionIn(db)
	if o.maxWait > 0 {
		oc.Lobby.MaxWait = o.maxWait
	}
	fmt.Fprintf(out, "study %s: rehearsing %d participants arriving over %v, %d game servers at most, records in %s\n",
		s.Name, o.participants, o.over, lf.servers, lf.dsn)
	r := &online.Rehearsal{Config: oc, Participants: o.participants, Over: o.over, Seed: lf.seed,
		TLS: transport.ClientTLS{CertHash: cert.HashHex()}, KillAfter: o.killAfter, KillRound: o.killRound, LeaveAfter: o.leaveAfter,
		Attention: attention(s), Inattentive: o.inattentive,
		ProbeAddr: net.JoinHostPort(lf.gameHost, "0"), ProbeCert: cert, Pages: o.pages, Browser: browser, Shots: o.shots}
	rep, err := r.Run(cmd.Context())
	if derr := lf.dropStudy(context.WithoutCancel(cmd.Context())); derr != nil && err == nil {
		err = derr
	}
	if rep != nil {
		fmt.Fprintln(out)
		rep.Write(out)
		if n := rep.PagesFailed(); n > 0 && err == nil {
			err = fmt.Errorf("%d of the %d pages failed (above)", n, o.pages)
		}
	}
	return err
}

// attention returns the instructed answers of s's attention checks, by
// question id.
func attention(s *study.Schedule) map[string]int {
	out := map[string]int{}
	for _, q := range s.Questions {
		if q.Check == study.CheckAttention && q.Correct != nil {
			out[q.ID] = *q.Correct
		}
	}
	return out
}

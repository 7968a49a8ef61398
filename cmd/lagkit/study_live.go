package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/live"
)

// liveStudyOptions are study run's flags for a study played by people.
type liveStudyOptions struct {
	listen, udp, cert, key, logFormat string
	start, fresh                      bool
	answerWait                        time.Duration
	codes                             map[string]string
	absent, consented                 []int
}

// addLiveStudyFlags adds the flags of a live study run to cmd.
func addLiveStudyFlags(cmd *cobra.Command, o *liveStudyOptions) {
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:4433", "live: HOST:PORT for the participants' and the admin's browsers (the page and WebSocket over HTTPS, WebTransport over UDP)")
	f.StringVar(&o.udp, "udp", "127.0.0.1:0", "live: HOST:PORT for native clients over UDP (empty: off)")
	f.StringVar(&o.cert, "cert", "", "live: TLS certificate (PEM) for --listen (default: a self-signed one for 127.0.0.1, ::1 and localhost)")
	f.StringVar(&o.key, "key", "", "live: TLS key (PEM) for --cert")
	f.BoolVar(&o.start, "start", false, "live: start the first round at once instead of waiting for the admin page's start")
	f.BoolVar(&o.fresh, "fresh", false, "live: start a new session even when the database holds an unfinished run of this schedule (default: resume it)")
	f.DurationVar(&o.answerWait, "answer-wait", live.DefaultAnswerWait, "live: how long the questionnaire after a round waits for the participants' answers")
	f.StringToStringVar(&o.codes, "codes", nil, "live: SEAT=CODE,...: the participant codes of people's seats, in place of the schedule's or generated ones (an online study's lobby gives them)")
	f.IntSliceVar(&o.absent, "absent", nil, "live: SEAT,...: people's seats no one takes, played by bots from the start and recorded as bots' (an online match formed short of people)")
	f.IntSliceVar(&o.consented, "consented", nil, "live: SEAT,...: people's seats whose participants agreed to the consent text in an online study's lobby: their pages do not ask again, and the consent is recorded with the session")
	f.StringVar(&o.logFormat, "log-format", "auto", "live: logs as text or json (auto: text on a terminal, json otherwise)")
}

// runLiveStudy serves study s to people (live.Serve), its records in the
// database dsn; a study stopped by a signal is a stoppedError.
func runLiveStudy(ctx context.Context, s *study.Schedule, dsn string, seed uint64, join study.Join, o liveStudyOptions, out, logOut io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log, err := serve.NewLogger(o.logFormat, logOut)
	if err != nil {
		return usagef("--log-format %v", err)
	}
	if (o.cert == "") != (o.key == "") {
		return usagef("--cert and --key go together")
	}
	if o.listen == "" {
		return usagef("--listen: a live study needs an address for the participants' browsers")
	}
	codes := map[int]string{}
	for k, v := range o.codes {
		seat, err := strconv.Atoi(k)
		if err != nil || seat < 0 {
			return usagef("--codes %s=%s: a seat is a number from 0", k, v)
		}
		codes[seat] = v
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	defer db.Close()
	err = live.Serve(ctx, s, db, live.ServeOptions{
		Listeners: serve.Listeners{Listen: o.listen, UDP: o.udp, Cert: o.cert, Key: o.key},
		Codes:     codes, Absent: o.absent, Consented: o.consented, AnswerWait: o.answerWait, AutoStart: o.start, Fresh: o.fresh, Join: join, Seed: seed, Log: log, Out: out,
	})
	if stopped := (*live.StoppedError)(nil); errors.As(err, &stopped) {
		return stoppedError{fmt.Sprintf("%v (exit status %d)", err, exitStopped)}
	}
	return err
}

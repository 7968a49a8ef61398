package main

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/live"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// endLinger is how long the pages are still served after the study's
// end, for the participants' pages, polling every half second, to say
// the study is over.
const endLinger = 3 * time.Second

// liveStudyOptions are study run's flags for a study played by people.
type liveStudyOptions struct {
	listen, udp, cert, key, logFormat string
	start, fresh                      bool
	answerWait                        time.Duration
}

// addLiveStudyFlags adds the flags of a live study run to cmd.
func addLiveStudyFlags(cmd *cobra.Command, o *liveStudyOptions) {
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:4433", "live: HOST:PORT for the participants' and the admin's browsers (the page and WebSocket over HTTPS, WebTransport over UDP)")
	f.StringVar(&o.udp, "udp", "127.0.0.1:0", "live: HOST:PORT for native clients over UDP (empty: off)")
	f.StringVar(&o.cert, "cert", "", "live: TLS certificate (PEM) for --listen (default: a self-signed one for 127.0.0.1, ::1 and localhost)")
	f.StringVar(&o.key, "key", "", "live: TLS key (PEM) for --cert")
	f.BoolVar(&o.start, "start", false, "live: start the first round at once instead of waiting for the admin page's start")
	f.BoolVar(&o.fresh, "fresh", false, "live: start a new study even when the database holds an unfinished run of this schedule (default: resume it)")
	f.DurationVar(&o.answerWait, "answer-wait", live.DefaultAnswerWait, "live: how long the questionnaire after a round waits for the participants' answers")
	f.StringVar(&o.logFormat, "log-format", "auto", "live: logs as text or json (auto: text on a terminal, json otherwise)")
}

// runLiveStudy serves study s to people: it prints the admin's URL and
// one join link per person's seat on out, plays the rounds as the admin
// starts them, and stores every record in the database dsn. A run of the
// same schedule that stopped in a round (a crash, a kill) is resumed at
// that round unless o.fresh is set.
func runLiveStudy(ctx context.Context, s *study.Schedule, dsn string, seed uint64, o liveStudyOptions, out, logOut io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log, err := newLogger(o.logFormat, logOut)
	if err != nil {
		return err
	}
	if (o.cert == "") != (o.key == "") {
		return usagef("--cert and --key go together")
	}
	if o.listen == "" {
		return usagef("--listen: a live study needs an address for the participants' browsers")
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	defer db.Close()
	cfg := live.Config{Schedule: s, AnswerWait: o.answerWait, AutoStart: o.start, Log: log}
	w, err := studyWriter(ctx, db, s, o.fresh, &cfg, out)
	if err != nil {
		return err
	}

	host := realtime.NewHost(log, nil)
	key, err := token.NewKey()
	if err != nil {
		return err
	}
	admin := make([]byte, 16)
	crand.Read(admin)
	adminToken := hex.EncodeToString(admin)
	d, err := live.New(func() live.Config { c := cfg; c.Host = host; return c }())
	if err != nil {
		return err
	}
	var listeners []transport.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	addrs, err := serveStudy(ctx, o, host, key, d, adminToken, log, &listeners)
	if err != nil {
		return err
	}
	printStudyLinks(out, s, d, addrs.listen, adminToken)

	err = d.Run(ctx, w, study.Options{Seed: seed})
	if err == nil && ctx.Err() == nil {
		// The pages poll the study's status: let them hear it is over
		// before the server goes.
		select {
		case <-time.After(endLinger):
		case <-ctx.Done():
		}
	}
	for _, l := range listeners {
		_ = l.Close()
	}
	return finishLiveStudy(ctx, err, s, host, db, w, cfg.Resume != nil, log, out)
}

// finishLiveStudy ends a live study's matches and closes its records
// after d.Run returned err: a stopped study stays to be resumed (and the
// error says so), one that failed before its first round is dropped.
func finishLiveStudy(ctx context.Context, err error, s *study.Schedule, host *realtime.Host, db *store.DB, w *store.Writer, resumed bool, log *slog.Logger, out io.Writer) error {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = host.Shutdown(sctx, "study over")
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	st := w.Stats()
	log.Info("records", "db", db.String(), "study", w.StudyID(), "committed", st.Committed, "max_lag_ms", st.MaxLag.Milliseconds())
	if ctx.Err() != nil {
		fmt.Fprintf(out, "study %s stopped; run the same command again to resume it\n", s.Name)
		return stoppedError{fmt.Sprintf("study %s (study %d in %s) stopped before its end: run the same command again to resume it (exit status %d)",
			s.Name, w.StudyID(), db, exitStopped)}
	}
	if err != nil {
		// A study that failed before its first round started is no
		// study; one stopped (above) stays, to be resumed.
		if id := w.StudyID(); id != 0 && !resumed {
			if derr := db.DropEmptyStudy(context.WithoutCancel(ctx), id); derr != nil {
				err = fmt.Errorf("%w (and %v)", err, derr)
			}
		}
		return err
	}
	fmt.Fprintf(out, "study %s: over; %d records in %s as study %d\n", s.Name, st.Committed, db, w.StudyID())
	return nil
}

// studyWriter returns the writer of the study's records: resuming the
// stored study s left off (its state put in cfg, and said on out),
// unless fresh or there is none.
func studyWriter(ctx context.Context, db *store.DB, s *study.Schedule, fresh bool, cfg *live.Config, out io.Writer) (*store.Writer, error) {
	if fresh {
		return db.NewWriter(store.WriterOptions{}), nil
	}
	stored, err := live.ResumeFrom(ctx, db, s)
	switch {
	case errors.Is(err, live.ErrNothingToResume):
		return db.NewWriter(store.WriterOptions{}), nil
	case err != nil:
		return nil, err
	}
	w, err := db.ResumeWriter(ctx, stored.ID, store.WriterOptions{})
	if err != nil {
		return nil, err
	}
	cfg.Resume, cfg.Codes = stored.Resume, stored.Codes
	if r := stored.Resume; r.Round >= len(s.Plans()) {
		fmt.Fprintf(out, "resuming study %d (%s): the questionnaire after its last round (%d) is put again, then the study ends\n",
			stored.ID, s.Name, r.Questions.Round+1)
	} else {
		fmt.Fprintf(out, "resuming study %d (%s) at round %d after %.1f s of it\n",
			stored.ID, s.Name, r.Round+1, r.Elapsed.Seconds())
	}
	return w, nil
}

// serveStudy opens the study's listeners (appended to ls, which the
// caller closes), requires connect tokens under key, and joins what
// they accept to the study's matches.
func serveStudy(ctx context.Context, o liveStudyOptions, host *realtime.Host, key []byte, d *live.Driver, adminToken string, log *slog.Logger, ls *[]transport.Listener) (boundAddrs, error) {
	addrs, err := openListeners(serveOptions{listen: o.listen, udp: o.udp, cert: o.cert, key: o.key, tokens: true,
		page: func(wo *web.Options) {
			// The page joins its seat by participant code, not as a
			// player of the oldest match.
			wo.Tokens = nil
			// The study's endpoints, its admin page and the
			// questionnaire between rounds.
			wo.Study, wo.AdminToken, wo.Host = d, adminToken, host
		}}, host, nil, ls)
	if err != nil {
		return addrs, err
	}
	if err := host.RequireTokens(key, addrs.udp); err != nil {
		return addrs, err
	}
	for _, l := range *ls {
		go func() {
			if err := host.Serve(ctx, l); err != nil {
				log.Error("accept", "addr", l.Addr(), "err", err)
			}
		}()
	}
	log.Info("listening", "listen", addrs.listen, "udp", addrs.udp, "cert_sha256", addrs.certHash)
	return addrs, nil
}

// printStudyLinks prints the admin page's URL, the group's order of
// techniques, and each seat's join link.
func printStudyLinks(out io.Writer, s *study.Schedule, d *live.Driver, listen, adminToken string) {
	fmt.Fprintf(out, "study %s: admin https://%s%s#token=%s\n", s.Name, listen, web.AdminPagePath, adminToken)
	if design := s.Design(); design != "" {
		fmt.Fprintf(out, "study %s: counterbalancing group %d of design %s: every seat plays %s\n", s.Name, s.Group(), design, strings.Join(s.SeatOrders()[0], ", "))
	}
	codes := d.Codes()
	seats := make([]int, 0, len(codes))
	for seat := range codes {
		seats = append(seats, seat)
	}
	sort.Ints(seats)
	for _, seat := range seats {
		fmt.Fprintf(out, "seat %d: https://%s/?code=%s\n", seat, listen, codes[seat])
	}
}

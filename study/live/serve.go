package live

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// ServeOptions are how Serve plays a study to people.
type ServeOptions struct {
	// Listeners are where the participants' and the admin's browsers
	// (Listen, which must be set) and native clients (UDP) connect.
	Listeners serve.Listeners
	// AnswerWait is how long a questionnaire waits for the answers
	// (default DefaultAnswerWait); AutoStart starts the first round at
	// once instead of at the admin page's start.
	AnswerWait time.Duration
	AutoStart  bool
	// Fresh starts a new session even when the database holds an
	// unfinished run of the schedule (default: resume it).
	Fresh bool
	// Codes fix people's seats' participant codes (Config.Codes), and
	// Absent are people's seats no one takes, played by bots and
	// recorded as bots' (Config.Absent): an online match's lobby
	// hands a session both. A resumed study keeps its stored codes.
	Codes  map[int]string
	Absent []int
	// Consented are people's seats that agreed to the consent text in
	// an online study's lobby (Config.Consented).
	Consented []int
	// Join says which study a new session joins (study.Join.Target):
	// the study of the schedule's name that ran it, by default. With
	// Join.Study set, only an unfinished run of that study is resumed;
	// with Join.New none is.
	Join study.Join
	// Seed seeds the bots.
	Seed uint64
	// Log gets the server's logs (default slog.Default()).
	Log *slog.Logger
	// Out (default: nowhere) is told the admin page's URL, one join
	// link per person's seat ("seat N: URL"), each seat a bot took from
	// its person ("dropout seat N: REASON") and how the study ended.
	Out io.Writer
}

// StoppedError is a study whose context ended before the study did: it
// stays in the database, to be resumed by serving the same schedule on
// it again.
type StoppedError struct {
	Study string
	// ID is the session's, Set the study's it is a session of.
	ID  int64
	Set int64
	DB  string
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("study %s (session %d of study %d in %s) stopped before its end: run the same command again to resume it", e.Study, e.ID, e.Set, e.DB)
}

// Serve serves study s to people: it tells o.Out the admin's URL and
// one join link per person's seat, plays the rounds as the admin starts
// them, and stores every record in db. A run of the same schedule that
// stopped in a round (a crash, a kill) is resumed at that round unless
// o.Fresh is set. When ctx ends first, the study stays to be resumed and
// the error is a *StoppedError.
func Serve(ctx context.Context, s *study.Schedule, db *store.DB, o ServeOptions) error {
	if o.Listeners.Listen == "" {
		return errors.New("live: a live study needs an address for the participants' browsers")
	}
	log, out := o.Log, o.Out
	if log == nil {
		log = slog.Default()
	}
	if out == nil {
		out = io.Discard
	}
	cfg := Config{Schedule: s, Codes: o.Codes, Absent: o.Absent, Consented: o.Consented, AnswerWait: o.AnswerWait, AutoStart: o.AutoStart, Log: log}
	if on := s.Online; on != nil {
		// An online study's participant who leaves mid-match has a bot
		// take the seat once away for the schedule's rejoin grace; the
		// lobby reads the line (online.Local) and records the dropout.
		cfg.Rejoin = time.Duration(on.Rejoin)
		cfg.Dropout = func(seat int, reason string) { fmt.Fprintf(out, "dropout seat %d: %s\n", seat, reason) }
	}
	admin := make([]byte, 16)
	crand.Read(admin)
	adminToken := hex.EncodeToString(admin)
	w, created, err := studyWriter(ctx, db, s, o.Fresh, o.Join, &cfg, out, &adminToken)
	if err != nil {
		return err
	}
	if created != 0 {
		// A new study no session came of goes again: after a failure
		// before its session was stored (a failed run's session is
		// dropped with its study, finishLiveStudy).
		defer func() {
			if w.StudyID() == 0 {
				_ = db.DropEmptySet(context.WithoutCancel(ctx), created)
			}
		}()
	}

	host := realtime.NewHost(log, nil)
	key, err := token.NewKey()
	if err != nil {
		return err
	}
	d, err := New(func() Config { c := cfg; c.Host = host; return c }())
	if err != nil {
		return err
	}
	listeners, addrs, err := serveStudy(ctx, o.Listeners, host, key, d, adminToken, log)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	if err != nil {
		return err
	}
	printStudyLinks(out, s, d, addrs.Listen, adminToken)

	err = d.Run(ctx, w, study.Options{Seed: o.Seed})
	switch {
	case ctx.Err() != nil:
		// Stopped: the pages poll the study's status; let them hear it
		// stopped (and ask their participants to wait for the resumed
		// run) before the server goes.
		time.Sleep(endLinger)
	case err == nil:
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
	sctx, cancel := context.WithTimeout(context.Background(), serve.ShutdownGrace)
	defer cancel()
	_ = host.Shutdown(sctx, "study over")
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	st := w.Stats()
	log.Info("records", "db", db.String(), "study", w.StudyID(), "committed", st.Committed, "max_lag_ms", st.MaxLag.Milliseconds())
	if ctx.Err() != nil {
		fmt.Fprintf(out, "study %s stopped; run the same command again to resume it\n", s.Name)
		return &StoppedError{Study: s.Name, ID: w.StudyID(), Set: w.SetID(), DB: db.String()}
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
	fmt.Fprintf(out, "study %s: over; %d records in %s as session %d of study %d\n", s.Name, st.Committed, db, w.StudyID(), w.SetID())
	return nil
}

// studyWriter returns the writer of the study's records: resuming the
// stored session s left off (its state put in cfg, and said on out),
// unless fresh or there is none; or a new session of the study join
// names (or of a new study), said on out. A new session stores *admin
// as its admin token; a resumed one sets *admin to the token it stored,
// so the admin's link (and an admin tab left open) works across the
// stop.
//
// It also returns the id of the study it created for a new session
// (0: none), for the caller to drop again when no session comes of it.
func studyWriter(ctx context.Context, db *store.DB, s *study.Schedule, fresh bool, join study.Join, cfg *Config, out io.Writer, admin *string) (*store.Writer, int64, error) {
	var target store.StudySet
	if join.Study != "" || join.New {
		// The study is named: refuse another schedule before looking
		// for a run of it to resume.
		var err error
		if target, err = join.Target(ctx, db, s, false); err != nil {
			return nil, 0, err
		}
	}
	if !fresh && !join.New {
		stored, err := resumeFrom(ctx, db, s, target.ID)
		switch {
		case err == nil:
			w, err := resumeWriter(ctx, db, s, stored, cfg, out, admin)
			return w, 0, err
		case !errors.Is(err, ErrNothingToResume):
			return nil, 0, err
		}
	}
	if join.Study == "" && !join.New {
		var err error
		if target, err = join.Target(ctx, db, s, false); err != nil {
			return nil, 0, err
		}
	}
	used, err := codesUnused(ctx, db, s, target)
	if err != nil {
		return nil, 0, err
	}
	cfg.Used = used
	var created int64
	if target.ID == 0 {
		// Created now, to tell its id before anyone plays.
		if created, err = db.NewStudySet(ctx, store.StudySet{Name: s.Name, Key: s.StudyKey(), Created: time.Now()}); err != nil {
			return nil, 0, err
		}
		fmt.Fprintf(out, "study %s: new study %d; run its other sessions with --study %d\n", s.Name, created, created)
		target.ID = created
	} else {
		fmt.Fprintf(out, "study %s: session %d of study %s\n", s.Name, len(target.Sessions)+1, target.Describe())
	}
	return db.NewWriter(store.WriterOptions{AdminToken: *admin, Set: target.ID}), created, nil
}

// resumeWriter returns the writer that carries on the stored session.
func resumeWriter(ctx context.Context, db *store.DB, s *study.Schedule, stored Stored, cfg *Config, out io.Writer, admin *string) (*store.Writer, error) {
	switch tok, err := db.AdminToken(ctx, stored.ID); {
	case err != nil:
		return nil, err
	case tok != "":
		*admin = tok
	default:
		// Stored before studies kept their token: keep this run's.
		if err := db.SetAdminToken(ctx, stored.ID, *admin); err != nil {
			return nil, err
		}
	}
	w, err := db.ResumeWriter(ctx, stored.ID, store.WriterOptions{})
	if err != nil {
		return nil, err
	}
	cfg.Resume, cfg.Codes = stored.Resume, stored.Codes
	if r := stored.Resume; r.Round >= len(s.Plans()) {
		fmt.Fprintf(out, "resuming session %d of study %d (%s): the questionnaire after its last round (%d) is put again, then the study ends\n",
			stored.ID, w.SetID(), s.Name, r.Questions.Round+1)
	} else {
		fmt.Fprintf(out, "resuming session %d of study %d (%s) at round %d after %.1f s of it\n",
			stored.ID, w.SetID(), s.Name, r.Round+1, r.Elapsed.Seconds())
	}
	return w, nil
}

// serveStudy opens the study's listeners (returned for the caller to
// close, also after an error), requires connect tokens under key, and
// joins what they accept to the study's matches.
func serveStudy(ctx context.Context, o serve.Listeners, host *realtime.Host, key []byte, d *Driver, adminToken string, log *slog.Logger) ([]transport.Listener, serve.Addrs, error) {
	o.Tokens = true
	o.Page = func(wo *web.Options) {
		// The page joins its seat by participant code, not as a
		// player of the oldest match.
		wo.Tokens = nil
		// The study's endpoints, its admin page and the
		// questionnaire between rounds.
		wo.Study, wo.AdminToken, wo.Host = d, adminToken, host
	}
	ls, addrs, err := serve.OpenListeners(o, host, nil)
	if err != nil {
		return ls, addrs, err
	}
	if err := host.RequireTokens(key, addrs.UDP); err != nil {
		return ls, addrs, err
	}
	for _, l := range ls {
		go func() {
			if err := host.Serve(ctx, l); err != nil {
				log.Error("accept", "addr", l.Addr(), "err", err)
			}
		}()
	}
	log.Info("listening", "listen", addrs.Listen, "udp", addrs.UDP, "cert_sha256", addrs.CertHash)
	return ls, addrs, nil
}

// printStudyLinks prints the admin page's URL, the group's order of
// techniques, and each seat's join link.
func printStudyLinks(out io.Writer, s *study.Schedule, d *Driver, listen, adminToken string) {
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

// endLinger is how long the pages are still served after the study's
// end or stop, for the participants' pages, polling every half second,
// to say the study is over (or stopped, to be resumed).
const endLinger = 3 * time.Second

// codesUnused refuses a new session of study s, joining study target
// (ID 0: a new study), whose schedule's fixed participant codes an
// earlier session of that study gave to someone: the sessions of a
// study pool into one report, where a code must be one participant.
// It returns the codes the study's sessions gave, by study.CodeKey, for
// the codes this session generates to avoid.
func codesUnused(ctx context.Context, db *store.DB, s *study.Schedule, target store.StudySet) (map[string]bool, error) {
	fixed := map[string]int{}
	for _, st := range s.Seats() {
		if st.Code != "" {
			fixed[study.CodeKey(st.Code)] = st.Index
		}
	}
	used := map[string]bool{}
	for _, row := range target.Sessions {
		parts, err := store.All[record.Participant](ctx, db, row.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			if p.Code == "" || p.Bot {
				continue
			}
			used[study.CodeKey(p.Code)] = true
			if seat, ok := fixed[study.CodeKey(p.Code)]; ok {
				return nil, fmt.Errorf("live: seat %d's code %s was seat %d's in an earlier session of study %d (%s; session %d): "+
					"a code names one participant across the study's sessions; give this session's seats their own codes, or leave them out to have codes generated",
					seat, p.Code, p.Seat, target.ID, s.Name, row.ID)
			}
		}
	}
	return used, nil
}

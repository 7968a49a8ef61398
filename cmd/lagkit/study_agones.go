package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/study/online"
	"github.com/lagkit/lagkit/transport"
)

// assignedFlags are study run's flags that, under --agones, the match's
// allocation sets instead, and those only a simulated run takes.
var assignedFlags = []string{"simulate", "group", "study", "new-study", "codes", "absent", "fresh", "start", "seed", "quick",
	"synthetic-answers", "out", "force", "json"}

// runAgones serves one match of an online study's lobby as an Agones
// GameServer: Ready, then, once Allocated, the session its allocation's
// annotations assign (online.Assignment); at its end it annotates how
// it ended (online.EndAnnotation) for the lobby and asks Agones to shut
// the GameServer down.
func (o *studyRunFlags) runAgones(cmd *cobra.Command, path string) error {
	for _, name := range assignedFlags {
		if cmd.Flags().Changed(name) {
			return usagef("--%s: under --agones the lobby's allocation says what the session plays", name)
		}
	}
	if (o.probeListen == "") != (o.probeSecret == "") {
		return usagef("--agones-probe and --agones-secret-file go together")
	}
	if o.probeListen != "" {
		if _, _, err := net.SplitHostPort(o.probeListen); err != nil {
			return usagef("--agones-probe %q: want HOST:PORT", o.probeListen)
		}
	}
	// The schedule is checked before the GameServer says it is Ready: a
	// bad one fails the pod rather than an allocated match.
	if _, err := checkStudy(path, false, -1); err != nil {
		return err
	}
	log, err := serve.NewLogger(o.lo.logFormat, cmd.ErrOrStderr())
	if err != nil {
		return usagef("--log-format %v", err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sdk, err := agones.NewFromEnv(agones.Options{Wait: o.agones.wait})
	if err != nil {
		return err
	}
	hctx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	go agones.KeepHealthy(hctx, sdk, o.agones.health, func(err error) { log.Warn("agones health", "err", err) })
	pctx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	if o.probeListen != "" {
		if err := o.serveProbe(pctx, sdk, log); err != nil {
			return err
		}
	}
	if err := sdk.Ready(ctx); err != nil {
		return err
	}
	log.Info("agones ready", "sdk", sdk.Base())
	gs, err := agones.WaitAllocated(ctx, sdk, func(err error) { log.Warn("agones watch", "err", err) })
	// An allocated game server measures no more round trips: its
	// session has the machine.
	stopProbe()
	if err != nil {
		if ctx.Err() != nil {
			return stoppedError{fmt.Sprintf("stopped before an allocation (exit status %d)", exitStopped)}
		}
		return err
	}
	as, err := online.ParseAssignment(gs.ObjectMeta.Annotations)
	if err == nil {
		log.Info("agones allocated", "gameserver", gs.ObjectMeta.Name, "match", as.Match, "study", as.Study, "group", as.Group,
			"people", len(as.Codes), "absent", len(as.Absent))
		err = o.runAssigned(ctx, path, as, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	finish(context.WithoutCancel(ctx), sdk, err, log)
	return err
}

// serveProbe serves the prescreen's probe on --agones-probe until ctx
// ends, sealing each result for the host its GameServer reports (its
// address and the port named online.ProbePort) with the key of
// --agones-secret-file, and annotates the GameServer with the probe's
// certificate hash for the lobby.
func (o *studyRunFlags) serveProbe(ctx context.Context, sdk *agones.Client, log *slog.Logger) error {
	secret, err := os.ReadFile(o.probeSecret)
	if err != nil {
		return fmt.Errorf("--agones-secret-file: %w", err)
	}
	if len(secret) < 16 {
		return fmt.Errorf("--agones-secret-file: %s holds %d bytes, want at least 16 (the lobby's --secret-file)", o.probeSecret, len(secret))
	}
	gs, err := sdk.GameServer(ctx)
	if err != nil {
		return err
	}
	port := int32(0)
	for _, p := range gs.Status.Ports {
		if p.Name == online.ProbePort {
			port = p.Port
		}
	}
	if gs.Status.Address == "" || port == 0 {
		return fmt.Errorf("--agones-probe: GameServer %s has no address and port named %s (address %q, ports %v): add the port to the Fleet",
			gs.ObjectMeta.Name, online.ProbePort, gs.Status.Address, gs.Status.Ports)
	}
	host := net.JoinHostPort(gs.Status.Address, strconv.Itoa(int(port)))
	var cert *transport.Certificate
	if o.lo.cert != "" {
		if cert, err = transport.LoadCertificate(o.lo.cert, o.lo.key); err != nil {
			return fmt.Errorf("--cert: %w", err)
		}
	}
	// Any page may open it (the lobby's pages come from the lobby's
	// origin): it measures whoever asks, and only the lobby knows whose
	// ticket a seal names.
	w, err := transport.NewWeb(transport.WebOptions{Addr: o.probeListen, Cert: cert, OriginPatterns: []string{"*"}})
	if err != nil {
		return fmt.Errorf("--agones-probe: %w", err)
	}
	if err := sdk.SetAnnotation(ctx, online.ProbeCertKey, w.CertHash()); err != nil {
		w.Close()
		return err
	}
	key := probe.SealKey(secret)
	p := &probe.Server{
		Ticket:   func(t string) (string, bool) { return t, true },
		Measured: func(string, time.Duration) {},
		Seal: func(t string, rtt time.Duration) string {
			return probe.Seal(key, probe.Result{Ticket: t, Host: host, RTT: rtt, At: time.Now()})
		},
	}
	go func() {
		<-ctx.Done()
		_ = w.Close()
	}()
	go func() {
		if err := p.Serve(ctx, w); err != nil {
			log.Error("probe", "err", err)
		}
	}()
	log.Info("probe", "listen", w.Addr(), "host", host)
	return nil
}

// runAssigned plays the session as assigned, as lagkit study run FILE
// --group G --study ID --codes ... --absent ... --fresh --start would.
func (o *studyRunFlags) runAssigned(ctx context.Context, path string, as online.Assignment, out, logOut io.Writer) error {
	s, err := checkStudy(path, false, as.Group)
	if err != nil {
		return err
	}
	if as.Quick {
		s.Shorten(quickRound)
	}
	lo := o.lo
	lo.codes = map[string]string{}
	for seat, code := range as.Codes {
		lo.codes[strconv.Itoa(seat)] = code
	}
	lo.absent, lo.fresh, lo.start = as.Absent, true, true
	if s.Consent != nil {
		// The lobby admits no one who did not agree to the schedule's
		// consent text: every person's seat did, and its page does not
		// ask again (as the local allocator's --consented says).
		lo.consented = slices.Sorted(maps.Keys(as.Codes))
	}
	join := o.join
	join.Study = strconv.FormatInt(as.Study, 10)
	return runLiveStudy(ctx, s, o.dsn, as.Seed, join, lo, out, logOut)
}

// maxEnd bounds the end annotation's length: an error's first lines
// say what happened.
const maxEnd = 1000

// finish tells the lobby how the session ended (the GameServer's
// annotation online.EndKey: "done", or the error) and asks Agones to
// shut the GameServer down. Its failures are logged: the lobby then
// sees the GameServer go without an end.
func finish(ctx context.Context, sdk *agones.Client, err error, log *slog.Logger) {
	end := online.EndDone
	if err != nil {
		end = err.Error()
		if errors.As(err, new(stoppedError)) {
			end = "stopped: " + end
		}
		if len(end) > maxEnd {
			end = end[:maxEnd] + "..."
		}
	}
	if aerr := sdk.SetAnnotation(ctx, online.EndKey, end); aerr != nil {
		log.Error("agones end", "err", aerr)
	}
	if serr := sdk.Shutdown(ctx); serr != nil {
		log.Error("agones shutdown", "err", serr)
		return
	}
	log.Info("agones shutdown", "end", end)
}

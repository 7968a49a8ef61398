// Package api is the HTTP side of a realtime.Host: the public handler
// (health and Prometheus metrics), the admin handler (the match API,
// connect tokens and pprof), the bearer-token guard in front of it, and
// servers with every timeout set. lagkit serve mounts them on --http and
// --admin; any Go program that runs a Host can mount them the same way.
package api

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lagkit/lagkit/realtime"
)

// TokenTTL is how long a connect token from the API is valid.
const TokenTTL = 30 * time.Second

// TokenEnv is the environment variable that gives the admin listener's
// bearer token when no token file does.
const TokenEnv = "LAGKIT_ADMIN_TOKEN"

// The HTTP servers' timeouts: reading a request's header, reading all of
// it with its body, writing the response, and keeping an idle
// keep-alive connection.
const (
	httpReadHeaderTimeout = 5 * time.Second
	httpReadTimeout       = 10 * time.Second
	httpWriteTimeout      = 30 * time.Second
	httpIdleTimeout       = 60 * time.Second
	// maxProfileSeconds bounds the seconds of a CPU profile or trace
	// from the admin listener's /debug/pprof/: its response may take
	// that long, and httpWriteTimeout more.
	maxProfileSeconds = 300
)

// Timeouts are an HTTP server's timeouts (the defaults above where
// zero); tests shorten them.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// WithDefaults returns t with the defaults in place of zeros.
func (t Timeouts) WithDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = httpReadHeaderTimeout
	}
	if t.Read <= 0 {
		t.Read = httpReadTimeout
	}
	if t.Write <= 0 {
		t.Write = httpWriteTimeout
	}
	if t.Idle <= 0 {
		t.Idle = httpIdleTimeout
	}
	return t
}

// NewServer returns a server for h with t's timeouts. Without a
// server-wide write timeout (perRequestWrite) each request gets
// t.Write as its write deadline from h itself (WriteDeadline), so that
// a profile may take longer.
func NewServer(h http.Handler, t Timeouts, perRequestWrite bool) *http.Server {
	t = t.WithDefaults()
	s := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    16 << 10,
	}
	if perRequestWrite {
		s.WriteTimeout = 0
	}
	return s
}

// Public returns what lagkit serve's --http serves to anyone:
// health and the metrics in reg, for Prometheus and Agones.
func Public(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	health(mux)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}

func health(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "ok")
	})
}

// AdminOptions configure Admin.
type AdminOptions struct {
	Host *realtime.Host
	// Maps are the maps a request may name (realtime.Maps: the shipped
	// ones and an operator's folder); no request names a file.
	Maps     *realtime.Maps
	Registry *prometheus.Registry
	Log      *slog.Logger
	// DefaultMap is the map of a match started without one (metro if
	// empty); EndGrace how long DELETE waits for a match to end (5 s if
	// 0).
	DefaultMap string
	EndGrace   time.Duration
}

// Admin returns what lagkit serve's --admin serves, to the holder of its
// token (Guard guards it): health, metrics from the registry, pprof, and
// the match API on the host.
func Admin(o AdminOptions) http.Handler {
	host, maps, reg, log := o.Host, o.Maps, o.Registry, o.Log
	if log == nil {
		log = slog.Default()
	}
	defaultMap, grace := cmp.Or(o.DefaultMap, "metro"), cmp.Or(o.EndGrace, 5*time.Second)
	mux := http.NewServeMux()
	health(mux)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)

	mux.HandleFunc("GET /api/matches", func(w http.ResponseWriter, _ *http.Request) {
		out := []realtime.MatchInfo{}
		for _, m := range host.Matches() {
			if info, err := m.Info(); err == nil {
				out = append(out, info)
			}
		}
		writeHTTPJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /api/matches/{id}", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		info, err := m.Info()
		if err != nil {
			apiError(w, http.StatusNotFound, "match %s: %v", m.ID(), err)
			return
		}
		writeHTTPJSON(w, http.StatusOK, info)
	}))
	mux.HandleFunc("GET /api/matches/{id}/ticks", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		since, err := strconv.Atoi(r.URL.Query().Get("since"))
		if r.URL.Query().Get("since") == "" {
			since, err = 0, nil
		}
		if err != nil || since < 0 {
			apiError(w, http.StatusBadRequest, "since %q: want a server tick", r.URL.Query().Get("since"))
			return
		}
		ts, err := m.TickStats(since)
		if err != nil {
			apiError(w, http.StatusNotFound, "match %s: %v", m.ID(), err)
			return
		}
		writeHTTPJSON(w, http.StatusOK, ts)
	}))
	mux.HandleFunc("POST /api/matches", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		mc, doc, err := realtime.DecodeMatch("body", body)
		if err != nil {
			badBody(w, body, err)
			return
		}
		// A request names its map: it never opens a file.
		if mc.Map == "" {
			mc.Map = defaultMap
		}
		if mc.World, err = maps.Load(mc.Map); err != nil {
			apiError(w, http.StatusBadRequest, "%v", doc.Errorf("map", "%s", strings.TrimPrefix(err.Error(), "realtime: ")))
			return
		}
		m, err := host.Start(mc)
		var ce *realtime.ConfigError
		if errors.As(err, &ce) {
			err = doc.Locate(ce.Problem)
		}
		if err != nil {
			apiError(w, http.StatusBadRequest, "%v", err)
			return
		}
		info, _ := m.Info()
		log.Info("match created", "match", m.ID(), "by", r.RemoteAddr)
		writeHTTPJSON(w, http.StatusCreated, info)
	})
	mux.HandleFunc("PUT /api/matches/{id}/latency", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		rules, err := realtime.DecodeLatency("body", body)
		if err != nil {
			badBody(w, body, err)
			return
		}
		if err := m.SetLatency(rules); err != nil {
			apiError(w, http.StatusBadRequest, "%v", err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("POST /api/matches/{id}/tokens", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		body, err := io.ReadAll(io.LimitReader(r.Body, realtime.MaxTokenRequest+1))
		if err != nil {
			apiError(w, http.StatusBadRequest, "body: %v", err)
			return
		}
		player, err := realtime.DecodeTokenRequest("body", body)
		if err != nil {
			apiError(w, http.StatusBadRequest, "%v", err)
			return
		}
		tok, err := host.IssueToken(m.ID(), player, TokenTTL)
		if err != nil {
			apiError(w, http.StatusConflict, "%v", err)
			return
		}
		writeHTTPJSON(w, http.StatusOK, map[string]any{"token": base64.StdEncoding.EncodeToString(tok), "expires_in_s": TokenTTL.Seconds()})
	}))
	mux.HandleFunc("DELETE /api/matches/{id}", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		ctx, cancel := context.WithTimeout(r.Context(), grace)
		defer cancel()
		if err := m.End(ctx, "match ended by the server"); err != nil {
			apiError(w, http.StatusGatewayTimeout, "match %s: %v", m.ID(), err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return mux
}

// Guard guards the admin listener's handler h with token: every
// request must carry "Authorization: Bearer TOKEN", or it is answered
// 401 and counted in refused. With token "" (a loopback listener) every
// request is let through.
func Guard(token string, refused *prometheus.CounterVec, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	// Both sides are hashed first, so the comparison takes the same time
	// whatever the length of the token given.
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		given, ok := strings.CutPrefix(auth, "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(given)))
		if ok && subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
			h.ServeHTTP(w, r)
			return
		}
		reason := "wrong"
		if !ok {
			reason = "missing"
		}
		refused.WithLabelValues(reason).Inc()
		w.Header().Set("WWW-Authenticate", `Bearer realm="lagkit admin"`)
		apiError(w, http.StatusUnauthorized, "the admin bearer token is %s: send Authorization: Bearer TOKEN, the token of --admin-token-file or %s", reason, TokenEnv)
	})
}

// NewRefusedCounter registers the count of admin requests refused for
// their credential.
func NewRefusedCounter(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lagkit_admin_unauthorized_total",
		Help: "Requests to the admin listener refused with 401, by reason: the bearer token missing or wrong.",
	}, []string{"reason"})
	c.WithLabelValues("missing")
	c.WithLabelValues("wrong")
	reg.MustRegister(c)
	return c
}

// WriteDeadline gives each admin request its write deadline, as
// the server has none: write after the request is read, but a CPU
// profile or trace of N seconds N seconds more. It refuses one longer
// than maxProfileSeconds.
func WriteDeadline(write time.Duration, log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := write
		if r.URL.Path == "/debug/pprof/profile" || r.URL.Path == "/debug/pprof/trace" {
			sec := 30.0 // pprof's defaults
			if r.URL.Path == "/debug/pprof/trace" {
				sec = 1
			}
			if s := r.URL.Query().Get("seconds"); s != "" {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || !(v > 0 && v <= maxProfileSeconds) {
					apiError(w, http.StatusBadRequest, "seconds %q: want more than 0, at most %d", s, maxProfileSeconds)
					return
				}
				sec = v
			}
			d += time.Duration(sec * float64(time.Second))
		}
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d)); err != nil {
			log.Debug("admin write deadline", "err", err)
		}
		h.ServeHTTP(w, r)
	})
}

// readBody reads the request body up to one byte past
// realtime.MaxMatchJSON, for the decoders to refuse a larger one.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, realtime.MaxMatchJSON+1))
	if err != nil {
		apiError(w, http.StatusBadRequest, "body: %v", err)
		return nil, false
	}
	return body, true
}

// badBody answers err, a decoder's error about body: 413 for a body over
// the limit, 400 otherwise.
func badBody(w http.ResponseWriter, body []byte, err error) {
	status := http.StatusBadRequest
	if len(body) > realtime.MaxMatchJSON {
		status = http.StatusRequestEntityTooLarge
	}
	apiError(w, status, "%v", err)
}

func writeHTTPJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, format string, args ...any) {
	writeHTTPJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// withMatch resolves the request's {id} to a running match for f, and
// answers 404 when there is none.
func withMatch(host *realtime.Host, f func(http.ResponseWriter, *http.Request, *realtime.Match)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, ok := host.Match(r.PathValue("id"))
		if !ok {
			apiError(w, http.StatusNotFound, "no match %q", r.PathValue("id"))
			return
		}
		f(w, r, m)
	}
}

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lagkit/lagkit/realtime"
)

// tokenTTL is how long a connect token from the API is valid.
const tokenTTL = 30 * time.Second

// newPublicAPI returns what lagkit serve's --http serves to anyone:
// health and the metrics in reg, for Prometheus and Agones.
func newPublicAPI(reg *prometheus.Registry) http.Handler {
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

// newAdminAPI returns what lagkit serve's --admin serves, to the holder
// of its token (bearer guards it): health, metrics from reg, pprof, and
// the match API on host, whose matches are on maps.
func newAdminAPI(host *realtime.Host, maps *realtime.Maps, reg *prometheus.Registry, log *slog.Logger) http.Handler {
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
			mc.Map = defaultMatch.Map
		}
		if mc.World, err = maps.Load(mc.Map); err != nil {
			apiError(w, http.StatusBadRequest, "%v", doc.Errorf("map", "%s", userMessage(err)))
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
		tok, err := host.IssueToken(m.ID(), player, tokenTTL)
		if err != nil {
			apiError(w, http.StatusConflict, "%v", err)
			return
		}
		writeHTTPJSON(w, http.StatusOK, map[string]any{"token": base64.StdEncoding.EncodeToString(tok), "expires_in_s": tokenTTL.Seconds()})
	}))
	mux.HandleFunc("DELETE /api/matches/{id}", withMatch(host, func(w http.ResponseWriter, r *http.Request, m *realtime.Match) {
		ctx, cancel := context.WithTimeout(r.Context(), shutdownGrace)
		defer cancel()
		if err := m.End(ctx, "match ended by the server"); err != nil {
			apiError(w, http.StatusGatewayTimeout, "match %s: %v", m.ID(), err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return mux
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

package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// AdminTokenEnv is the environment variable that gives the admin
// listener's bearer token when --admin-token-file does not.
const AdminTokenEnv = "LAGKIT_ADMIN_TOKEN"

// minAdminToken is the shortest admin token taken, in bytes.
const minAdminToken = 16

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

// httpTimeouts are an HTTP server's timeouts (the defaults above where
// zero); tests shorten them.
type httpTimeouts struct {
	readHeader, read, write, idle time.Duration
}

func (t httpTimeouts) withDefaults() httpTimeouts {
	if t.readHeader <= 0 {
		t.readHeader = httpReadHeaderTimeout
	}
	if t.read <= 0 {
		t.read = httpReadTimeout
	}
	if t.write <= 0 {
		t.write = httpWriteTimeout
	}
	if t.idle <= 0 {
		t.idle = httpIdleTimeout
	}
	return t
}

// newHTTPServer returns a server for h with t's timeouts. Without a
// server-wide write timeout (perRequestWrite) each request gets
// t.write as its write deadline from h itself (adminWriteDeadline), so
// that a profile may take longer.
func newHTTPServer(h http.Handler, t httpTimeouts, perRequestWrite bool) *http.Server {
	t = t.withDefaults()
	s := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
		MaxHeaderBytes:    16 << 10,
	}
	if perRequestWrite {
		s.WriteTimeout = 0
	}
	return s
}

// adminToken returns the admin listener's bearer token: the trimmed
// contents of file, or else of the environment variable AdminTokenEnv,
// or "" for none. A token shorter than minAdminToken bytes is a usage
// error naming where it came from.
func adminToken(file string, getenv func(string) string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", usagef("--admin-token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if len(tok) < minAdminToken {
			return "", usagef("--admin-token-file %s: a token of %d bytes, want at least %d (for example: head -c 32 /dev/urandom | base64 > %s)", file, len(tok), minAdminToken, file)
		}
		return tok, nil
	}
	tok := strings.TrimSpace(getenv(AdminTokenEnv))
	if tok != "" && len(tok) < minAdminToken {
		return "", usagef("%s: a token of %d bytes, want at least %d", AdminTokenEnv, len(tok), minAdminToken)
	}
	return tok, nil
}

// loopback reports whether addr (HOST:PORT) binds only the loopback
// interface: a loopback IP or localhost. An empty host, 0.0.0.0, :: and
// any other name bind more.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkAdmin refuses an admin listener any other host could reach with
// no token to keep it.
func checkAdmin(addr, token string) error {
	if addr == "" || token != "" || loopback(addr) {
		return nil
	}
	return usagef("--admin %s is reachable from other hosts and has no token: give --admin-token-file FILE or %s (at least %d bytes), or bind --admin to 127.0.0.1", addr, AdminTokenEnv, minAdminToken)
}

// bearer guards the admin listener's handler h with token: every
// request must carry "Authorization: Bearer TOKEN", or it is answered
// 401 and counted in refused. With token "" (a loopback listener) every
// request is let through.
func bearer(token string, refused *prometheus.CounterVec, h http.Handler) http.Handler {
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
		apiError(w, http.StatusUnauthorized, "the admin bearer token is %s: send Authorization: Bearer TOKEN, the token of --admin-token-file or %s", reason, AdminTokenEnv)
	})
}

// newRefusedCounter registers the count of admin requests refused for
// their credential.
func newRefusedCounter(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lagkit_admin_unauthorized_total",
		Help: "Requests to the admin listener refused with 401, by reason: the bearer token missing or wrong.",
	}, []string{"reason"})
	c.WithLabelValues("missing")
	c.WithLabelValues("wrong")
	reg.MustRegister(c)
	return c
}

// adminWriteDeadline gives each admin request its write deadline, as
// the server has none: write after the request is read, but a CPU
// profile or trace of N seconds N seconds more. It refuses one longer
// than maxProfileSeconds.
func adminWriteDeadline(write time.Duration, log *slog.Logger, h http.Handler) http.Handler {
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

// readAdminToken reads the token a client of the admin listener sends:
// the trimmed contents of file, or else AdminTokenEnv's.
func readAdminToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(AdminTokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usagef("--admin-token-file: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", usagef("--admin-token-file %s is empty", file)
	}
	return string(b), nil
}

// withBearer sets the Authorization header of a request to the admin
// listener when token is set.
func withBearer(req *http.Request, token string) {
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

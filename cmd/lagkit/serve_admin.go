package main

import (
	"bytes"
	"net"
	"os"
	"strings"

	"github.com/lagkit/lagkit/realtime/api"
)

// AdminTokenEnv is the environment variable that gives the admin
// listener's bearer token when --admin-token-file does not.
const AdminTokenEnv = api.TokenEnv

// minAdminToken is the shortest admin token taken, in bytes.
const minAdminToken = 16

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

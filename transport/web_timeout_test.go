package transport

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestWebSocketOutlivesHTTPTimeouts plays a WebSocket session through a
// Web server whose read and write timeouts are far shorter than the
// session: the server's deadlines bound requests, never an upgraded
// session.
func TestWebSocketOutlivesHTTPTimeouts(t *testing.T) {
	ctx := netTest(t)
	const timeout = 300 * time.Millisecond
	w := startWebOpts(t, WebOptions{ReadTimeout: timeout, WriteTimeout: timeout})
	client, server := dialAccept(t, ctx, w, "wss://"+w.Addr())
	start := time.Now()
	for time.Since(start) < 5*timeout {
		exchange(t, ctx, client, server)
		time.Sleep(timeout / 3)
	}
	if r := client.Reason(); r != "" {
		t.Fatalf("session ended: %s", r)
	}
	server.Close("match over")
	expectClosed(t, ctx, client, "match over")
}

// TestWebCutsSlowBodies sends 20 requests whose bodies never finish: the
// server closes every one once its read timeout has passed.
func TestWebCutsSlowBodies(t *testing.T) {
	netTest(t)
	const timeout = 400 * time.Millisecond
	w := startWebOpts(t, WebOptions{ReadTimeout: timeout, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
		}
	})})
	start := time.Now()
	done := make(chan error, 20)
	for range 20 {
		go func() {
			c, err := tls.Dial("tcp", w.Addr(), &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			io.WriteString(c, "POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = io.Copy(io.Discard, c) // until the server closes
			done <- err
		}()
	}
	for range 20 {
		if err := <-done; err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				t.Fatalf("a slow body still open after 10 s")
			}
		}
	}
	if took := time.Since(start); took > timeout+3*time.Second {
		t.Errorf("slow bodies closed after %v, want about %v", took, timeout)
	}
}

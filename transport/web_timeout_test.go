package transport

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
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

// TestWebCutsSlowBodiesOverHTTP3: the pages served over HTTP/3 (beside
// WebTransport) read a request body under the same timeout.
func TestWebCutsSlowBodiesOverHTTP3(t *testing.T) {
	netTest(t)
	const timeout = 400 * time.Millisecond
	cut := make(chan time.Duration, 1)
	w := startWebOpts(t, WebOptions{ReadTimeout: timeout, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if _, err := io.ReadAll(r.Body); err != nil {
			cut <- time.Since(start)
			http.Error(rw, err.Error(), http.StatusBadRequest)
		}
	})})
	tr := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{http3.NextProtoH3}}}
	defer tr.Close()
	body, feed := io.Pipe()
	defer feed.Close()
	go feed.Write([]byte("{"))
	req, _ := http.NewRequest(http.MethodPost, "https://"+w.Addr()+"/slow", body)
	req.ContentLength = 1000
	go func() {
		if resp, err := (&http.Client{Transport: tr}).Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case d := <-cut:
		if d > timeout+2*time.Second {
			t.Errorf("body cut after %v, want about %v", d, timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a slow body over HTTP/3 still read after 10 s")
	}
}

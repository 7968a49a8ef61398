package transport

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// startWeb starts a Web server on a free loopback port whose "/" answers
// "lagkit page".
func startWeb(t *testing.T) *Web {
	t.Helper()
	return startWebOpts(t, WebOptions{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.WriteString(rw, "lagkit page")
	})})
}

func startWebOpts(t *testing.T, opts WebOptions) *Web {
	t.Helper()
	w, err := NewWeb(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// dialAccept dials rawURL pinned to w's certificate and accepts the
// session on w.
func dialAccept(t *testing.T, ctx context.Context, w *Web, rawURL string) (client, server Conn) {
	t.Helper()
	client, err := Dial(ctx, rawURL, DialOptions{TLS: ClientTLS{CertHash: w.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, client)
	server, err = w.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, server)
	return client, server
}

func TestWebWebTransportAndWebSocketOnOnePort(t *testing.T) {
	ctx := netTest(t)
	w := startWeb(t)
	for _, scheme := range []string{"wt", "wss"} {
		t.Run(scheme, func(t *testing.T) {
			client, server := dialAccept(t, ctx, w, scheme+"://"+w.Addr())
			wantPeer := map[string]string{"wt": "wt:", "wss": "ws:"}[scheme]
			if !strings.HasPrefix(server.Peer(), wantPeer) || !strings.HasPrefix(client.Peer(), wantPeer) {
				t.Errorf("peers %q and %q, want the %s transport", server.Peer(), client.Peer(), wantPeer)
			}
			exchange(t, ctx, client, server)
			if err := server.Send(make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
				t.Errorf("oversized send: %v, want ErrTooLarge", err)
			}
			server.Send([]byte("goodbye"))
			server.Close("match over")
			expectGoodbye(t, ctx, client, "goodbye", "match over")

			client, server = dialAccept(t, ctx, w, scheme+"://"+w.Addr())
			client.Close("quit")
			expectClosed(t, ctx, server, "quit")
		})
	}
}

func TestWebServesCertHashAndPages(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	w := startWeb(t)
	tlsConf, err := ClientTLS{CertHash: w.CertHash()}.config()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: tlsConf}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	get := func(path string) string {
		resp, err := client.Get("https://" + w.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var got certJSON
	if err := json.Unmarshal([]byte(get(CertPath)), &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(w.Certificate().TLS.Certificate[0])
	if got.SHA256 != w.CertHash() || got.Algorithm != "sha-256" || w.CertHash() != hexString(sum[:]) {
		t.Errorf("cert endpoint %+v, hash %s", got, w.CertHash())
	}
	if body := get("/index.html"); body != "lagkit page" {
		t.Errorf("page %q", body)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

func TestWebRefusesAnotherCertificate(t *testing.T) {
	ctx := netTest(t)
	w := startWeb(t)
	other := strings.Repeat("ab", sha256.Size)
	for _, scheme := range []string{"wt", "wss"} {
		if _, err := Dial(ctx, scheme+"://"+w.Addr(), DialOptions{TLS: ClientTLS{CertHash: other}}); err == nil || !strings.Contains(err.Error(), "hash") {
			t.Errorf("%s with another certificate's hash: %v", scheme, err)
		}
	}
	if _, err := Dial(ctx, "wt://"+w.Addr(), DialOptions{TLS: ClientTLS{CertHash: "zz"}}); err == nil {
		t.Error("a malformed hash was accepted")
	}
}

func TestWebCloseKeepsAcceptedSessions(t *testing.T) {
	ctx := netTest(t)
	w := startWeb(t)
	wtClient, wtServer := dialAccept(t, ctx, w, "wt://"+w.Addr())
	wsClient, wsServer := dialAccept(t, ctx, w, "wss://"+w.Addr())
	w.Close()
	if _, err := w.Accept(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("accept after close: %v", err)
	}
	for _, scheme := range []string{"wt", "wss"} {
		if _, err := Dial(ctx, scheme+"://"+w.Addr(), DialOptions{TLS: ClientTLS{CertHash: w.CertHash()}}); err == nil {
			t.Errorf("%s dial after close succeeded", scheme)
		}
	}
	exchange(t, ctx, wtClient, wtServer)
	exchange(t, ctx, wsClient, wsServer)
	for _, c := range []Conn{wtServer, wsServer} {
		c.Send([]byte("closing"))
		c.Close("shutdown")
	}
	expectGoodbye(t, ctx, wtClient, "closing", "shutdown")
	expectGoodbye(t, ctx, wsClient, "closing", "shutdown")
	// The servers stop with the last session: goleak checks they did.
}

func TestDialRejectsBadURLs(t *testing.T) {
	ctx := testCtx(t)
	for _, u := range []string{"tcp://127.0.0.1:1", "udp://", "udp://127.0.0.1:1/path", "://x"} {
		if c, err := Dial(ctx, u, DialOptions{}); err == nil {
			c.Close("")
			t.Errorf("Dial(%q) succeeded", u)
		}
	}
}

func TestDialUDPURL(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	client, err := Dial(ctx, "udp://"+l.Addr(), DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close("done")
	client.Send([]byte("hi"))
	server, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close("done")
	buf := make([]byte, 10)
	if n, err := server.Recv(ctx, buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("recv %q %v", buf[:n], err)
	}
}

func TestSelfSignedCertificate(t *testing.T) {
	c, err := SelfSigned(0)
	if err != nil {
		t.Fatal(err)
	}
	leaf := c.TLS.Leaf
	if v := leaf.NotAfter.Sub(leaf.NotBefore); v != DefaultValidity || v >= MaxHashValidity {
		t.Errorf("validity %v", v)
	}
	if !time.Now().After(leaf.NotBefore) || !time.Now().Before(leaf.NotAfter) {
		t.Errorf("not valid now: %v to %v", leaf.NotBefore, leaf.NotAfter)
	}
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		t.Errorf("key %T, want ECDSA P-256", leaf.PublicKey)
	}
	for _, h := range []string{"127.0.0.1", "::1", "localhost"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("host %s: %v", h, err)
		}
	}
	if c.SHA256 != sha256.Sum256(leaf.Raw) {
		t.Error("hash is not the SHA-256 of the DER")
	}
	if _, err := SelfSigned(MaxHashValidity); err == nil {
		t.Error("a 14-day certificate was generated: browsers refuse to pin it")
	}
}

func TestLoadCertificate(t *testing.T) {
	c, err := SelfSigned(time.Hour, "game.example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	keyDER, err := x509.MarshalPKCS8PrivateKey(c.TLS.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.TLS.Certificate[0]}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	got, err := LoadCertificate(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != c.SHA256 {
		t.Error("loaded certificate has another hash")
	}
	if _, err := LoadCertificate(keyFile, certFile); err == nil {
		t.Error("swapped files loaded")
	}
}

func TestWebSessionLimit(t *testing.T) {
	ctx := netTest(t)
	w := startWebOpts(t, WebOptions{MaxSessions: 1})
	client, server := dialAccept(t, ctx, w, "wt://"+w.Addr())
	opts := DialOptions{TLS: ClientTLS{CertHash: w.CertHash()}}
	if _, err := Dial(ctx, "wss://"+w.Addr(), opts); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a second session past the limit: %v", err)
	}
	server.Close("make room")
	expectClosed(t, ctx, client, "make room")
	// The place frees once the closed session's goroutines end.
	var again Conn
	waitFor(t, ctx, "a freed place", func() bool {
		c, err := Dial(ctx, "wss://"+w.Addr(), opts)
		again = c
		return err == nil
	})
	closeAtEnd(t, again)
	if _, err := w.Accept(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWTOversizedDatagramDropped sends a QUIC datagram longer than
// MaxDatagram, which QUIC can carry but lagkit's wire never sends: the
// receiver drops and counts it and carries on.
func TestWTOversizedDatagramDropped(t *testing.T) {
	ctx := netTest(t)
	w := startWeb(t)
	client, server := dialAccept(t, ctx, w, "wt://"+w.Addr())
	raw := client.(*session).io.(*wtIO).sess
	if err := raw.SendDatagram(make([]byte, MaxDatagram+50)); err != nil {
		t.Fatal(err)
	}
	client.Send([]byte("after"))
	buf := make([]byte, MaxDatagram)
	if n, err := server.Recv(ctx, buf); err != nil || string(buf[:n]) != "after" {
		t.Fatalf("recv %q, %v", buf[:n], err)
	}
	if s := server.(Counted).Stats(); s.RecvDropped != 1 || s.Received != 1 {
		t.Fatalf("stats %+v, want 1 dropped and 1 received", s)
	}
}

func BenchmarkWebRoundTrip(b *testing.B) {
	w, err := NewWeb(WebOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for _, scheme := range []string{"wt", "wss"} {
		b.Run(scheme, func(b *testing.B) {
			ctx := context.Background()
			client, err := Dial(ctx, scheme+"://"+w.Addr(), DialOptions{TLS: ClientTLS{CertHash: w.CertHash()}})
			if err != nil {
				b.Fatal(err)
			}
			defer client.Close("done")
			server, err := w.Accept(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer server.Close("done")
			benchRoundTrip(b, client, server)
		})
	}
}

// TestWebIPv6 carries full-size datagrams over IPv6 loopback, where
// QUIC's packets are smallest (1280-byte minimum path MTU).
func TestWebIPv6(t *testing.T) {
	ctx := netTest(t)
	w, err := NewWeb(WebOptions{Addr: "[::1]:0"})
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	for _, scheme := range []string{"wt", "wss"} {
		client, server := dialAccept(t, ctx, w, scheme+"://"+w.Addr())
		exchange(t, ctx, client, server)
	}
	l, err := ListenUDP("[::1]:0", UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	client, server := udpPair(t, ctx, l, UDPOptions{})
	exchange(t, ctx, client, server)
}

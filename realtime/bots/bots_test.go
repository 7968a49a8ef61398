package bots

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/realtime"
)

// TestReportTable checks that a report counts the bots seated and
// writes a row per bot, a bot's error in place of its end.
func TestReportTable(t *testing.T) {
	r := &Report{Connect: "udp://127.0.0.1:1", DurationS: 2, Bots: []Line{
		{ClientStats: realtime.ClientStats{Name: "bot0", Seat: 3, Reason: "server shutting down"}},
		{ClientStats: realtime.ClientStats{Name: "bot1", Seat: -1}, Error: NoSeat},
	}}
	if n := r.Connected(); n != 1 {
		t.Errorf("Connected %d, want 1", n)
	}
	var b strings.Builder
	r.WriteTable(&b)
	out := b.String()
	for _, want := range []string{"2 bots on udp://127.0.0.1:1 for 2.0 s", "server shutting down", "no seat: the server did not answer"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestGetSendsTheBearerAndReportsStatus checks that Get sends the admin
// token and that an answer other than 200 is a *StatusError with its
// status and body.
func TestGetSendsTheBearerAndReportsStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	var v struct{ OK bool }
	if err := GetJSON(context.Background(), srv.URL, "sesame", &v); err != nil || !v.OK {
		t.Fatalf("with the token: %v, %+v", err, v)
	}
	_, err := Get(context.Background(), srv.URL, "")
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusUnauthorized || se.Body != "who are you" {
		t.Fatalf("without the token: %v", err)
	}
}

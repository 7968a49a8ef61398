package web

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// TestSpectateDelayed spectates a match of four bots through the public
// endpoint of a host that delays its spectators by 2 s: first an empty
// view saying when spectating starts, then the players, each view
// saying the delay.
func TestSpectateDelayed(t *testing.T) {
	h := newHost()
	defer h.Shutdown(t.Context(), "test over")
	if err := h.SetSpectateDelay(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Start(realtime.MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(HandlerWith(Options{Host: h}))
	defer srv.Close()
	get := func() realtime.View {
		var v realtime.View
		code, body := call(t, srv, "GET", SpectatePath, "")
		if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
			t.Fatalf("spectate: %d %.200s", code, body)
		}
		return v
	}
	v := get()
	if v.StartsInS <= 0 || v.StartsInS > 2 || v.DelayS != 2 || len(v.Players) != 0 || v.Map != "arena" {
		t.Fatalf("a match younger than the delay: %+v, want no players, starts_in_s in (0, 2], delay_s 2", v)
	}
	for deadline := time.Now().Add(30 * time.Second); len(v.Players) < 4 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		v = get()
	}
	if len(v.Players) != 4 || v.StartsInS != 0 || v.DelayS != 2 || v.TimeS <= 0 {
		t.Fatalf("after the delay: %d players, starts_in_s %v, delay_s %v", len(v.Players), v.StartsInS, v.DelayS)
	}
}

package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lagkit/lagkit/realtime"
)

// TestGuard: a request without the bearer token or with another is
// refused with 401 and a challenge, and counted by reason; the token lets
// it through to the match API.
func TestGuard(t *testing.T) {
	reg := prometheus.NewRegistry()
	refused := NewRefusedCounter(reg)
	h := Guard("0123456789abcdef-secret", refused, Admin(AdminOptions{Host: realtime.NewHost(nil, nil), Registry: reg}))
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Basic 0123456789abcdef-secret", http.StatusUnauthorized},
		{"Bearer 0123456789abcdef-secret", http.StatusOK},
	} {
		req := httptest.NewRequest("GET", "/api/matches", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Authorization %q: %d, want %d", tc.auth, rec.Code, tc.want)
		}
		if tc.want == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: 401 without a challenge", tc.auth)
		}
	}
	count := func(reason string) float64 {
		var m dto.Metric
		if err := refused.WithLabelValues(reason).Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	if m, w := count("missing"), count("wrong"); m != 2 || w != 1 {
		t.Errorf("refused: missing %v, wrong %v; want 2 and 1", m, w)
	}
}

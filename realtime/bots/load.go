package bots

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
)

// ServerLoad is what a server did while the bots played: the load
// benchmark's figures.
type ServerLoad struct {
	Match         string  `json:"match"`
	TickRateHz    float64 `json:"tick_rate_hz"`
	Ticks         int     `json:"ticks"`
	TickMeanUS    float64 `json:"tick_mean_us"`
	TickP99US     float64 `json:"tick_p99_us"`
	TickMaxUS     float64 `json:"tick_max_us"`
	LatenessP50US float64 `json:"lateness_p50_us"`
	LatenessP99US float64 `json:"lateness_p99_us"`
	Overruns      int     `json:"overruns"`
	// CPUPerTickUS is the server process's CPU time (every goroutine:
	// readers, sends, the tick) per tick.
	CPUPerTickUS float64 `json:"cpu_per_tick_us"`
	// BytesPerSPerClient is what the server sent each bot per second.
	BytesPerSPerClient float64 `json:"bytes_per_s_per_client"`
}

// loadSample is one reading of a server's API and metrics.
type loadSample struct {
	at       time.Time
	match    string
	ticks    int
	cpu      float64
	bytesOut float64
	// since are the match's tick statistics over the ticks after an
	// earlier sample's.
	since realtime.TickStats
}

// sampleLoad reads the first match's tick count and the process's CPU
// time and bytes sent from the admin listener at base, with the admin
// token bearer; after an earlier sample prev, also the match's tick
// statistics since then.
func sampleLoad(ctx context.Context, base, bearer string, prev *loadSample) (*loadSample, error) {
	var matches []realtime.MatchInfo
	if err := GetJSON(ctx, base+"/api/matches", bearer, &matches); err != nil {
		var se *StatusError
		switch {
		case !errors.As(err, &se):
		case se.Status == http.StatusNotFound:
			err = fmt.Errorf("%w (--server is the server's --admin address, not --http)", err)
		case se.Status == http.StatusUnauthorized:
			err = fmt.Errorf("%w (give the server's admin token: --admin-token-file or %s)", err, api.TokenEnv)
		}
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s runs no match", base)
	}
	s := &loadSample{at: time.Now(), match: matches[0].ID, ticks: matches[0].Ticks.Ticks}
	fams, err := GetMetrics(ctx, base+"/metrics", bearer)
	if err != nil {
		return nil, err
	}
	s.cpu = MetricValue(fams["process_cpu_seconds_total"], "")
	s.bytesOut = MetricValue(fams["lagkit_bytes_out_total"], s.match)
	if prev != nil {
		if prev.match != s.match {
			return nil, fmt.Errorf("%s: match %s ended during the run", base, prev.match)
		}
		if err := GetJSON(ctx, fmt.Sprintf("%s/api/matches/%s/ticks?since=%d", base, s.match, prev.ticks), bearer, &s.since); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// load compares two samples of a server that n bots played on.
func (s *loadSample) load(after *loadSample, n int) *ServerLoad {
	out := &ServerLoad{Match: s.match, Ticks: after.ticks - s.ticks}
	ts := after.since
	out.TickRateHz = 1e6 / ts.IntervalUS
	out.TickMeanUS, out.TickP99US, out.TickMaxUS = ts.MeanUS, ts.P99US, ts.MaxUS
	out.LatenessP50US, out.LatenessP99US, out.Overruns = ts.LateP50US, ts.LateP99US, ts.Overruns
	if out.Ticks > 0 {
		out.CPUPerTickUS = (after.cpu - s.cpu) * 1e6 / float64(out.Ticks)
	}
	if dt := after.at.Sub(s.at).Seconds(); dt > 0 && n > 0 {
		out.BytesPerSPerClient = (after.bytesOut - s.bytesOut) / dt / float64(n)
	}
	return out
}

// GetJSON reads url's JSON into v, sending the admin token bearer if
// set.
func GetJSON(ctx context.Context, url, bearer string, v any) error {
	body, err := Get(ctx, url, bearer)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// Get reads url, sending the admin token bearer if set. An answer other
// than 200 OK is a *StatusError.
func Get(ctx context.Context, url, bearer string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	WithBearer(req, bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{URL: url, Status: resp.StatusCode, Text: resp.Status, Body: strings.TrimSpace(string(body))}
	}
	return body, nil
}

// StatusError is an HTTP answer other than 200 OK.
type StatusError struct {
	URL, Text, Body string
	Status          int
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s: %s: %s", e.URL, e.Text, e.Body) }

// GetMetrics reads a Prometheus text exposition, sending the admin
// token bearer if set.
func GetMetrics(ctx context.Context, url, bearer string) (map[string]*dto.MetricFamily, error) {
	body, err := Get(ctx, url, bearer)
	if err != nil {
		return nil, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return fams, nil
}

// MetricValue sums a counter or gauge family's series, those of match
// only when match is set.
func MetricValue(f *dto.MetricFamily, match string) float64 {
	if f == nil {
		return 0
	}
	var v float64
	for _, m := range f.GetMetric() {
		if match != "" && !hasLabel(m, "match", match) {
			continue
		}
		switch {
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		}
	}
	return v
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// WithBearer sets the Authorization header of a request to the admin
// listener when token is set.
func WithBearer(req *http.Request, token string) {
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

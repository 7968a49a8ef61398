package main

import (
	"context"
	"net/http"

	dto "github.com/prometheus/client_model/go"

	"github.com/lagkit/lagkit/realtime/bots"
)

// The tests read the servers they start as lagkit bots does.

func get(ctx context.Context, url string) ([]byte, error) { return bots.Get(ctx, url, "") }

func getJSON(ctx context.Context, url, bearer string, v any) error {
	return bots.GetJSON(ctx, url, bearer, v)
}

func getMetrics(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	return bots.GetMetrics(ctx, url, "")
}

func metricValue(f *dto.MetricFamily, match string) float64 { return bots.MetricValue(f, match) }

func withBearer(req *http.Request, token string) { bots.WithBearer(req, token) }

// hasLabel reports whether m has the label name=value.
func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// TestServeStoresRecords: serve --db keeps what its matches do in the
// study database: each match as a round with its start and end, and
// the shots, kills and sessions of its players, which study export
// reads back.
func TestServeStoresRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a live match")
	}
	walltest.Lock(t)
	dbPath := filepath.Join(t.TempDir(), "serve.db")
	cfg := writeConfig(t, `
[[match]]
name = "bots"
map = "arena"
mode = "ffa"
seats = 4
bots = 4
duration = "6s"
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sctx, stop := context.WithCancel(ctx)
	addrs, res, logs := serveInProcess(t, sctx, serveOptions{config: cfg, db: dbPath})
	if addrs == nil {
		t.Fatalf("serve failed: %v\n%s", <-res, logs())
	}
	time.Sleep(7 * time.Second) // the match plays to its end (bots take seconds to meet)
	stop()
	if err := <-res; err != nil {
		t.Fatalf("serve: %v\n%s", err, logs())
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	studies, err := db.Studies(ctx)
	if err != nil || len(studies) != 1 || studies[0].Name != "serve" {
		t.Fatalf("studies %+v, %v", studies, err)
	}
	id := studies[0].ID
	rounds, err := store.All[record.Round](ctx, db, id)
	if err != nil || len(rounds) != 1 {
		t.Fatalf("rounds %+v, %v", rounds, err)
	}
	if r := rounds[0]; r.Map != "arena" || r.Mode != "ffa" || r.Started.IsZero() || !r.Ended.After(r.Started) || r.Duration != 6*time.Second {
		t.Errorf("round %+v: want arena ffa, 6 s, started and ended", r)
	}
	shots, err := store.All[record.Shot](ctx, db, id)
	if err != nil || len(shots) == 0 {
		t.Fatalf("%d shots stored (%v)", len(shots), err)
	}
	sessions, err := store.All[record.Session](ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	connects := 0
	for _, s := range sessions {
		if s.Kind == record.Connect {
			connects++
		}
	}
	if connects < 4 {
		t.Errorf("%d connects stored for four bots: %+v", connects, sessions)
	}
}

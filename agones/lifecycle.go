package agones

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// poll is how often the match's players are compared with those Agones
// was told of. Agones itself batches player updates to the GameServer
// once a second (Agones, Player Tracking).
const poll = 200 * time.Millisecond

// Lifecycle ties one lagkit match's life to its Agones GameServer:
// Ready once it takes players, health pings, labels, each person who
// joins or leaves (bots in the match's own seats are not players to
// Agones), and Shutdown when it ends.
type Lifecycle struct {
	sdk   SDK
	log   *slog.Logger
	match *realtime.Match
	// tracking is off when the SDK server refuses player capacity (the
	// PlayerTracking feature gate is off).
	tracking bool
	// players are the player IDs Agones was told are connected.
	players map[string]bool
}

// Start tells Agones about m (its seats as player capacity, its
// name, map and mode as labels) and marks the GameServer Ready. An error
// means Agones was not told the server is Ready.
func Start(ctx context.Context, sdk SDK, m *realtime.Match, log *slog.Logger) (*Lifecycle, error) {
	g := &Lifecycle{sdk: sdk, log: log, match: m, tracking: true, players: map[string]bool{}}
	info, err := m.Info()
	if err != nil {
		return nil, fmt.Errorf("agones: match %s: %w", m.ID(), err)
	}
	if err := sdk.SetPlayerCapacity(ctx, int64(info.Config.Seats)); err != nil {
		var se *StatusError
		if !errors.As(err, &se) {
			return nil, err
		}
		// Player tracking is an alpha feature behind a gate; the rest of
		// the SDK works without it.
		g.tracking = false
		log.Warn("agones player tracking off", "err", err)
	}
	for _, kv := range [][2]string{{"lagkit-match", info.Config.Name}, {"lagkit-map", info.Config.Map}, {"lagkit-mode", info.Config.Mode}} {
		if err := sdk.SetLabel(ctx, kv[0], LabelValue(kv[1])); err != nil {
			return nil, err
		}
	}
	if err := sdk.Ready(ctx); err != nil {
		return nil, err
	}
	log.Info("agones ready", "match", m.ID(), "seats", info.Config.Seats, "player_tracking", g.tracking)
	return g, nil
}

// Run pings Agones' health every period and reports players joining and
// leaving, until ctx is done or the match ends; it logs the GameServer's
// state changes (Allocated: a matchmaker sent players).
func (g *Lifecycle) Run(ctx context.Context, period time.Duration) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bg := make(chan struct{}, 2)
	go func() {
		defer func() { bg <- struct{}{} }()
		KeepHealthy(ctx, g.sdk, period, func(err error) { g.log.Warn("agones health", "err", err) })
	}()
	go func() {
		defer func() { bg <- struct{}{} }()
		WatchState(ctx, g.sdk, func(gs *GameServer) {
			g.log.Info("agones state", "state", gs.Status.State, "gameserver", gs.ObjectMeta.Name, "address", gs.Status.Address)
		}, func(err error) { g.log.Warn("agones watch", "err", err) })
	}()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		g.sync(ctx)
		select {
		case <-ctx.Done():
		case <-g.match.Done():
		case <-t.C:
			continue
		}
		break
	}
	cancel()
	<-bg
	<-bg
}

// sync tells Agones of the people who joined or left since the last
// call. Bots in the match's own seats are not players to Agones.
func (g *Lifecycle) sync(ctx context.Context) {
	if !g.tracking {
		return
	}
	now := map[string]bool{}
	if info, err := g.match.Info(); err == nil {
		for _, p := range info.Players {
			if !p.Bot {
				now[p.Peer] = true
			}
		}
	}
	for id := range g.players {
		if !now[id] {
			g.disconnect(ctx, id)
		}
	}
	for id := range now {
		if !g.players[id] {
			if _, err := g.sdk.PlayerConnect(ctx, id); err != nil {
				g.log.Warn("agones player connect", "player", id, "err", err)
				continue
			}
			g.players[id] = true
		}
	}
}

func (g *Lifecycle) disconnect(ctx context.Context, id string) {
	delete(g.players, id)
	if _, err := g.sdk.PlayerDisconnect(ctx, id); err != nil {
		g.log.Warn("agones player disconnect", "player", id, "err", err)
	}
}

// Finish reports the players still connected as gone and asks Agones to
// shut the GameServer down.
func (g *Lifecycle) Finish(ctx context.Context) error {
	for id := range g.players {
		g.disconnect(ctx, id)
	}
	if err := g.sdk.Shutdown(ctx); err != nil {
		return err
	}
	g.log.Info("agones shutdown", "match", g.match.ID(), "reason", g.match.Reason())
	return nil
}

// Match returns the match the GameServer follows.
func (g *Lifecycle) Match() *realtime.Match { return g.match }

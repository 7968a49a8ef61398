// Package sim is lagkit's simulation driver: it runs one server core and N
// client cores on a virtual clock, joined by emulated links (package
// netem), with scripted players generating input. Nothing in it reads the
// wall clock or a global random source, so a run is reproducible bit for
// bit from its seed, and it runs as fast as the CPU allows.
package sim

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// Config describes one simulated session.
type Config struct {
	Players  int           // default 8
	Duration time.Duration // simulated time, default 60 s
	Seed     uint64
	TickRate int // default 64
	// RTT is the base round trip of every player's link, split evenly
	// between the two directions.
	RTT time.Duration
	// Jitter is the standard deviation of each direction's delay.
	Jitter time.Duration
	// Loss is the independent loss probability of each direction.
	Loss float64
	// Map is a shipped map's name (default "metro").
	Map          string
	InterpDelay  time.Duration // default 100 ms
	SnapshotRate int           // default: the tick rate
	// Display is how clients draw remote players (default interpolation);
	// interp_error_mean_m measures it whatever the mode.
	Display client.Display
	// Replication, when set, sends players' states by threshold
	// replication with this dead or led reckoning policy, and clients
	// draw them with the same model (Display is then DeadReckon).
	Replication reckoning.Policy
	// TickCPU measures the server's ticks on the thread's CPU clock
	// (Result.TickCPUUS); off, the run reads no CPU clock (see
	// Driver.CountCPU).
	TickCPU bool
}

// Result summarises a run. Every field but WallS and TickTimeUS is a
// function of the Config alone.
type Result struct {
	Players              int     `json:"players"`
	DurationS            float64 `json:"duration_s"`
	WallS                float64 `json:"wall_s"`
	Ticks                uint32  `json:"ticks"`
	PredictionErrorMeanM float64 `json:"prediction_error_mean_m"`
	PredictionErrorP99M  float64 `json:"prediction_error_p99_m"`
	PredictionSamples    int     `json:"prediction_samples"`
	Corrections          int     `json:"corrections"`
	InterpErrorMeanM     float64 `json:"interp_error_mean_m"`
	InterpSamples        int     `json:"interp_samples"`
	BytesPerSPerClient   float64 `json:"bytes_per_s_per_client"`
	SnapshotBytesMean    float64 `json:"snapshot_bytes_mean"`
	CommandsLost         int     `json:"commands_lost"`
	// UpdatesPerSPerClient is the other players' states the server sent
	// each client per second: under threshold replication those sent
	// anew, else every state in every snapshot.
	UpdatesPerSPerClient  float64 `json:"updates_per_s_per_client"`
	ServerRTTMeanMS       float64 `json:"server_rtt_ms_mean"`
	ClientRTTMeanMS       float64 `json:"client_rtt_ms_mean"`
	PacketsLostDownstream int     `json:"packets_lost_downstream"`
	// TickTimeUS is the wall time per server tick, in microseconds: how
	// much the server costs on this machine (not part of the state).
	TickTimeUS float64 `json:"tick_time_us"`
	// TickCPUUS is, with Config.TickCPU, the CPU time per server tick,
	// in microseconds, where the system has a thread CPU clock (0
	// elsewhere, and without TickCPU): the same cost, without what
	// other processes on a busy machine add to the wall time.
	TickCPUUS float64 `json:"tick_cpu_us,omitempty"`
	StateHash string  `json:"state_hash"`
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Players == 0 {
		out.Players = 8
	}
	if out.Players < 1 || out.Players > game.MaxPlayers {
		return out, fmt.Errorf("sim: players %d outside 1..%d", out.Players, game.MaxPlayers)
	}
	if out.Duration == 0 {
		out.Duration = 60 * time.Second
	}
	if out.Duration < 0 || out.Duration > game.MaxDuration {
		return out, fmt.Errorf("sim: duration %v outside 0..24h", out.Duration)
	}
	if out.TickRate == 0 {
		out.TickRate = 64
	}
	if out.RTT < 0 || out.RTT > 10*time.Second {
		return out, fmt.Errorf("sim: rtt %v outside 0..10s", out.RTT)
	}
	if out.Jitter < 0 || out.Jitter > 10*time.Second {
		return out, fmt.Errorf("sim: jitter %v outside 0..10s", out.Jitter)
	}
	if math.IsNaN(out.Loss) || out.Loss < 0 || out.Loss > 1 {
		return out, fmt.Errorf("sim: loss %v outside 0..1", out.Loss)
	}
	if out.Map == "" {
		out.Map = "metro"
	}
	if out.InterpDelay == 0 {
		out.InterpDelay = 100 * time.Millisecond
	}
	if out.Replication != nil {
		out.Display = client.DeadReckon
	}
	return out, nil
}

// walkerRun observes a walkers session: prediction and interpolation
// errors as clients see them.
type walkerRun struct {
	history  *lagcomp.History
	predErrs []float64
	display  DisplayError
}

func (w *walkerRun) Delivered(_ time.Duration, _ int, _ *Player, r *client.Ready) {
	w.predErrs = append(w.predErrs, r.PredictionErrors...)
}

// ServerReady ignores the server's handovers: walkers use none.
func (w *walkerRun) ServerReady(time.Duration, *server.Server, *server.Ready) {}

func (w *walkerRun) ServerTicked(time.Duration, *server.Server) {}

// Ticked measures the interpolation error: where this client draws each
// remote player against where the server had it at that time.
func (w *walkerRun) Ticked(now time.Duration, _ int, p *Player, _ *client.Ready) {
	w.display.Observe(now, p.Client, w.history)
}

// Run simulates cfg and returns its result.
func Run(cfg Config) (*Result, error) {
	wallStart := time.Now()
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m, err := world.Load(cfg.Map)
	if err != nil {
		return nil, err
	}
	params := game.DefaultParams()
	oneWay := netem.Config{Latency: cfg.RTT / 2, Jitter: cfg.Jitter, Loss: cfg.Loss}
	seeds := splitmix{state: cfg.Seed}
	players := make([]PlayerConfig, cfg.Players)
	for i := range players {
		// Players join over the first 200 ms, each ticking at its own
		// phase against the server's ticks, as real clients do.
		join := time.Duration(seeds.next()%200_000) * time.Microsecond
		players[i] = PlayerConfig{
			Client: client.Config{Name: fmt.Sprintf("p%d", i), InterpDelay: cfg.InterpDelay, SnapshotRate: cfg.SnapshotRate,
				Display: cfg.Display, Reckoning: cfg.Replication},
			Up: oneWay, Down: oneWay,
			Brain:  newMover(seeds.next(), m, &params),
			JoinAt: join,
		}
	}
	scfg := server.Config{
		Map: m, TickRate: cfg.TickRate, MaxClients: cfg.Players, Movement: &params, Seed: cfg.Seed,
		Replication: server.Replication{Policy: cfg.Replication}, Rules: shooter.Rules(mode.Config{}),
	}
	if err := ArmShooter(&scfg, players, nil); err != nil {
		return nil, err
	}
	d, err := NewDriver(scfg, players, seeds.next())
	if err != nil {
		return nil, err
	}
	d.CountCPU = cfg.TickCPU
	obs := &walkerRun{history: d.Server.History()}
	d.Run(cfg.Duration, obs)

	srv := d.Server
	res := &Result{
		Players:   cfg.Players,
		DurationS: cfg.Duration.Seconds(),
		Ticks:     srv.Tick(),
		StateHash: srv.StateHash(),
	}
	var bytes, snapBytes, snaps int
	var srvRTT, cliRTT float64
	for i, p := range d.Players {
		info, ok := srv.Client(p.Client.ID())
		if !ok || p.Client.Phase() != client.Connected {
			return nil, fmt.Errorf("sim: player %d not connected at the end (%s)", i, p.Client.Reason())
		}
		bytes += WireBytes(info)
		snapBytes += info.SnapshotBytes
		snaps += info.Snapshots
		res.CommandsLost += info.CmdsLost + info.CmdsDropped
		res.UpdatesPerSPerClient += float64(info.UpdatesSent)
		srvRTT += float64(info.RTT) / float64(time.Millisecond)
		cliRTT += float64(p.Client.RTT()) / float64(time.Millisecond)
		res.Corrections += p.Client.Stats().Corrections
		res.PacketsLostDownstream += p.Down.Stats().Lost
	}
	n := float64(len(d.Players))
	res.BytesPerSPerClient = float64(bytes) / n / cfg.Duration.Seconds()
	res.UpdatesPerSPerClient /= n * cfg.Duration.Seconds()
	if snaps > 0 {
		res.SnapshotBytesMean = float64(snapBytes) / float64(snaps)
	}
	res.ServerRTTMeanMS = srvRTT / n
	res.ClientRTTMeanMS = cliRTT / n
	if errs := obs.predErrs; len(errs) > 0 {
		var sum float64
		for _, e := range errs {
			sum += e
		}
		res.PredictionErrorMeanM = sum / float64(len(errs))
		slices.Sort(errs)
		res.PredictionErrorP99M = errs[int(math.Ceil(0.99*float64(len(errs))))-1]
		res.PredictionSamples = len(errs)
	}
	res.InterpErrorMeanM, res.InterpSamples = obs.display.Mean(), obs.display.N
	if res.Ticks > 0 {
		res.TickTimeUS = float64(d.ServerWall) / float64(time.Microsecond) / float64(res.Ticks)
		res.TickCPUUS = float64(d.ServerCPU) / float64(time.Microsecond) / float64(res.Ticks)
	}
	res.WallS = time.Since(wallStart).Seconds()
	return res, nil
}

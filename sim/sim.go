// Package sim is lagkit's simulation driver: it runs one server core and N
// client cores on a virtual clock, joined by emulated links (package
// netem), with scripted players generating input. Nothing in it reads the
// wall clock or a global random source, so a run is reproducible bit for
// bit from its seed, and it runs as fast as the CPU allows.
package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
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
}

// Result summarises a run. Every field but WallS is a function of the
// Config alone.
type Result struct {
	Players               int     `json:"players"`
	DurationS             float64 `json:"duration_s"`
	WallS                 float64 `json:"wall_s"`
	Ticks                 uint32  `json:"ticks"`
	PredictionErrorMeanM  float64 `json:"prediction_error_mean_m"`
	PredictionErrorP99M   float64 `json:"prediction_error_p99_m"`
	PredictionSamples     int     `json:"prediction_samples"`
	Corrections           int     `json:"corrections"`
	InterpErrorMeanM      float64 `json:"interp_error_mean_m"`
	InterpSamples         int     `json:"interp_samples"`
	BytesPerSPerClient    float64 `json:"bytes_per_s_per_client"`
	SnapshotBytesMean     float64 `json:"snapshot_bytes_mean"`
	CommandsLost          int     `json:"commands_lost"`
	ServerRTTMeanMS       float64 `json:"server_rtt_ms_mean"`
	ClientRTTMeanMS       float64 `json:"client_rtt_ms_mean"`
	PacketsLostDownstream int     `json:"packets_lost_downstream"`
	StateHash             string  `json:"state_hash"`
}

// udpIPv4Header is the IPv4 and UDP header bytes each datagram costs on
// the wire; reported bandwidth includes it.
const udpIPv4Header = 28

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Players == 0 {
		out.Players = 8
	}
	if out.Players < 1 || out.Players > 128 {
		return out, fmt.Errorf("sim: players %d outside 1..128", out.Players)
	}
	if out.Duration == 0 {
		out.Duration = 60 * time.Second
	}
	if out.Duration < 0 || out.Duration > 24*time.Hour {
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
	return out, nil
}

// player is one simulated participant: a client core, its scripted
// input and its two links.
type player struct {
	c        *client.Client
	mv       *mover
	up, down *netem.Link
	next     time.Duration // next client tick
	connect  time.Duration
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
	srv, err := server.New(server.Config{
		Map: m, TickRate: cfg.TickRate, MaxClients: max(cfg.Players, 1),
		Movement: &params, Seed: cfg.Seed,
	})
	if err != nil {
		return nil, err
	}
	oneWay := netem.Config{Latency: cfg.RTT / 2, Jitter: cfg.Jitter, Loss: cfg.Loss}
	tickDur := game.TickDuration(cfg.TickRate)
	seeds := splitmix{state: cfg.Seed}
	players := make([]*player, cfg.Players)
	for i := range players {
		c, err := client.New(client.Config{
			Map: m, Movement: &params, Name: fmt.Sprintf("p%d", i),
			InterpDelay: cfg.InterpDelay, SnapshotRate: cfg.SnapshotRate,
		})
		if err != nil {
			return nil, err
		}
		up, err := netem.NewLink(oneWay, seeds.next())
		if err != nil {
			return nil, fmt.Errorf("sim: link: %w", err)
		}
		down, err := netem.NewLink(oneWay, seeds.next())
		if err != nil {
			return nil, fmt.Errorf("sim: link: %w", err)
		}
		// Players join over the first 200 ms, each ticking at its own phase
		// against the server's ticks, as real clients do.
		start := time.Duration(seeds.next()%200_000) * time.Microsecond
		players[i] = &player{
			c: c, mv: newMover(seeds.next(), m, &params),
			up: up, down: down, connect: start, next: start,
		}
	}

	var (
		predErrs     []float64
		interpSum    float64
		interpN      int
		ids          []int
		pkt          = make([]byte, 0, 2048)
		clientRTTSum float64
		clientRTTN   int
	)
	deliver := func(now time.Duration) {
		for i, p := range players {
			for {
				b, ok := p.up.Receive(now, pkt[:0])
				if !ok {
					break
				}
				_ = srv.Step(now, server.Peer(i), b) // malformed input is counted by the server
			}
			for {
				b, ok := p.down.Receive(now, pkt[:0])
				if !ok {
					break
				}
				_ = p.c.Step(now, b)
				predErrs = append(predErrs, p.c.PredictionErrors()...)
			}
		}
	}
	route := func(now time.Duration) {
		for _, d := range srv.Outbox() {
			players[d.To].down.Send(now, d.Data)
		}
	}

	end := cfg.Duration
	for {
		now := srv.NextTick()
		for _, p := range players {
			now = min(now, p.next)
			if t, ok := p.up.Next(); ok {
				now = min(now, t)
			}
			if t, ok := p.down.Next(); ok {
				now = min(now, t)
			}
		}
		if now > end {
			break
		}
		deliver(now)
		route(now)
		if srv.NextTick() <= now {
			srv.Advance(now)
			route(now)
		}
		for _, p := range players {
			if p.next > now {
				continue
			}
			p.next += tickDur
			if p.c.Phase() == client.Idle && now >= p.connect {
				p.c.Connect(now)
			}
			in := game.UserCmd{}
			if p.c.Phase() == client.Connected {
				in = p.mv.input(now, p.c.Predicted())
			}
			p.c.Tick(now, in)
			for _, b := range p.c.Outbox() {
				p.up.Send(now, b)
			}
			if p.c.Phase() != client.Connected {
				continue
			}
			// Interpolation error: where this client draws each remote
			// player against where the server had it at that time.
			vt := p.c.ViewTime(now)
			ids = p.c.RemoteIDs(ids[:0])
			for _, id := range ids {
				drawn, ok1 := p.c.Remote(id, vt)
				truth, ok2 := srv.History().At(id, vt)
				if ok1 && ok2 && drawn.Teleport == truth.Teleport {
					interpSum += drawn.Pos.Dist(truth.Pos)
					interpN++
				}
			}
		}
	}

	res := &Result{
		Players:   cfg.Players,
		DurationS: cfg.Duration.Seconds(),
		Ticks:     srv.Tick(),
		StateHash: srv.StateHash(),
	}
	var bytes, snapBytes, snaps, connected int
	var srvRTT float64
	for i, p := range players {
		info, ok := srv.Client(p.c.ID())
		if !ok || p.c.Phase() != client.Connected {
			return nil, fmt.Errorf("sim: player %d not connected at the end (%s)", i, p.c.Reason())
		}
		connected++
		bytes += info.BytesSent + info.PacketsSent*udpIPv4Header
		snapBytes += info.SnapshotBytes
		snaps += info.Snapshots
		res.CommandsLost += info.CmdsLost + info.CmdsDropped
		srvRTT += float64(info.RTT) / float64(time.Millisecond)
		res.Corrections += p.c.Stats().Corrections
		clientRTTSum += float64(p.c.RTT()) / float64(time.Millisecond)
		clientRTTN++
		res.PacketsLostDownstream += p.down.Stats().Lost
	}
	if connected == 0 {
		return nil, errors.New("sim: no player connected")
	}
	res.BytesPerSPerClient = float64(bytes) / float64(connected) / cfg.Duration.Seconds()
	if snaps > 0 {
		res.SnapshotBytesMean = float64(snapBytes) / float64(snaps)
	}
	res.ServerRTTMeanMS = srvRTT / float64(connected)
	res.ClientRTTMeanMS = clientRTTSum / float64(clientRTTN)
	if len(predErrs) > 0 {
		var sum float64
		for _, e := range predErrs {
			sum += e
		}
		res.PredictionErrorMeanM = sum / float64(len(predErrs))
		slices.Sort(predErrs)
		res.PredictionErrorP99M = predErrs[int(math.Ceil(0.99*float64(len(predErrs))))-1]
		res.PredictionSamples = len(predErrs)
	}
	if interpN > 0 {
		res.InterpErrorMeanM = interpSum / float64(interpN)
		res.InterpSamples = interpN
	}
	res.WallS = time.Since(wallStart).Seconds()
	return res, nil
}

// splitmix derives independent seeds for each link and player from the
// run's seed (SplitMix64, Steele, Lea and Flood 2014).
type splitmix struct{ state uint64 }

func (s *splitmix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

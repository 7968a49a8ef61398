// Package match runs whole matches of bots in virtual time: the server
// with a game mode and a lag compensation policy, one bot per player
// playing through its own client over its own emulated link, per-player
// latency as a study assigns it. It writes every shot, hit, appeal, kill,
// spawn and objective event, and sums up each player's statistics.
package match

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/internal/netcheck"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/peek"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/shooter/weapon/weaponfile"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// DefaultBaseRTTms is the round trip lagkit match and lagkit bench give
// every player when none is asked for (Config's zero BaseRTTms is a
// LAN's).
const DefaultBaseRTTms = 20

// Config describes one match. Zero values take the defaults.
type Config struct {
	// Map is a shipped map's name or the path of a map file (.json);
	// default metro.
	Map      string
	Mode     mode.Kind     // default ctf
	Bots     int           // default 12
	Duration time.Duration // default 10 min
	Seed     uint64
	TickRate int // default 64
	Policy   lagcomp.Config
	// BaseRTTms is every player's round trip unless Latency or the
	// high-ping settings say otherwise (default 0: a LAN).
	BaseRTTms float64
	// Latency sets chosen players' round trips, by player index.
	Latency map[int]float64
	// HighPingFraction of each team's players, chosen at random from the
	// seed, get HighPingMS.
	HighPingFraction float64
	HighPingMS       float64
	// JitterMS and Loss apply to every link, each direction.
	JitterMS float64
	Loss     float64
	// Skill is every bot's skill (default 0.5).
	Skill float64
	// WalkSpeed is the players' running speed in m/s, crouched too
	// (default 4, the studies' speed).
	WalkSpeed float64
	// InterpDelay is the clients' interpolation delay (default 100 ms).
	InterpDelay time.Duration
	// WeaponsFile is a weapons file to read instead of the shipped one,
	// and Loadout the weapons every player carries, by name, the first
	// drawn (default: the rifle alone, as the ALC study's game had).
	WeaponsFile string
	Loadout     []string
	// Paths, when set, receives every living player's position as a
	// reckoning path file (time,player,team,x,y,z), PathRate times a
	// second (default 20): every round(TickRate/PathRate) server ticks.
	Paths    io.Writer
	PathRate int
	// PathVelocity adds each sample's velocity, as the server has it, to
	// the path file (reckoning.PathVelHeader).
	PathVelocity bool
	// PathLooks, with Paths, also keeps where each player looked at each
	// path sample (Result.Looks), which a path file does not hold.
	PathLooks bool
	// NetCheck, when set, samples every player's round trip 20 times a
	// second from NetCheckFrom on, as the server and its client estimate
	// it, and counts what its links did from then: PlayerResult.Net.
	NetCheck     bool          `json:"-"`
	NetCheckFrom time.Duration `json:"-"`
	// Replication, when its Policy is set, sends players' states to each
	// client by threshold replication (see server.ThresholdReplication), and
	// the clients draw the others with the same dead reckoning.
	Replication server.Replication
	// Delay is time delay or adaptive time delay (default none). Its zero
	// Adaptation adapts at once; delay.DefaultAdaptation is the study's
	// best.
	Delay delay.Config
	// TimeWarp is the server's time warp window (0: off; it needs policy
	// none and mode ffa or tdm; see server.Config.TimeWarp).
	TimeWarp time.Duration
	// TimeWarpHitscanOnly warps hitscan shots alone, as the time warp
	// study did (see server.Config.TimeWarpHitscanOnly).
	TimeWarpHitscanOnly bool
	// Scaling is attribute scaling (default none; see package scaling).
	Scaling scaling.Config
	// AimAssist is aim assistance (default none; see package aimassist).
	AimAssist aimassist.Config
	// Display is how the clients draw the other players (default
	// client.Interpolate; threshold replication sets its own).
	Display client.Display
	// PredictionOff has every client show its own player where the
	// server last put it instead of predicting it (server.Settings).
	PredictionOff bool
	// Duels follows every pair's duels (Result.Duels and DuelList): a
	// line-of-sight test per client tick and enemy drawn, a tenth of a
	// default match's time, so only a run that reports them asks.
	Duels bool
	// TickCPU measures the server's ticks on the thread's CPU clock
	// (Result.TickCPUUS): two system calls a tick (sim.Driver.CountCPU).
	TickCPU bool
	// BotPolicy makes each player's bot: bot i's policy from a seed
	// drawn from Seed, in the order lagkit's bots draw theirs. nil is
	// lagkit's shooter bot (bots.Shooter with Skill, three in four of
	// each team attacking), on the map's navigation grid.
	BotPolicy bot.Maker `json:"-"`
	// Game is a game's own rules for its bots' match (zero: lagkit's
	// shooter).
	Game Game `json:"-"`
}

// Game is a game's own seams for a match (see server.Config): its
// world, step, declared state and command, match rules, respawn and
// death rules, bodies, shot resolution, and its server logic run after each handover of the
// server's ticks. A match of a game's own bots (Config.BotPolicy)
// needs no navigation grid; lagkit's bots do.
type Game struct {
	// World is the map, instead of Config.Map.
	World  *world.Map
	Step   game.StepFunc
	State  *game.Layout
	Cmd    *game.CmdLayout
	Spawn  func(id, team int, st *game.PlayerState)
	Died   func(id int, st *game.PlayerState)
	Body   lagcomp.Body
	BodyOf func(id int, st game.PlayerState) lagcomp.Body
	// Shape and MaxHealth are server.Config's: the wire's shape for the
	// game (its bodies' part count, health to all), which its bots
	// share, and each player's full health.
	Shape     wire.Shape
	MaxHealth func(id int, st game.PlayerState) int16
	// Shots is the game's shot resolution (server.Config.Shots). With
	// none of Step, State and Shots, the match plays lagkit's shooter
	// with the loadout (shooter.Arm).
	Shots server.Shots
	// Rules makes the game's match rules (server.Config.Rules) in place
	// of lagkit's mode Config.Mode names; nil plays lagkit's mode.
	Rules func(server.RulesEnv) (server.Rules, error)
	// OnTick is the game's server logic: called with each of the
	// server's handovers (sim.Observer.ServerReady), on the driver's
	// goroutine, as realtime.MatchConfig.OnTick is in a live match.
	OnTick func(s *server.Server, r *server.Ready)
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Map == "" {
		out.Map = "metro"
	}
	if out.Mode == "" {
		out.Mode = mode.CTF
	}
	if out.Bots == 0 {
		out.Bots = 12
	}
	if out.Bots < 1 || out.Bots > game.MaxPlayers {
		return out, fmt.Errorf("match: %d bots, want %s", out.Bots, game.PlayersRange)
	}
	if out.Duration == 0 {
		out.Duration = 10 * time.Minute
	}
	if out.Duration < 0 || out.Duration > game.MaxDuration {
		return out, fmt.Errorf("match: duration %v outside 0..24h", out.Duration)
	}
	if out.TickRate == 0 {
		out.TickRate = 64
	}
	if out.PathRate == 0 {
		out.PathRate = 20
	}
	if out.PathRate < 1 || out.PathRate > out.TickRate {
		return out, fmt.Errorf("match: path rate %d Hz, want 1 to the tick rate (%d Hz)", out.PathRate, out.TickRate)
	}
	if out.Skill == 0 {
		out.Skill = 0.5
	}
	if out.Policy.Name == "" {
		out.Policy.Name = "tlc"
	}
	checks := []struct {
		name string
		v    float64
		ok   bool
	}{
		{"base rtt", out.BaseRTTms, out.BaseRTTms >= 0 && out.BaseRTTms <= 5000},
		{"high-ping fraction", out.HighPingFraction, out.HighPingFraction >= 0 && out.HighPingFraction <= 1},
		{"high ping", out.HighPingMS, out.HighPingMS >= 0 && out.HighPingMS <= 5000},
		{"jitter", out.JitterMS, out.JitterMS >= 0 && out.JitterMS <= 1000},
		{"loss", out.Loss, out.Loss >= 0 && out.Loss <= 1},
		{"skill", out.Skill, out.Skill >= 0 && out.Skill <= 1},
		{"walk speed", out.WalkSpeed, out.WalkSpeed >= 0 && out.WalkSpeed <= 20},
	}
	for _, ch := range checks {
		if !ch.ok || math.IsNaN(ch.v) {
			return out, fmt.Errorf("match: %s %v out of range", ch.name, ch.v)
		}
	}
	for i, ms := range out.Latency {
		if i < 0 || i >= out.Bots || !(ms >= 0 && ms <= 5000) {
			return out, fmt.Errorf("match: latency for player %d (%v ms): player out of range or latency outside 0..5000 ms", i, ms)
		}
	}
	return out, nil
}

// PlayerResult is one player's statistics.
type PlayerResult struct {
	ID           int     `json:"id"`
	Team         int     `json:"team"`
	RTTms        float64 `json:"rtt_ms"`
	Shots        int     `json:"shots"`
	Hits         int     `json:"hits"`
	HitAccuracy  float64 `json:"hit_accuracy"`
	Kills        int     `json:"kills"`
	Deaths       int     `json:"deaths"`
	Score        int     `json:"score"`
	HitsReceived int     `json:"hits_received"`
	SBCReceived  int     `json:"sbc_received"`
	DistanceM    float64 `json:"distance_m"`
	// MaxStillS is the longest the player stood still (within 0.5 m)
	// while alive.
	MaxStillS float64 `json:"max_still_s"`
	// InputToEffectMS is the mean time from issuing a new input (a
	// press or release; see server.Delay) to the server applying it: the
	// link's base one-way latency plus the server's measured wait from
	// arrival to execution (0 without new inputs). DelayActiveShare is the
	// share of the player's connected time that time delay was added to
	// it, and DelayMeanMS the added one-way delay's time-weighted mean.
	InputToEffectMS float64 `json:"input_to_effect_ms"`
	// Predicting is whether the player's client predicted its own
	// movement at the end (Config.PredictionOff, as the server
	// mandated it).
	Predicting       bool    `json:"predicting"`
	DelayActiveShare float64 `json:"delay_active_share"`
	DelayMeanMS      float64 `json:"delay_mean_ms"`
	// DelayFireHoldMS is the mean hold the time delay gave the player's
	// trigger presses on arrival (omitted without time delay).
	DelayFireHoldMS float64 `json:"delay_fire_hold_ms,omitempty"`
	// BytesPerS is what the server sent the player's client per second,
	// on the wire (datagrams with their IPv4 and UDP headers), and
	// UpdatesSent the other players' states it sent under threshold
	// replication (0 under full replication).
	BytesPerS   float64 `json:"bytes_per_s"`
	UpdatesSent int     `json:"updates_sent"`
	// DisplayErrorM is the mean distance between where the player's
	// client drew the others and where the server had them at that time,
	// over DisplaySamples samples (sim.DisplayError).
	DisplayErrorM  float64 `json:"display_error_mean_m"`
	DisplaySamples int     `json:"display_samples"`
	// Net is the player's link as measured (Config.NetCheck).
	Net NetCheck `json:"-"`
}

// NetCheck is a player's link as measured from Config.NetCheckFrom: the
// server's and the client's round-trip samples and what the emulated
// links applied, up and down.
type NetCheck struct {
	Server, Client netcheck.Summary
	Up, Down       netcheck.Link
}

// Summary describes the match as a whole.
type Summary struct {
	Mode      string  `json:"mode"`
	Map       string  `json:"map"`
	Policy    string  `json:"policy"`
	Score     [2]int  `json:"score"`
	Captures  int     `json:"captures"`
	DurationS float64 `json:"duration_s"`
	WallS     float64 `json:"wall_s"`
	StateHash string  `json:"state_hash"`
}

// Result is a match's outcome.
type Result struct {
	Players []PlayerResult `json:"players"`
	Match   Summary        `json:"match"`
	// Shots holds every shot with what the victim's client saw, for
	// experiments; it is not part of the JSON summary.
	Shots []Shot `json:"-"`
	// Log holds the server's log (connects, spawns, kills, objective
	// events) in server time order, for the study runner's records.
	Log []server.LogEntry `json:"-"`
	// TickCPUUS is, with Config.TickCPU, the CPU time per server tick
	// in microseconds, where the system has a thread CPU clock
	// (sim.Driver.ServerCPU): what the server core costs, not part of
	// the outcome.
	TickCPUUS float64 `json:"-"`
	// Duels sums up the match's duels (the peeker's advantage), and
	// DuelList holds each, for experiments and the study's records;
	// both only with Config.Duels.
	Duels    *DuelSummary `json:"duels,omitempty"`
	DuelList []Duel       `json:"-"`
	// Looks holds, with Config.PathLooks, where each player looked at
	// each sample of Paths, in the order the samples were written.
	Looks []Look `json:"-"`
}

// Shot is one shot as the match log records it.
type Shot struct {
	server.ShotRecord
	// SBC is SBC detection on the victim's client when the hit reached it,
	// read from that client itself; ShotRecord.Sight is the same
	// judgment as the server received it (what a study records, live and
	// simulated), unknown where it never arrived.
	SBC bool
	// ConfirmDelay is the time from the shooter's command to the server's
	// word reaching the shooter (0: never told).
	ConfirmDelay time.Duration
}

// Run plays a match. When events is not nil, it receives the match log
// as JSON lines, in server time order.
func Run(cfg Config, events io.Writer) (*Result, error) {
	wallStart := time.Now()
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := cfg.Game.World
	if m == nil {
		if m, err = loadMap(cfg.Map); err != nil {
			return nil, err
		}
	}
	loadout, err := cfg.Weapons()
	if err != nil {
		return nil, err
	}
	params := game.DefaultParams()
	if cfg.WalkSpeed > 0 {
		params.WalkSpeed, params.CrouchSpeed = cfg.WalkSpeed, cfg.WalkSpeed
	}
	makeBot := cfg.BotPolicy
	if makeBot == nil {
		// lagkit's bots fight with the weapon they spawn with, on the
		// map's navigation grid. Three in four of each team attack:
		// player i is on team i%2.
		weapon := loadout[0]
		grid, err := nav.Build(m, &params)
		if err != nil {
			return nil, err
		}
		if err := nav.Check(m, grid); err != nil {
			if strings.HasSuffix(cfg.Map, ".json") && cfg.Game.World == nil {
				return nil, fmt.Errorf("%s: %w", cfg.Map, err)
			}
			return nil, err
		}
		skill := cfg.Skill
		makeBot = bots.Shooter(func(i int) bots.Config {
			return bots.Config{Skill: skill, Attacker: (i/2)%4 < 3}
		}, m, grid, &params, &weapon)
	}
	rtts := cfg.latencies()
	players := make([]sim.PlayerConfig, cfg.Bots)
	seeds := rand.New(rand.NewPCG(cfg.Seed, 0x853c49e6748fea9b))
	tick := game.TickDuration(cfg.TickRate)
	for i := range players {
		b, err := makeBot(i, seeds.Uint64())
		if err != nil {
			return nil, fmt.Errorf("match: bot %d: %w", i, err)
		}
		if b == nil {
			return nil, fmt.Errorf("match: bot %d: no policy", i)
		}
		link := netem.Config{
			Latency: msec.Duration(rtts[i] / 2), Jitter: msec.Duration(cfg.JitterMS), Loss: cfg.Loss,
		}
		players[i] = sim.PlayerConfig{
			Client: client.Config{Name: fmt.Sprintf("bot%d", i), InterpDelay: cfg.InterpDelay},
			Up:     link, Down: link, Brain: b,
			// Players join in index order, so player i is on team i%2.
			JoinAt: time.Duration(i) * 20 * time.Millisecond,
			Phase:  time.Duration(seeds.Int64N(int64(tick))),
		}
		players[i].Client.Display = cfg.Display
		players[i].Client.FollowReplication(cfg.Replication.Policy, cfg.Replication.Order, cfg.Replication.Teams)
	}
	modeCfg := mode.Config{Mode: cfg.Mode, Duration: cfg.Duration}
	rules := shooter.Rules(modeCfg)
	if cfg.Game.Rules != nil {
		rules = cfg.Game.Rules
	}
	scfg := server.Config{
		Map: m, TickRate: cfg.TickRate, MaxClients: cfg.Bots, Movement: &params,
		Seed: cfg.Seed, Policy: cfg.Policy, Rules: rules, Delay: cfg.Delay, TimeWarp: cfg.TimeWarp, TimeWarpHitscanOnly: cfg.TimeWarpHitscanOnly,
		Replication: cfg.Replication, Settings: server.Settings{PredictionOff: cfg.PredictionOff}, Adjust: shooter.Adjust(cfg.Scaling, cfg.AimAssist),
		Step: cfg.Game.Step, Game: cfg.Game.State, Cmd: cfg.Game.Cmd, Spawn: cfg.Game.Spawn, Died: cfg.Game.Died,
		Body: cfg.Game.Body, BodyOf: cfg.Game.BodyOf, Shots: cfg.Game.Shots, Shape: cfg.Game.Shape, MaxHealth: cfg.Game.MaxHealth,
	}
	if cfg.Game.Step == nil && cfg.Game.State == nil && cfg.Game.Shots == nil {
		// lagkit's shooter, with its weapons: the server's and the bots'
		// clients'.
		if err := sim.ArmShooter(&scfg, players, loadout); err != nil {
			return nil, err
		}
	}
	d, err := sim.NewDriver(scfg, players, seeds.Uint64())
	if err != nil {
		return nil, err
	}
	obs := cfg.observer(d, m.Grid, &params)
	obs.onTick = cfg.Game.OnTick
	d.CountCPU = cfg.TickCPU
	d.Run(cfg.Duration, obs)
	if obs.duels != nil {
		obs.duels.Server(cfg.Duration, obs.records, obs.log)
	}
	if obs.paths != nil {
		if obs.pathErr == nil {
			obs.pathErr = obs.paths.Flush()
		}
		if obs.pathErr != nil {
			return nil, fmt.Errorf("match: writing paths: %w", obs.pathErr)
		}
	}

	res := &Result{}
	srv := d.Server
	if t := srv.Tick(); t > 0 && cfg.TickCPU {
		res.TickCPUUS = float64(d.ServerCPU) / float64(time.Microsecond) / float64(t)
	}
	for i, p := range d.Players {
		info, ok := srv.Client(p.Client.ID())
		if !ok {
			return nil, fmt.Errorf("match: bot %d not connected at the end (%s)", i, p.Client.Reason())
		}
		pr := PlayerResult{
			ID: info.ID, Team: info.Team, RTTms: rtts[i], Shots: info.Shots, Hits: info.Hits,
			Kills: info.Kills, Deaths: info.Deaths, Score: info.Score, HitsReceived: info.HitsTaken,
			DistanceM: obs.distance[info.ID], MaxStillS: obs.maxStill[info.ID].Seconds(),
		}
		if pr.Shots > 0 {
			pr.HitAccuracy = float64(pr.Hits) / float64(pr.Shots)
		}
		pr.InputToEffectMS, pr.DelayActiveShare, pr.DelayMeanMS = delayResults(info.Delay, rtts[i]/2)
		pr.DelayFireHoldMS = msOf(info.Delay.FireHold)
		pr.BytesPerS, pr.UpdatesSent = float64(sim.WireBytes(info))/cfg.Duration.Seconds(), info.UpdatesSent
		pr.DisplayErrorM, pr.DisplaySamples = obs.display[i].Mean(), obs.display[i].N
		pr.Predicting = p.Client.Predicting()
		if obs.net != nil {
			pr.Net = obs.net.result(i, info.ID, p)
		}
		res.Players = append(res.Players, pr)
	}
	res.Shots, res.Log = obs.shots(), obs.log
	res.Looks = obs.looks
	if obs.duels != nil {
		obs.duels.Tracker.Close(cfg.Duration)
		res.DuelList = duels(obs.duels.Tracker.Duels(), res.Players, cfg, tick)
		sum := summariseDuels(res.DuelList)
		res.Duels = &sum
	}
	for _, s := range res.Shots {
		if s.Registered && s.SBC && s.Victim >= 0 {
			for i := range res.Players {
				if res.Players[i].ID == s.Victim {
					res.Players[i].SBCReceived++
				}
			}
		}
	}
	played := srv.Rules()
	res.Match = Summary{
		Mode: played.Name(), Map: m.Name, Policy: srv.Policy().Name(),
		Score: played.TeamScore(), DurationS: cfg.Duration.Seconds(),
		StateHash: srv.StateHash(),
	}
	if mt := shooter.Match(srv); mt != nil {
		res.Match.Captures = mt.Captures
	}
	if events != nil {
		if err := obs.write(events, res.Shots); err != nil {
			return nil, err
		}
	}
	res.Match.WallS = time.Since(wallStart).Seconds()
	return res, nil
}

// observer returns the observer of a match of cfg (with its defaults)
// played by d, watching for what cfg asks: the statistics every match
// reports, and paths, NetCheck's samples and duels only when asked.
func (cfg *Config) observer(d *sim.Driver, grid *geom.Grid, params *game.Params) *observer {
	obs := newObserver(cfg.Bots)
	if cfg.NetCheck {
		obs.net = newNetObserver(cfg.Bots, cfg.NetCheckFrom)
	}
	obs.history, obs.display = d.Server.History(), make([]sim.DisplayError, cfg.Bots)
	if cfg.Duels {
		obs.duels = &peek.Watcher{Grid: grid, Params: params}
	}
	if cfg.Paths != nil {
		obs.paths = reckoning.NewPathWriter(cfg.Paths)
		obs.paths.Velocity = cfg.PathVelocity
		obs.pathEvery = max(1, int(math.Round(float64(cfg.TickRate)/float64(cfg.PathRate))))
		obs.keepLooks = cfg.PathLooks
	}
	return obs
}

// loadMap loads a shipped map by name or a map file by path.
func loadMap(name string) (*world.Map, error) { return world.LoadNamed(name) }

// Weapons returns the players' loadout: Loadout from WeaponsFile or
// the shipped weapons.
func (c *Config) Weapons() ([]weapon.Weapon, error) {
	all := weapon.Defaults()
	if c.WeaponsFile != "" {
		var err error
		if all, err = weaponfile.Load(c.WeaponsFile); err != nil {
			return nil, err
		}
	}
	names := c.Loadout
	if len(names) == 0 {
		names = []string{all[0].Name}
	}
	return weapon.Select(all, names)
}

// latencies returns each player's round trip in ms.
func (c *Config) latencies() []float64 {
	rtts := make([]float64, c.Bots)
	for i := range rtts {
		rtts[i] = c.BaseRTTms
	}
	if c.HighPingFraction > 0 {
		rng := rand.New(rand.NewPCG(c.Seed, 0x2545f4914f6cdd1d))
		for team := range 2 {
			var members []int
			for i := team; i < c.Bots; i += 2 {
				members = append(members, i)
			}
			rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
			k := int(math.Round(c.HighPingFraction * float64(len(members))))
			for _, i := range members[:k] {
				rtts[i] = c.HighPingMS
			}
		}
	}
	keys := make([]int, 0, len(c.Latency))
	for i := range c.Latency {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	for _, i := range keys {
		rtts[i] = c.Latency[i]
	}
	return rtts
}

// logLine is one line of events.jsonl.
type logLine struct {
	T    float64 `json:"t"`
	Type string  `json:"type"`
	// Fields of the line's type.
	Shooter    *int        `json:"shooter,omitempty"`
	Victim     *int        `json:"victim,omitempty"`
	Player     *int        `json:"player,omitempty"`
	Team       *int        `json:"team,omitempty"`
	Objective  *int        `json:"objective,omitempty"`
	Part       string      `json:"part,omitempty"`
	Hit        *bool       `json:"hit,omitempty"`
	Registered *bool       `json:"registered,omitempty"`
	SBC        *bool       `json:"sbc,omitempty"`
	Appeal     string      `json:"appeal,omitempty"`
	Outcome    string      `json:"outcome,omitempty"`
	RewindMS   *float64    `json:"rewind_ms,omitempty"`
	RollbackM  *float64    `json:"rollback_m,omitempty"`
	ConfirmMS  *float64    `json:"confirm_delay_ms,omitempty"`
	Damage     *int        `json:"damage,omitempty"`
	Pos        *[3]float64 `json:"pos,omitempty"`
}

func ptr[T any](v T) *T { return &v }

package experiment

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/world"
)

// reckoningConditions are the replay's two methods, at equal middle
// thresholds.
var reckoningConditions = []string{"dead", "led"}

// liveLosses are the live matches' loss rates per link direction.
var liveLosses = []float64{0, 0.01, 0.05, 0.10}

// liveRTTms is every player's round trip in the live matches.
const liveRTTms = 50

// liveCondition names a live condition: "live dead 5% loss".
func liveCondition(method string, loss float64) string {
	return fmt.Sprintf("live %s %g%% loss", method, 100*loss)
}

// heldOut reports whether player id's path is replayed rather than
// used for the trend map: a third of the players, two of each team.
func heldOut(id int) bool { return id%3 == 0 }

var _ = register(&Experiment{
	Name:  "reckoning",
	Title: "Dead against led reckoning: replayed paths and live matches",
	Design: "Replay. As in the led reckoning study, recorded paths are replayed frame by frame with no " +
		"network in between. Each replicate plays capture the flag on metro with 12 bots and " +
		"records every living player's position at every 64 Hz server tick. A third of the " +
		"players (two per team) are held out; the trend maps (one per team, 100 x 100 cells) " +
		"are built from the other players' paths. Each held-out path is replayed at 64 Hz " +
		"through a sender and a receiver model (first order, velocity from the last two " +
		"positions, a new path at each respawn): dead reckoning at the study's middle " +
		"threshold (38.1 cm), led reckoning between 9.5 and 66.7 cm from the trend map of the player's team, " +
		"with B = K/η and K making the middle threshold's blend time 1/17.8 s. " +
		"updates_per_s counts updates over replayed time; position_error_mean_m is the mean " +
		"distance between the receiver's position and the recorded one over every frame. " +
		"Tests pair the methods path by path. " +
		"Live. The study had no network, so the methods also run live: capture the flag on metro " +
		"with 12 bots at a 50 ms round trip and 0, 1, 5 or 10% loss on every link in each direction, " +
		"the server sending each client full snapshots (full) or, by threshold replication, a " +
		"player's state only when that client's first-order dead reckoning of it strays beyond the " +
		"threshold, at least every 5 s and on a teleport, a change of stance or flags or a turn of " +
		"the view over 15 degrees (dead: 38.1 cm; led: 9.5 to 66.7 cm from the shipped trend map of " +
		"the player's team); clients draw the others with the same model. updates_per_s counts the " +
		"player states the server sent per client per second; position_error_mean_m is the mean " +
		"distance between where each client drew the others and where the server had them at that " +
		"time, sampled at every client tick (interpolation under full replication); " +
		"bytes_per_s_per_client counts the server's datagrams with IPv4 and UDP headers. " +
		"The three methods of a replicate share a seed; tests pair dead and led player by player.",
	Cells: func(quick bool) []Cell {
		reps, minutes := 8, 10
		liveReps, liveMinutes := 5, 5
		if quick {
			reps, minutes = 3, 3
			liveReps, liveMinutes = 2, 2
		}
		var cells []Cell
		for rep := range reps {
			for _, c := range reckoningConditions {
				cells = append(cells, Cell{Index: len(cells), Condition: c, Replicate: rep,
					Params: map[string]any{"part": "replay", "method": c, "map": "metro", "mode": "ctf", "bots": 12, "minutes": minutes,
						"frame_hz": 64, "order": 1, "grid": reckoning.DefaultGrid,
						"eta_min_m": reckoning.DefaultEtaMin, "eta_m": reckoning.DefaultEta, "eta_max_m": reckoning.DefaultEtaMax,
						"k_m_s": reckoning.DefaultK}})
			}
		}
		for rep := range liveReps {
			for _, loss := range liveLosses {
				for _, method := range match.ReplicationMethods {
					cells = append(cells, Cell{Index: len(cells), Condition: liveCondition(method, loss), Replicate: rep,
						Params: map[string]any{"part": "live", "method": method, "loss": loss, "rtt_ms": liveRTTms,
							"map": "metro", "mode": "ctf", "bots": 12, "minutes": liveMinutes,
							"eta_min_m": reckoning.DefaultEtaMin, "eta_m": reckoning.DefaultEta, "eta_max_m": reckoning.DefaultEtaMax,
							"k_m_s": reckoning.DefaultK, "heartbeat_s": reckoning.DefaultHeartbeat.Seconds()}})
				}
			}
		}
		return cells
	},
	RunCell:   runReckoning,
	Summarise: summariseReckoning,
	Published: []Reference{
		{Metric: "updates_per_s", Condition: "dead", Value: 17.8, Source: "Led reckoning study: 17.8 updates per second under dead reckoning on replayed recorded professional play, with no network (the study ran no live matches, so the live conditions have no published figures)"},
		{Metric: "updates_per_s", Condition: "led", Value: 11.2, Source: "Led reckoning study: 11.2 updates per second under led reckoning on the same replay (37% fewer)"},
		{Metric: "position_error_mean_m", Condition: "dead", Value: 24.8 * reckoning.GameUnit, Source: "Led reckoning study: mean error 24.8 game units on the replay (read as cm)"},
		{Metric: "position_error_mean_m", Condition: "led", Value: 27.2 * reckoning.GameUnit, Source: "Led reckoning study: mean error 27.2 game units on the replay (9% more; read as cm)"},
	},
})

// runReckoning runs a replay or a live cell.
func runReckoning(c Cell) (CellResult, error) {
	if c.Params["part"] == "live" {
		return runLiveReckoning(c)
	}
	return runReplay(c)
}

// runReplay plays a cell's match, builds the trend maps from the
// players kept in, and replays the held-out paths under the cell's
// method.
func runReplay(c Cell) (CellResult, error) {
	const mapName = "metro"
	var buf bytes.Buffer
	if _, err := match.Run(match.Config{
		Map: mapName, Mode: mode.CTF, Bots: 12, Seed: c.Seed, TickRate: 64,
		Duration: time.Duration(param(c, "minutes") * float64(time.Minute)),
		Paths:    &buf, PathRate: int(param(c, "frame_hz")),
	}, nil); err != nil {
		return CellResult{}, err
	}
	samples, err := reckoning.ReadPaths("paths.csv", &buf)
	if err != nil {
		return CellResult{}, err
	}
	m, err := world.Load(mapName)
	if err != nil {
		return CellResult{}, err
	}
	var train []reckoning.Sample
	for _, s := range samples {
		if !heldOut(s.Player) {
			train = append(train, s)
		}
	}
	trends := map[int]*reckoning.TrendMap{}
	for team := range 2 {
		tm := &reckoning.TrendMap{Map: mapName, Team: team, Bounds: m.Bounds, NX: reckoning.DefaultGrid, NY: reckoning.DefaultGrid}
		if err := tm.Build(train); err != nil {
			return CellResult{}, err
		}
		trends[team] = tm
	}
	// One replay per held-out player, over all its tracks.
	type replay struct{ updates, frames, seconds, errSum float64 }
	byPlayer := map[int]*replay{}
	var players []int
	for _, tr := range reckoning.Tracks(samples) {
		if !heldOut(tr.Player) || len(tr.Samples) < 2 {
			continue
		}
		var policy reckoning.Policy = reckoning.Dead{}
		if c.Condition == "led" {
			policy = reckoning.Led{Trend: trends[tr.Team]}
		}
		r := byPlayer[tr.Player]
		if r == nil {
			r = &replay{}
			byPlayer[tr.Player] = r
			players = append(players, tr.Player)
		}
		u, f, e := replayTrack(tr.Samples, policy)
		r.updates += float64(u)
		r.frames += float64(f)
		r.errSum += e
		r.seconds += (tr.Samples[len(tr.Samples)-1].T - tr.Samples[0].T).Seconds()
	}
	if len(players) == 0 {
		return CellResult{}, fmt.Errorf("reckoning: seed %d: no held-out paths to replay", c.Seed)
	}
	met := map[string]float64{}
	series := map[string][]float64{}
	slices.Sort(players)
	for _, id := range players {
		r := byPlayer[id]
		met["updates"] += r.updates
		met["frames"] += r.frames
		met["seconds"] += r.seconds
		met["error_sum_m"] += r.errSum
		series["updates_per_s"] = append(series["updates_per_s"], safeDiv(r.updates, r.seconds))
		series["position_error_mean_m"] = append(series["position_error_mean_m"], safeDiv(r.errSum, r.frames))
	}
	met["paths"] = float64(len(players))
	met["updates_per_s"] = safeDiv(met["updates"], met["seconds"])
	met["position_error_mean_m"] = safeDiv(met["error_sum_m"], met["frames"])
	return CellResult{Metrics: met, Series: series}, nil
}

// replayTrack replays one continuous path frame by frame through a
// sender and the receiver's model, returning the updates sent, the
// frames and the summed distance between the receiver's position and the
// recorded one. The sender knows the recorded position and, as the
// study's replay, the velocity from the last two positions.
func replayTrack(path []reckoning.Sample, policy reckoning.Policy) (updates, frames int, errSum float64) {
	snd := reckoning.Sender{Policy: policy, Order: reckoning.First}
	rcv := reckoning.Model{Order: reckoning.First}
	for i, s := range path {
		st := reckoning.State{T: s.T, Pos: s.Pos}
		if i > 0 {
			st.Vel = s.Pos.Sub(path[i-1].Pos).Scale(1 / (s.T - path[i-1].T).Seconds())
		}
		if blend, due := snd.Step(st, i == 0); due {
			rcv.Update(st, blend)
			updates++
		}
		errSum += rcv.At(s.T).Dist(s.Pos)
	}
	return updates, len(path), errSum
}

func summariseReckoning(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "reckoning", Title: "Dead and led reckoning on replayed held-out paths (pooled)",
		Columns: []string{"method", "updates_per_s", "updates_per_s_ci95", "position_error_mean_m", "position_error_mean_m_ci95",
			"updates_vs_dead", "error_vs_dead", "paths", "replayed_s"}}
	for _, name := range g.names {
		if _, ok := g.cells[name][0].Cell.Params["loss"]; ok {
			continue // a live condition
		}
		met := map[string]float64{
			"updates_per_s":         g.ratio(name, "updates", "seconds"),
			"position_error_mean_m": g.ratio(name, "error_sum_m", "frames"),
			"updates":               g.sum(name, "updates"),
			"frames":                g.sum(name, "frames"),
			"replayed_s":            g.sum(name, "seconds"),
			"paths":                 g.sum(name, "paths"),
		}
		r.Conditions = append(r.Conditions, g.condition(name, "paths", int(met["paths"]), met))
		tbl.Rows = append(tbl.Rows, []string{name, f4(met["updates_per_s"]), f4(g.ci(name, "updates_per_s")),
			f4(met["position_error_mean_m"]), f4(g.ci(name, "position_error_mean_m")),
			pct(safeDiv(met["updates_per_s"], g.ratio("dead", "updates", "seconds")) - 1),
			pct(safeDiv(met["position_error_mean_m"], g.ratio("dead", "error_sum_m", "frames")) - 1),
			f0(met["paths"]), f0(met["replayed_s"])})
	}
	r.Tables = append(r.Tables, tbl)
	// Pair the methods path by path: the same held-out player of the
	// same replicate.
	for _, metric := range []string{"updates_per_s", "position_error_mean_m"} {
		xa, xb := pairPlayers(g, "dead", "led", metric)
		addPaired(r, metric, "dead", "led", xa, xb, "paired by held-out path (replicate and player)")
	}
	r.Plots = append(r.Plots,
		Plot{Name: "reckoning_updates", Title: "Updates per second on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "updates_per_s", YErr: "updates_per_s_ci95", XLabel: "method", YLabel: "updates per second"},
		Plot{Name: "reckoning_error", Title: "Mean position error on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "position_error_mean_m", YErr: "position_error_mean_m_ci95", XLabel: "method", YLabel: "mean error (m)"},
	)
	summariseLive(r, g)
}

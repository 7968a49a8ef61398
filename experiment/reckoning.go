package experiment

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// reckoningConditions are the replay's two methods, at equal middle
// thresholds, in each variant.
var reckoningConditions = []string{"dead", "led", "dead" + recordedVel, "led" + recordedVel, "dead" + firstOrder, "led" + firstOrder}

// replayVariants are the suffixes of the replay's variants: second order
// with velocities from positions (the default), second order with the
// recorded velocities, first order with velocities from positions.
var replayVariants = []string{"", recordedVel, firstOrder}

// liveLosses are the live matches' loss rates per link direction.
var liveLosses = []float64{0, 0.01, 0.05, 0.10}

// liveRTTms is every player's round trip in the live matches.
const liveRTTms = 50

// liveCondition names a live condition: "live dead 5% loss".
func liveCondition(method string, loss float64) string {
	return fmt.Sprintf("live %s %g%% loss", method, 100*loss)
}

// replayCondition is one condition of the replay: a method at a
// threshold (led reckoning's middle one).
type replayCondition struct {
	name, method string
	eta          float64
	order        reckoning.Order
	vel          reckoning.Velocity
}

// firstOrder suffixes the first-order variant's conditions, recordedVel
// the conditions that take the velocity the path records.
const (
	firstOrder  = " first-order"
	recordedVel = " recorded-velocity"
)

// minPathS is the shortest path replayed: the study kept paths longer
// than 5 seconds ([led] section VII-A).
const minPathS = 5

// replayConditions are dead and led reckoning at the middle threshold,
// then dead reckoning at the frontier's other thresholds ("dead 0.5 m"),
// all second order as the study projected; then the frontier and both
// methods again in first order, lagkit's earlier design, kept as a
// variant ("dead first-order").
func replayConditions() []replayCondition {
	var out []replayCondition
	for _, v := range []struct {
		suffix string
		order  reckoning.Order
		vel    reckoning.Velocity
	}{{"", reckoning.Second, reckoning.FromPositions}, {recordedVel, reckoning.Second, reckoning.Recorded}, {firstOrder, reckoning.First, reckoning.FromPositions}} {
		out = append(out, replayCondition{"dead" + v.suffix, "dead", reckoning.DefaultEta, v.order, v.vel},
			replayCondition{"led" + v.suffix, "led", reckoning.DefaultEta, v.order, v.vel})
		for _, eta := range reckoning.FrontierEtas {
			if eta != reckoning.DefaultEta {
				out = append(out, replayCondition{fmt.Sprintf("dead %.3g m", eta) + v.suffix, "dead", eta, v.order, v.vel})
			}
		}
	}
	return out
}

var _ = register(&Experiment{
	Name:  "reckoning",
	Title: "Dead against led reckoning: replayed paths and live matches",
	Design: "Replay. As in the led reckoning study, recorded paths are replayed frame by frame with no " +
		"network in between. Each replicate plays capture the flag on metro with 12 bots and " +
		"records every living player's position and velocity at every 64 Hz server tick. A third of the " +
		"players (two per team) are held out; the trend maps (one per team, 100 x 100 cells) " +
		"are built from the other players' paths. Each held-out path (a new path at each respawn) of at least 5 s, the " +
		"study's shortest (section VII-A), is replayed at 64 Hz through a sender and a receiver model, second order as the " +
		"study projected (equations 2-6). The study does not say how its replay took velocity, and its paths recorded one (section VII-A): " +
		"the default takes velocity from the last two positions and acceleration from the last three (lagkit's choice); " +
		"the \"... recorded-velocity\" conditions take the recorded velocity and the acceleration from the last two recorded " +
		"velocities. Dead reckoning runs at the study's middle threshold (38.1 cm), led reckoning between 9.5 and 66.7 cm " +
		"from the trend map of the player's team, with B = K/η. The study gives K no value (section VII-A: its blend time " +
		"was tuned by hand), and lagkit never sets it from the figures the replay is compared with: each replicate " +
		"calibrates K on the paths that build its trend maps, never the replayed ones, so that at the middle threshold a " +
		"blend draws the correction no faster than players move (reckoning.CalibrateK: K = 38.1 cm × gap/speed, gap " +
		"being the mean distance from the last update's trajectory when an update is sent and speed the mean speed of " +
		"moving players; k_m_s, calibration_gap_m and calibration_speed_mps in the table). " +
		"The unit is the path, as the study's (a mean over 500 paths with its standard deviation, Tables II and III): " +
		"updates_per_s is each path's updates over its duration and position_error_mean_m the mean distance between the " +
		"receiver's position and the recorded one over its frames, each condition's figure the mean over paths with its " +
		"standard deviation (the pooled figures beside them). Tests pair the methods path by path (the study compared " +
		"500 paths per method by Welch's t-test; replaying the same paths under both, lagkit pairs them). " +
		"Dead reckoning also replays the same paths at thresholds of 0.2, 0.3, 0.5 and 0.667 m: the frontier of " +
		"updates against error that raising or lowering one threshold gives. Led reckoning is worth its trend map " +
		"only where it lies below that frontier, so the report also gives dead reckoning's updates per second at " +
		"led reckoning's error, interpolated between the two thresholds whose errors straddle it. The same " +
		"conditions run again in first order (velocity only, lagkit's earlier design), named \"... first-order\". " +
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
			for _, c := range replayConditions() {
				cells = append(cells, Cell{Index: len(cells), Condition: c.name, Replicate: rep,
					Params: map[string]any{"part": "replay", "method": c.method, "map": "metro", "mode": "ctf", "bots": 12, "minutes": minutes,
						"frame_hz": 64, "order": int(c.order), "velocity": c.vel.String(), "min_path_s": minPathS,
						"grid": reckoning.DefaultGrid, "hold_out_every": 3,
						"eta_min_m": reckoning.DefaultEtaMin, "eta_m": c.eta, "eta_max_m": reckoning.DefaultEtaMax,
						"k": "calibrated on the trend maps' paths"}})
			}
		}
		for rep := range liveReps {
			for _, loss := range liveLosses {
				for _, method := range reckoning.Replications.Names() {
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
		{Metric: "updates_per_s", Condition: "dead", Value: 17.83246, Source: "led", Why: ledWhy,
			Location: "section VIII-A, Table II", Printed: "17.83246 (mean packet updates per second)", Unit: "updates/s", Check: Verified,
			Detail: "dead reckoning at its constant 20-unit (38.1 cm) threshold on 500 recorded professional CS:GO paths replayed " +
				"at 60 frames a second with no network (the study ran no live matches, so the live conditions have no published figures)"},
		{Metric: "updates_per_s", Condition: "led", Value: 11.22664, Source: "led", Why: ledWhy,
			Location: "section VIII-A, Table II", Printed: "11.22664 (mean packet updates per second)", Unit: "updates/s", Check: Verified,
			Detail: "led reckoning (thresholds 5 to 35 units, 9.5 to 66.7 cm) on the same paths: 37% fewer (section IX)"},
		{Metric: "position_error_mean_m", Condition: "dead", Value: 0.2479921, Source: "led", Why: ledWhy,
			Location: "section VIII-B, Table III", Printed: "24.79921 (mean position error, cm)", Unit: "m", Check: Verified,
			Detail: "dead reckoning's mean distance from the recorded position over every frame; Table III prints no unit, " +
				"and section IX's conversion (a difference of 1.27 units, 1 unit = 1.905 cm, is 2.4 cm, which is Table III's " +
				"difference) shows its errors are in centimetres"},
		{Metric: "position_error_mean_m", Condition: "led", Value: 0.2722430, Source: "led", Why: ledWhy,
			Location: "section VIII-B, Table III", Printed: "27.22430 (mean position error, cm)", Unit: "m", Check: Verified,
			Detail: "led reckoning's on the same paths: 9% (2.4 cm) more (section IX)"},
		{Metric: "updates_vs_dead", Condition: "led", Value: 11.22664/17.83246 - 1, Source: "led", Why: ledWhy,
			Location: "section VIII-A, Table II; section IX", Printed: "63% of dead reckoning's updates (a decrease of 37%)", Unit: "relative change", Check: Verified,
			Detail: "the study's main trade, its side of updates: led reckoning's mean updates per second over dead reckoning's at equal middle " +
				"thresholds, less 1 (the study never compared the two at equal error; the reckoning_equal_error table does)"},
		{Metric: "error_vs_dead", Condition: "led", Value: 27.22430/24.79921 - 1, Source: "led", Why: ledWhy,
			Location: "section VIII-B, Table III; section IX", Printed: "9% more mean position error (2.4 cm)", Unit: "relative change", Check: Verified,
			Detail: "the study's main trade, its side of error: led reckoning's mean position error over dead reckoning's, less 1"},
	},
})

// ledWhy says why the replay's figures can differ from the led
// reckoning study's.
const ledWhy = "The study replayed 500 paths of recorded professional play on Inferno at 60 frames a second with " +
	"second-order projection, its blend time tuned by hand; lagkit replays its bots' paths, which follow nav grid routes " +
	"between objectives on lagkit's maps, at 64 Hz with second-order projection, its K calibrated on the paths that " +
	"build the trend maps, so the updates it needs at a given threshold differ with the movement replayed."

// runReckoning runs a replay or a live cell.
func runReckoning(c Cell) (CellResult, error) {
	if c.Params["part"] == "live" {
		return runLiveReckoning(c)
	}
	return runReplay(c)
}

// replayPaths caches the paths of a replicate's match, which every
// replay condition of the replicate replays: a match of 12 bots for 10
// minutes takes far longer than replaying its paths. It keeps the few
// latest (cells run in replicate order).
var replayPaths struct {
	sync.Mutex
	keys  []string
	byKey map[string]*pathsEntry
}

type pathsEntry struct {
	once    sync.Once
	samples []reckoning.Sample
	err     error
}

// recordedPaths returns the paths, with velocities, of the match c plays.
func recordedPaths(c Cell, mapName string) ([]reckoning.Sample, error) {
	key := fmt.Sprint(c.Seed, "/", param(c, "minutes"), "/", param(c, "frame_hz"))
	replayPaths.Lock()
	if replayPaths.byKey == nil {
		replayPaths.byKey = map[string]*pathsEntry{}
	}
	e := replayPaths.byKey[key]
	if e == nil {
		e = &pathsEntry{}
		replayPaths.byKey[key] = e
		replayPaths.keys = append(replayPaths.keys, key)
		if len(replayPaths.keys) > 3 {
			delete(replayPaths.byKey, replayPaths.keys[0])
			replayPaths.keys = replayPaths.keys[1:]
		}
	}
	replayPaths.Unlock()
	e.once.Do(func() {
		var buf bytes.Buffer
		if _, e.err = match.Run(match.Config{
			Map: mapName, Mode: mode.CTF, Bots: 12, Seed: c.Seed, TickRate: 64,
			Duration: time.Duration(param(c, "minutes") * float64(time.Minute)),
			Paths:    &buf, PathRate: int(param(c, "frame_hz")), PathVelocity: true,
		}, nil); e.err != nil {
			return
		}
		e.samples, e.err = reckoning.ReadPaths("paths.csv", &buf)
	})
	return e.samples, e.err
}

// runReplay plays a cell's match (or takes its paths from the cache),
// builds the trend maps from the players kept in, calibrates K on them
// (reckoning.CalibrateK: the replayed paths, and every figure the replay
// is compared with, play no part), and replays the held-out paths of at
// least minPathS under the cell's method, one result per path: the unit
// the study reported over.
func runReplay(c Cell) (CellResult, error) {
	const mapName = "metro"
	samples, err := recordedPaths(c, mapName)
	if err != nil {
		return CellResult{}, err
	}
	m, err := world.Load(mapName)
	if err != nil {
		return CellResult{}, err
	}
	held, train, err := reckoning.HoldOut(samples, int(param(c, "hold_out_every")))
	if err != nil {
		return CellResult{}, err
	}
	trends, err := reckoning.TeamTrends(mapName, m.Bounds, int(param(c, "grid")), train, []int{0, 1})
	if err != nil {
		return CellResult{}, err
	}
	order := reckoning.Order(param(c, "order"))
	if order != reckoning.Second {
		order = reckoning.First
	}
	vel := reckoning.FromPositions
	if c.Params["velocity"] == reckoning.Recorded.String() {
		vel = reckoning.Recorded
	}
	k, calGap, calSpeed, ok := reckoning.CalibrateK(train, reckoning.DefaultEta, order, vel)
	if !ok {
		return CellResult{}, fmt.Errorf("reckoning: seed %d: no training paths to calibrate K on", c.Seed)
	}
	policy := func(team int) reckoning.Policy {
		if c.Params["method"] == "led" {
			return reckoning.Led{Trend: trends[team], EtaMin: param(c, "eta_min_m"), EtaMid: param(c, "eta_m"),
				EtaMax: param(c, "eta_max_m"), K: k}
		}
		return reckoning.Dead{Threshold: param(c, "eta_m"), Blend: reckoning.BlendTime(k, param(c, "eta_m"))}
	}
	paths, err := reckoning.ReplayPaths(held, policy, reckoning.ReplayOptions{Order: order, Velocity: vel,
		MinDuration: time.Duration(param(c, "min_path_s") * float64(time.Second))})
	if err != nil {
		return CellResult{}, err
	}
	if len(paths) == 0 {
		return CellResult{}, fmt.Errorf("reckoning: seed %d: no held-out paths of %v s or more to replay", c.Seed, param(c, "min_path_s"))
	}
	met := map[string]float64{}
	series := map[string][]float64{}
	for _, r := range paths {
		met["updates"] += float64(r.Updates)
		met["frames"] += float64(r.Frames)
		met["seconds"] += r.Seconds
		met["error_sum_m"] += r.ErrorSum
		series["updates_per_s"] = append(series["updates_per_s"], r.UpdatesPerS())
		series["position_error_mean_m"] = append(series["position_error_mean_m"], r.ErrorMean())
	}
	met["paths"] = float64(len(paths))
	met["k_m_s"], met["calibration_gap_m"], met["calibration_speed_mps"] = k, calGap, calSpeed
	met["updates_per_s"] = meanOf(series["updates_per_s"])
	met["position_error_mean_m"] = meanOf(series["position_error_mean_m"])
	return CellResult{Metrics: met, Series: series}, nil
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return safeDiv(s, float64(len(xs)))
}

// pathStats returns the mean and standard deviation over every path of
// a condition (all replicates) of a per-path series: the study's
// figures (a mean over paths with its deviation).
func pathStats(g groups, cond, metric string) (mean, sd float64, n int) {
	var xs []float64
	for _, c := range g.cells[cond] {
		xs = append(xs, c.Series[metric]...)
	}
	n = len(xs)
	mean = meanOf(xs)
	if n > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(ss / float64(n-1))
	}
	return mean, sd, n
}

func summariseReckoning(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "reckoning", Title: "Dead and led reckoning on replayed held-out paths: mean and standard deviation over paths (the study's unit), and pooled over time",
		Columns: []string{"method", "updates_per_s", "updates_per_s_sd", "position_error_mean_m", "position_error_mean_m_sd",
			"updates_vs_dead", "error_vs_dead", "paths", "updates_per_s_pooled", "position_error_pooled_m", "replayed_s",
			"k_m_s", "calibration_gap_m", "calibration_speed_mps"}}
	frontier := Table{Name: "reckoning_frontier", Title: "Updates against error on replayed paths: dead reckoning over thresholds, and led reckoning (means over paths)",
		Columns: []string{"condition", "method", "eta_m", "updates_per_s", "position_error_mean_m", "updates_vs_dead", "error_vs_dead"}}
	dead := map[string][]reckoning.FrontierPoint{} // by variant suffix
	for _, name := range g.names {
		if _, ok := g.cells[name][0].Cell.Params["loss"]; ok {
			continue // a live condition
		}
		suffix := ""
		for _, v := range replayVariants[1:] {
			if strings.HasSuffix(name, v) {
				suffix = v
			}
		}
		upd, updSD, n := pathStats(g, name, "updates_per_s")
		errM, errSD, _ := pathStats(g, name, "position_error_mean_m")
		deadUpd, _, _ := pathStats(g, "dead"+suffix, "updates_per_s")
		deadErr, _, _ := pathStats(g, "dead"+suffix, "position_error_mean_m")
		met := map[string]float64{
			"updates_per_s":            upd,
			"updates_per_s_sd":         updSD,
			"position_error_mean_m":    errM,
			"position_error_mean_m_sd": errSD,
			"updates_vs_dead":          safeDiv(upd, deadUpd) - 1,
			"error_vs_dead":            safeDiv(errM, deadErr) - 1,
			"updates_per_s_pooled":     g.ratio(name, "updates", "seconds"),
			"position_error_pooled_m":  g.ratio(name, "error_sum_m", "frames"),
			"updates":                  g.sum(name, "updates"),
			"frames":                   g.sum(name, "frames"),
			"replayed_s":               g.sum(name, "seconds"),
			"paths":                    float64(n),
			"k_m_s":                    g.mean(name, "k_m_s"),
			// means over replicates of each one's calibration
			"calibration_gap_m":     g.mean(name, "calibration_gap_m"),
			"calibration_speed_mps": g.mean(name, "calibration_speed_mps"),
		}
		r.Conditions = append(r.Conditions, g.condition(name, "paths", n, met))
		method, eta := g.cells[name][0].Cell.Params["method"], param(g.cells[name][0].Cell, "eta_m")
		etaCell := fnum(eta)
		if method == "dead" {
			dead[suffix] = append(dead[suffix], reckoning.FrontierPoint{Eta: eta, UpdatesPerS: upd, ErrorMean: errM})
		} else {
			etaCell = fmt.Sprintf("%s-%s", fnum(param(g.cells[name][0].Cell, "eta_min_m")), fnum(param(g.cells[name][0].Cell, "eta_max_m")))
		}
		frontier.Rows = append(frontier.Rows, []string{name, fmt.Sprint(method), etaCell,
			fnum(upd), fnum(errM), fnum(met["updates_vs_dead"]), fnum(met["error_vs_dead"])})
		if slices.Contains(reckoningConditions, name) {
			tbl.Rows = append(tbl.Rows, []string{name, fnum(upd), fnum(updSD), fnum(errM), fnum(errSD),
				fnum(met["updates_vs_dead"]), fnum(met["error_vs_dead"]), fnum(float64(n)), fnum(met["updates_per_s_pooled"]),
				fnum(met["position_error_pooled_m"]), fnum(met["replayed_s"]), fnum(met["k_m_s"]), fnum(met["calibration_gap_m"]),
				fnum(met["calibration_speed_mps"])})
		}
	}
	r.Tables = append(r.Tables, tbl, frontier, equalError(r, g, dead))
	// Pair the methods path by path: the same held-out path of the same
	// replicate, replayed under each.
	for _, suffix := range replayVariants {
		for _, metric := range []string{"updates_per_s", "position_error_mean_m"} {
			xa, xb := pairPlayers(g, "dead"+suffix, "led"+suffix, metric)
			AddPaired(r, metric, "dead"+suffix, "led"+suffix, xa, xb, "paired by held-out path (replicate and path)")
		}
	}
	r.Plots = append(r.Plots,
		Plot{Name: "reckoning_updates", Title: "Updates per second on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "updates_per_s", YErr: "updates_per_s_sd", XLabel: "method", YLabel: "updates per second",
			Caption: "Mean over held-out paths of at least 5 s; error bars one standard deviation over paths, as the study's Table II."},
		Plot{Name: "reckoning_error", Title: "Mean position error on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "position_error_mean_m", YErr: "position_error_mean_m_sd", XLabel: "method", YLabel: "mean error (m)",
			Caption: "Mean over held-out paths of at least 5 s; error bars one standard deviation over paths, as the study's Table III."},
		Plot{Name: "reckoning_frontier", Title: "Updates against error: dead reckoning over thresholds, and led reckoning", Kind: "line",
			Table: "reckoning_frontier", X: "position_error_mean_m", Y: "updates_per_s", Series: "method",
			XLabel: "mean error (m)", YLabel: "updates per second"},
	)
	summariseLive(r, g)
}

// equalError compares led reckoning with dead reckoning at led
// reckoning's error: dead reckoning's updates per second there, from the
// frontier of means over paths, and led reckoning's saving against
// them, which it also adds to the led condition's metrics. This is the
// study's trade asked fairly: led reckoning is worth its trend map only
// if it sends fewer updates than dead reckoning does for the same error.
func equalError(r *Results, g groups, dead map[string][]reckoning.FrontierPoint) Table {
	t := Table{Name: "reckoning_equal_error", Title: "Led reckoning against dead reckoning at the same mean error (means over paths; dead reckoning interpolated between thresholds), by variant",
		Columns: []string{"variant", "led_error_m", "led_updates_per_s", "dead_eta_m_at_that_error", "dead_updates_per_s_at_that_error", "led_vs_dead_at_equal_error"}}
	for _, suffix := range replayVariants {
		led := "led" + suffix
		if len(g.cells[led]) == 0 {
			continue
		}
		variant := map[string]string{"": "second order", recordedVel: "second order, recorded velocity", firstOrder: "first order"}[suffix]
		ledErr, _, _ := pathStats(g, led, "position_error_mean_m")
		ledUpd, _, _ := pathStats(g, led, "updates_per_s")
		row := []string{variant, fnum(ledErr), fnum(ledUpd), "outside the thresholds replayed", "", ""}
		if upd, eta, ok := reckoning.UpdatesAtError(dead[suffix], ledErr); ok {
			saving := safeDiv(ledUpd, upd) - 1
			row = []string{variant, fnum(ledErr), fnum(ledUpd), fnum(eta), fnum(upd), fnum(saving)}
			for i := range r.Conditions {
				if r.Conditions[i].Name == led {
					r.Conditions[i].Metrics["updates_vs_dead_at_equal_error"] = saving
				}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

package experiment

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/world"
)

// reckoningConditions are the replay's two methods, at equal middle
// thresholds.
var reckoningConditions = []string{"dead", "led", "dead" + firstOrder, "led" + firstOrder}

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
}

// firstOrder suffixes the first-order variant's conditions.
const firstOrder = " first-order"

// replayConditions are dead and led reckoning at the middle threshold,
// then dead reckoning at the frontier's other thresholds ("dead 0.5 m"),
// all second order as the study projected; then the frontier and both
// methods again in first order, lagkit's earlier design, kept as a
// variant ("dead first-order").
func replayConditions() []replayCondition {
	var out []replayCondition
	for _, o := range []reckoning.Order{reckoning.Second, reckoning.First} {
		suffix := ""
		if o == reckoning.First {
			suffix = firstOrder
		}
		out = append(out, replayCondition{"dead" + suffix, "dead", reckoning.DefaultEta, o}, replayCondition{"led" + suffix, "led", reckoning.DefaultEta, o})
		for _, eta := range reckoning.FrontierEtas {
			if eta != reckoning.DefaultEta {
				out = append(out, replayCondition{fmt.Sprintf("dead %.3g m", eta) + suffix, "dead", eta, o})
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
		"records every living player's position at every 64 Hz server tick. A third of the " +
		"players (two per team) are held out; the trend maps (one per team, 100 x 100 cells) " +
		"are built from the other players' paths. Each held-out path is replayed at 64 Hz " +
		"through a sender and a receiver model (second order as the study projected: velocity from the last two " +
		"positions and acceleration from the last three; a new path at each respawn): dead reckoning at the study's middle " +
		"threshold (38.1 cm), led reckoning between 9.5 and 66.7 cm from the trend map of the player's team, " +
		"with B = K/η. The study gives K no value (section VII-A: its blend time was tuned by hand), and " +
		"lagkit never sets it from the figures the replay is compared with: each replicate calibrates K on " +
		"the paths that build its trend maps, never the replayed ones, so that at the middle threshold a " +
		"blend draws the correction no faster than players move: dead reckoning replays those paths, and " +
		"B = gap/speed, K = 38.1 cm × gap/speed, gap being the mean distance from the last update's " +
		"trajectory when an update is sent and speed the mean speed of moving players (k_m_s, " +
		"calibration_gap_m and calibration_speed_mps in the table). " +
		"updates_per_s counts updates over replayed time; position_error_mean_m is the mean " +
		"distance between the receiver's position and the recorded one over every frame. " +
		"Tests pair the methods path by path. " +
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
						"frame_hz": 64, "order": int(c.order), "grid": reckoning.DefaultGrid, "hold_out_every": 3,
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
	},
})

// ledWhy says why the replay's figures can differ from the led
// reckoning study's.
const ledWhy = "The study replayed 500 paths of recorded professional play on Inferno at 60 frames a second with " +
	"second-order projection, its blend time tuned by hand; lagkit replays its bots' paths, which follow nav grid routes " +
	"between objectives on lagkit's maps, at 64 Hz with second-order projection from the recorded positions, its K calibrated on the paths that " +
	"build the trend maps, so the updates it needs at a given threshold differ with the movement replayed."

// runReckoning runs a replay or a live cell.
func runReckoning(c Cell) (CellResult, error) {
	if c.Params["part"] == "live" {
		return runLiveReckoning(c)
	}
	return runReplay(c)
}

// calibrateK returns the blend constant K of B = K/η for a replay,
// calibrated on paths held apart from the replayed ones (train, which
// also build the trend maps), with the gap and speed it comes from. The
// study gives K no value: its dead reckoning's blend time was tuned by
// hand until predicted paths looked and measured close to the recorded
// ones ([led] section VII-A), and blending is there for the eye (it
// only ever adds error: snapping at once would be closer). lagkit's rule
// for the eye: a blend draws the correction no faster than the players
// move. Dead reckoning at the middle threshold eta replays the training
// paths; gap is the mean distance between the true position and the
// last update's trajectory when an update is sent, speed the mean speed
// over the frames where the player moves (above 0.5 m/s), and the blend
// time at eta is gap/speed, so K = eta × gap / speed. The study's update
// rate and errors, the figures the replay is compared with, play no
// part.
func calibrateK(train []reckoning.Sample, eta float64, order reckoning.Order) (k, gap, speed float64) {
	var gapSum, speedSum float64
	var gaps, moving int
	for _, tr := range reckoning.Tracks(train) {
		snd := reckoning.Sender{Policy: reckoning.Dead{Threshold: eta}, Order: order}
		var last reckoning.State
		for i, sm := range tr.Samples {
			st := reckoning.PathState(tr.Samples, i)
			if i > 0 {
				if v := st.Vel.Len(); v > 0.5 {
					speedSum += v
					moving++
				}
			}
			if _, due := snd.Step(st, i == 0); due {
				if i > 0 {
					gapSum += sm.Pos.Dist(last.Extrapolate(sm.T, order))
					gaps++
				}
				last = st
			}
		}
	}
	if gaps == 0 || moving == 0 {
		return reckoning.DefaultK, 0, 0 // nothing to calibrate on: lagkit's default
	}
	gap, speed = gapSum/float64(gaps), speedSum/float64(moving)
	return eta * gap / speed, gap, speed
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
	k, calGap, calSpeed := calibrateK(train, reckoning.DefaultEta, order)
	policy := func(team int) reckoning.Policy {
		if c.Params["method"] == "led" {
			return reckoning.Led{Trend: trends[team], EtaMin: param(c, "eta_min_m"), EtaMid: param(c, "eta_m"),
				EtaMax: param(c, "eta_max_m"), K: k}
		}
		return reckoning.Dead{Threshold: param(c, "eta_m"), Blend: reckoning.BlendTime(k, param(c, "eta_m"))}
	}
	players := reckoning.ReplayOrder(held, policy, order)
	if len(players) == 0 {
		return CellResult{}, fmt.Errorf("reckoning: seed %d: no held-out paths to replay", c.Seed)
	}
	met := map[string]float64{}
	series := map[string][]float64{}
	for _, r := range players {
		met["updates"] += float64(r.Updates)
		met["frames"] += float64(r.Frames)
		met["seconds"] += r.Seconds
		met["error_sum_m"] += r.ErrorSum
		series["updates_per_s"] = append(series["updates_per_s"], r.UpdatesPerS())
		series["position_error_mean_m"] = append(series["position_error_mean_m"], r.ErrorMean())
	}
	met["paths"] = float64(len(players))
	met["k_m_s"], met["calibration_gap_m"], met["calibration_speed_mps"] = k, calGap, calSpeed
	met["updates_per_s"] = safeDiv(met["updates"], met["seconds"])
	met["position_error_mean_m"] = safeDiv(met["error_sum_m"], met["frames"])
	return CellResult{Metrics: met, Series: series}, nil
}

func summariseReckoning(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "reckoning", Title: "Dead and led reckoning on replayed held-out paths (pooled)",
		Columns: []string{"method", "updates_per_s", "updates_per_s_ci95", "position_error_mean_m", "position_error_mean_m_ci95",
			"updates_vs_dead", "error_vs_dead", "paths", "replayed_s", "k_m_s", "calibration_gap_m", "calibration_speed_mps"}}
	frontier := Table{Name: "reckoning_frontier", Title: "Updates against error on replayed paths: dead reckoning over thresholds, and led reckoning (pooled)",
		Columns: []string{"condition", "method", "eta_m", "updates_per_s", "position_error_mean_m", "updates_vs_dead", "error_vs_dead"}}
	dead := map[string][]reckoning.FrontierPoint{} // by order suffix
	for _, name := range g.names {
		if _, ok := g.cells[name][0].Cell.Params["loss"]; ok {
			continue // a live condition
		}
		suffix := ""
		if strings.HasSuffix(name, firstOrder) {
			suffix = firstOrder
		}
		deadUpd, deadErr := g.ratio("dead"+suffix, "updates", "seconds"), g.ratio("dead"+suffix, "error_sum_m", "frames")
		met := map[string]float64{
			"updates_per_s":         g.ratio(name, "updates", "seconds"),
			"position_error_mean_m": g.ratio(name, "error_sum_m", "frames"),
			"updates":               g.sum(name, "updates"),
			"frames":                g.sum(name, "frames"),
			"replayed_s":            g.sum(name, "seconds"),
			"paths":                 g.sum(name, "paths"),
			"k_m_s":                 g.mean(name, "k_m_s"),
			// means over replicates of each one's calibration
			"calibration_gap_m":     g.mean(name, "calibration_gap_m"),
			"calibration_speed_mps": g.mean(name, "calibration_speed_mps"),
		}
		r.Conditions = append(r.Conditions, g.condition(name, "paths", int(met["paths"]), met))
		method, eta := g.cells[name][0].Cell.Params["method"], param(g.cells[name][0].Cell, "eta_m")
		vsUpd, vsErr := fnum(safeDiv(met["updates_per_s"], deadUpd)-1), fnum(safeDiv(met["position_error_mean_m"], deadErr)-1)
		etaCell := fnum(eta)
		if method == "dead" {
			dead[suffix] = append(dead[suffix], reckoning.FrontierPoint{Eta: eta, UpdatesPerS: met["updates_per_s"], ErrorMean: met["position_error_mean_m"]})
		} else {
			etaCell = fmt.Sprintf("%s-%s", fnum(param(g.cells[name][0].Cell, "eta_min_m")), fnum(param(g.cells[name][0].Cell, "eta_max_m")))
		}
		frontier.Rows = append(frontier.Rows, []string{name, fmt.Sprint(method), etaCell,
			fnum(met["updates_per_s"]), fnum(met["position_error_mean_m"]), vsUpd, vsErr})
		if slices.Contains(reckoningConditions, name) {
			tbl.Rows = append(tbl.Rows, []string{name, fnum(met["updates_per_s"]), fnum(g.ci(name, "updates_per_s")),
				fnum(met["position_error_mean_m"]), fnum(g.ci(name, "position_error_mean_m")),
				vsUpd, vsErr, fnum(met["paths"]), fnum(met["replayed_s"]), fnum(met["k_m_s"]), fnum(met["calibration_gap_m"]), fnum(met["calibration_speed_mps"])})
		}
	}
	r.Tables = append(r.Tables, tbl, frontier, equalError(r, g, dead))
	// Pair the methods path by path: the same held-out player of the
	// same replicate.
	for _, suffix := range []string{"", firstOrder} {
		for _, metric := range []string{"updates_per_s", "position_error_mean_m"} {
			xa, xb := pairPlayers(g, "dead"+suffix, "led"+suffix, metric)
			AddPaired(r, metric, "dead"+suffix, "led"+suffix, xa, xb, "paired by held-out path (replicate and player)")
		}
	}
	r.Plots = append(r.Plots,
		Plot{Name: "reckoning_updates", Title: "Updates per second on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "updates_per_s", YErr: "updates_per_s_ci95", XLabel: "method", YLabel: "updates per second"},
		Plot{Name: "reckoning_error", Title: "Mean position error on replayed paths", Kind: "bar",
			Table: "reckoning", X: "method", Y: "position_error_mean_m", YErr: "position_error_mean_m_ci95", XLabel: "method", YLabel: "mean error (m)"},
		Plot{Name: "reckoning_frontier", Title: "Updates against error: dead reckoning over thresholds, and led reckoning", Kind: "line",
			Table: "reckoning_frontier", X: "position_error_mean_m", Y: "updates_per_s", Series: "method",
			XLabel: "mean error (m)", YLabel: "updates per second"},
	)
	summariseLive(r, g)
}

// equalError compares led reckoning with dead reckoning at led
// reckoning's error: dead reckoning's updates per second there, from the
// frontier, and led reckoning's saving against them, which it also adds
// to the led condition's metrics.
func equalError(r *Results, g groups, dead map[string][]reckoning.FrontierPoint) Table {
	t := Table{Name: "reckoning_equal_error", Title: "Led reckoning against dead reckoning at the same mean error (pooled; dead reckoning interpolated between thresholds), by projection order",
		Columns: []string{"order", "led_error_m", "led_updates_per_s", "dead_eta_m_at_that_error", "dead_updates_per_s_at_that_error", "led_vs_dead_at_equal_error"}}
	for _, suffix := range []string{"", firstOrder} {
		led := "led" + suffix
		if len(g.cells[led]) == 0 {
			continue
		}
		order := "second"
		if suffix != "" {
			order = "first"
		}
		ledErr, ledUpd := g.ratio(led, "error_sum_m", "frames"), g.ratio(led, "updates", "seconds")
		row := []string{order, fnum(ledErr), fnum(ledUpd), "outside the thresholds replayed", "", ""}
		if upd, eta, ok := reckoning.UpdatesAtError(dead[suffix], ledErr); ok {
			saving := safeDiv(ledUpd, upd) - 1
			row = []string{order, fnum(ledErr), fnum(ledUpd), fnum(eta), fnum(upd), fnum(saving)}
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

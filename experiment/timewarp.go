package experiment

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// Time warp's conditions: the accuracy part's policies and displays, the
// round trips and loadouts of the study's conditions, and the cost
// part's sweeps.
var (
	warpConditions = []string{"none", "predict", "timewarp", "timewarp-predict", "tlc"}
	// warpHitscanConditions warp hitscan shots alone, as the study's time
	// warp did (its raygun's shots; sections 4.1.2 and 5.2): played with
	// the hitscan rifle only, since with a projectile weapon they warp
	// nothing and are the none and predict conditions.
	warpHitscanConditions = []string{"timewarp-hitscan", "timewarp-hitscan-predict"}
	warpRTTs              = []int{0, 75, 150, 300}
	warpWeapons           = []string{"rifle", "pistol"}
	warpEntities          = []int{10, 25, 50, 100}
	warpRewindsMS         = []int{0, 50, 100, 200, 300}
	// warpLoadPlayers are the load part's crowd sizes: the study's 5 to
	// 50 AI (section 3.5.1, Figure 3.4) and beyond.
	warpLoadPlayers = []int{5, 10, 15, 20, 30, 40, 50, 75, 100}
)

// The load part's settings, as the study's time warp test ran (section
// 3.5.1): each player warped once a second, 50 ms back.
const (
	warpLoadRewind = 50 * time.Millisecond
	warpLoadTicks  = 320 // 5 s of ticks measured per arm
)

// warpTimingRepeats is how many times the full design measures each
// timing cell: the median over them is reported, with their range.
const warpTimingRepeats = 5

// warpWindow is the time warp window of every time warp cell.
const warpWindow = 500 * time.Millisecond

// warpTiming keeps the cost cells' wall-clock measurements from sharing
// the machine with the cells running beside them on the other workers: a
// cost cell runs holding it exclusively, match cells hold it shared.
var warpTiming sync.RWMutex

var _ = register(&Experiment{
	Name:  "timewarp",
	Title: "What does time warp cost, and does it help hitscan and projectile shooters hit?",
	Design: "Three parts. Load (the study's time warp test, section 3.5.1): server time per tick with 5 to 100 " +
		"scripted players (as in the cost part), without warps and with a 50 ms warp per player a second, each " +
		"arm 320 ticks on a fresh crowd, measured alone on this machine; a power law fitted to each arm " +
		"extrapolates the players at which a tick would take its whole 15.625 ms. Cost: scripted players (walking in circles, turning their aim, firing in " +
		"bursts, half with the rifle and half with the projectile pistol) on courtyard with a " +
		"500 ms time warp window; after 160 ticks, one warp re-simulates the last 0, 50, 100, " +
		"200 or 300 ms for one late player among 10, 25, 50 or 100 players (Server.Resimulate, " +
		"the work a late command causes; its inputs unchanged, so the affected set stays the late " +
		"player's). warp_us is the median over repeats of the mean wall time of one warp for each " +
		"player in turn, measured in process on this machine while no other cell of the run " +
		"runs: machine-dependent (and disturbed by whatever else the machine runs), so compare " +
		"cells within one run. The cost " +
		"exponent in entities is the slope of log cost against log entities (least squares) at " +
		"each rewind depth; the growth with rewind is the slope of cost against rewind (µs per " +
		"ms) and the exponent of cost in rewound ticks, per entity count. The JavaScript time " +
		"warp of the study grew as rewind x entities^2. Every timing cell (cost and load) is measured 5 times (--quick 3), " +
		"each on a fresh crowd, and the load cell alternates its two arms in blocks of ticks, so that the machine's " +
		"other work falls on both alike; the report gives each timing and each fitted exponent as the median over the " +
		"repeats with their range, and says whether the two load arms kept their order in every repeat: one measurement " +
		"on a shared machine is no finding. Accuracy: free-for-all on courtyard " +
		"(lagkit's stand-in for the study's square map with barriers), 8 bots, half of them (chosen by " +
		"the seed) at 0, 75, 150 or 300 ms round trip (the study's latencies, section 3.4.2, where three " +
		"of four players got the latency and one kept 0 ms) and the others on a LAN (0 ms), all carrying " +
		"the hitscan rifle or the projectile pistol (60 m/s), played " +
		"with no compensation (policy none; lagkit's clients still predict their own movement, which the study's " +
		"uncompensated clients did not), prediction alone (policy none, clients draw opponents " +
		"extrapolated to the received server time; the study's prediction arm predicted the player's own movement " +
		"and opponents' and bullets' trajectories, snapping to each new state, section 3.3.2, so lagkit's none and " +
		"predict differ by opponent prediction alone, the study's by both), time warp (policy none, late commands inserted at " +
		"their issue tick), time warp of hitscan shots only (the study's design: commands run on arrival and each rifle shot is " +
		"judged at its command's issue tick; with and without prediction, rifle matches only, since with the pistol it warps " +
		"nothing), time warp with prediction (clients draw opponents extrapolated to the " +
		"received server time instead of interpolating 100 ms behind it), and traditional lag " +
		"compensation (tlc, the reference, rifle matches only: it does not rewind projectiles, so with the pistol it " +
		"plays none's matches). Half the players " +
		"stay on a LAN because with everyone at one latency time warp changes nothing: a " +
		"victim's state on the server lags its own commands by its upstream latency just as a " +
		"late shot does, so judging the shot at its issue tick meets the victim where judging it " +
		"on arrival did. With mixed latencies it moves the high-ping players' shots to the world " +
		"they acted in, and the LAN players' shots at high-ping victims to where those victims' " +
		"late commands put them. hit_accuracy is per player, reported for the high-ping and the " +
		"LAN group; conditions are paired by seed and slot (each seed plays every condition with " +
		"the same players at the same latencies).",
	Cells: func(quick bool) []Cell {
		reps, seconds, repeats, timings := 4, 180, 51, warpTimingRepeats
		if quick {
			reps, seconds, repeats, timings = 2, 60, 21, 3
		}
		var cells []Cell
		// Every timing is measured timings times, each an independent
		// crowd and measurement (a replicate), so that what the run
		// reports is a median over repeats with its spread, not one
		// measurement of a shared machine.
		for t := range timings {
			for _, n := range warpEntities {
				cells = append(cells, Cell{Index: len(cells), Condition: fmt.Sprintf("cost_entities%d", n), Replicate: t,
					Params: map[string]any{"part": "cost", "entities": n, "repeats": repeats, "map": "courtyard"}})
			}
			for _, n := range warpLoadPlayers {
				cells = append(cells, Cell{Index: len(cells), Condition: fmt.Sprintf("load_players%d", n), Replicate: t,
					Params: map[string]any{"part": "load", "players": n, "ticks": warpLoadTicks, "map": "courtyard",
						"warps_per_player_s": 1, "rewind_ms": warpLoadRewind.Milliseconds()}})
			}
		}
		for rep := range reps {
			for _, wp := range warpWeapons {
				for _, rtt := range warpRTTs {
					for _, cond := range warpConds(wp) {
						cells = append(cells, Cell{Index: len(cells), Replicate: rep,
							Condition: warpCondition(wp, rtt, cond),
							Params: map[string]any{"part": "accuracy", "weapon": wp, "rtt_ms": rtt, "compensation": cond,
								"high_ping_fraction": 0.5, "map": "courtyard", "mode": "ffa", "bots": 8, "seconds": seconds}})
					}
				}
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		switch c.Params["part"] {
		case "cost":
			return warpCost(int(param(c, "entities")), int(param(c, "repeats")))
		case "load":
			return warpLoad(int(param(c, "players")), int(param(c, "ticks")))
		}
		warpTiming.RLock()
		defer warpTiming.RUnlock()
		cfg := match.Config{
			Map: "courtyard", Mode: mode.FFA, Bots: 8, Seed: c.Seed, BotPolicy: c.Bots,
			Duration:         time.Duration(param(c, "seconds") * float64(time.Second)),
			HighPingFraction: 0.5, HighPingMS: param(c, "rtt_ms"),
			Loadout: []string{fmt.Sprint(c.Params["weapon"])}, Policy: lagcomp.Config{Name: "none"},
		}
		switch c.Params["compensation"] {
		case "predict":
			cfg.Display = client.Extrapolate
		case "timewarp":
			cfg.TimeWarp = warpWindow
		case "timewarp-predict":
			cfg.TimeWarp, cfg.Display = warpWindow, client.Extrapolate
		case "timewarp-hitscan":
			cfg.TimeWarp, cfg.TimeWarpHitscanOnly = warpWindow, true
		case "timewarp-hitscan-predict":
			cfg.TimeWarp, cfg.TimeWarpHitscanOnly, cfg.Display = warpWindow, true, client.Extrapolate
		case "tlc":
			cfg.Policy.Name = "tlc"
		}
		res, err := match.Run(cfg, nil)
		if err != nil {
			return CellResult{}, err
		}
		return warpAccuracy(res), nil
	},
	Summarise:  summariseTimeWarp,
	Equivalent: warpEquivalent(),
	Published: []Reference{
		{Metric: "cost_exponent_entities", Condition: "cost_fit", Value: 2, Source: "timewarp",
			Location: "section 4.2.2, Figure 4.11", Printed: "proportional to n * m^2 (n time rolled back, m entities; correlation 0.995)",
			Unit: "exponent of entities", Check: Verified,
			Detail: "the duration of one warp in the study's JavaScript server, over 10 to 50 AI and warps of 0 to 300 ms " +
				"(section 3.5.1, Figure 3.5); its CPU load with a warp per AI per second stopped at 45 AI, the most the " +
				"server could handle (section 4.2.1, Figure 4.10)",
			Why: "lagkit's time warp re-simulates only what a late command can affect (its player, and the players whose damage changes), " +
				"so its cost is meant to grow linearly with entities: an exponent near 1 is the design's aim, not a failure to reproduce."},
		{Metric: "saturation_players_warp", Condition: "load_fit", Value: 45, Source: "timewarp",
			Location: "section 4.2.1, Figure 4.10", Printed: "stops at 45 AI", Unit: "players at which a tick takes its whole duration",
			Check: Verified,
			Detail: "the study's JavaScript server, with a 50 ms warp per AI per second, could take no more than 45 AI (its CPU " +
				"load against AI, section 3.5.1); lagkit's figure is extrapolated from a power law fitted to its time per " +
				"tick with a 50 ms warp per player a second, on this machine",
			Why: "a Go server that re-simulates only the players a late command affects, on another machine, against a " +
				"JavaScript server that re-ran every entity's events: the figures measure two implementations, not time warp " +
				"itself."},
	},
})

// warpAccuracy measures an accuracy cell: shots, hits and per-player
// accuracy of everyone, of the high-ping players (round trip above 0)
// and of the LAN players, each series in slot order.
func warpAccuracy(res *match.Result) CellResult {
	m := map[string]float64{}
	series := map[string][]float64{}
	for _, p := range res.Players {
		group := "low"
		if p.RTTms > 0 {
			group = "high"
		}
		for _, g := range []string{"", "_" + group} {
			m["shots"+g] += float64(p.Shots)
			m["hits"+g] += float64(p.Hits)
			series["hit_accuracy"+g] = append(series["hit_accuracy"+g], p.HitAccuracy)
		}
	}
	for _, g := range []string{"", "_high", "_low"} {
		m["hit_accuracy"+g] = safeDiv(m["hits"+g], m["shots"+g])
	}
	return CellResult{Metrics: m, Series: series}
}

// warpEquivalent lists the accuracy arms that play alike by the design's
// own argument: with every player at 0 ms no command arrives late, so
// time warp (of whole commands or of hitscan shots) inserts nothing and
// is no compensation, with or without prediction. CheckArms holds the
// cells to it; the full run's cells at 0 ms match it bit for bit.
func warpEquivalent() [][2]string {
	var out [][2]string
	for _, wp := range warpWeapons {
		conds := warpConds(wp)
		for _, pair := range [][2]string{{"none", "timewarp"}, {"none", "timewarp-hitscan"},
			{"predict", "timewarp-predict"}, {"predict", "timewarp-hitscan-predict"}} {
			if slices.Contains(conds, pair[1]) {
				out = append(out, [2]string{warpCondition(wp, 0, pair[0]), warpCondition(wp, 0, pair[1])})
			}
		}
	}
	return out
}

// warpConds returns the accuracy part's conditions for a loadout of
// weapon name: the hitscan-only time warp ones too for a hitscan weapon; and
// without tlc for a projectile weapon, whose shots tlc does not rewind
// (a projectile flies in the server's present), so that its tlc matches
// were none's, cell for cell.
func warpConds(name string) []string {
	for _, w := range weapon.Defaults() {
		if w.Name == name && w.Kind == weapon.Hitscan {
			return append(slices.Clone(warpConditions), warpHitscanConditions...)
		}
	}
	return slices.DeleteFunc(slices.Clone(warpConditions), func(c string) bool { return c == "tlc" })
}

func warpCondition(weapon string, rtt int, cond string) string {
	return fmt.Sprintf("%s_rtt%d_%s", weapon, rtt, cond)
}

// warpCost builds a crowd of n scripted players and measures warps of
// every depth. A sample is the mean time of one warp for each player in
// turn, so that every depth is measured on the same warps; each repeat
// samples every depth in turn, so that whatever else the machine does
// falls on all depths alike; a depth's cost is its median sample.
func warpCost(n, repeats int) (CellResult, error) {
	warpTiming.Lock()
	defer warpTiming.Unlock()
	s, err := warpCrowd(n)
	if err != nil {
		return CellResult{}, err
	}
	ticks := make([]int, len(warpRewindsMS))
	samples := make([][]float64, len(warpRewindsMS))
	for i, ms := range warpRewindsMS {
		ticks[i] = int(math.Round(float64(time.Duration(ms)*time.Millisecond) / float64(s.TickDuration())))
	}
	runtime.GC() // the crowd's garbage, not collected while measuring
	for range repeats {
		for i := range warpRewindsMS {
			start := time.Now()
			for id := range n {
				if _, err := s.Resimulate(id, ticks[i]); err != nil {
					return CellResult{}, err
				}
			}
			samples[i] = append(samples[i], float64(time.Since(start).Nanoseconds())/1e3/float64(n))
		}
	}
	m := map[string]float64{"entities": float64(n)}
	for i, ms := range warpRewindsMS {
		slices.Sort(samples[i])
		m[fmt.Sprintf("warp_us_rewind%d", ms)] = samples[i][len(samples[i])/2]
		m[fmt.Sprintf("ticks_rewind%d", ms)] = float64(ticks[i])
	}
	return CellResult{Metrics: m}, nil
}

// warpCrowd returns a time warp server on courtyard with n scripted
// players on the open spots of a 3 m grid, after 160 ticks of walking in
// circles, turning their aim and firing in bursts, half with the rifle
// and half with the pistol (fixture.WarpCrowdAt).
func warpCrowd(n int) (*server.Server, error) {
	m, err := world.Load("courtyard")
	if err != nil {
		return nil, err
	}
	params := game.DefaultParams()
	var spots []geom.Vec3
	var query []int
	for y := m.Bounds.Min.Y + 2; y <= m.Bounds.Max.Y-2 && len(spots) < n; y += 3 {
		for x := m.Bounds.Min.X + 2; x <= m.Bounds.Max.X-2 && len(spots) < n; x += 3 {
			r := params.Radius + 0.5
			region := geom.AABB{Min: geom.V(x-r, y-r, 0), Max: geom.V(x+r, y+r, params.Height)}
			if query = m.Grid.Query(region, query[:0]); len(query) == 0 {
				spots = append(spots, geom.V(x, y, 0))
			}
		}
	}
	if len(spots) < n {
		return nil, fmt.Errorf("experiment: timewarp: courtyard has %d open spots for %d players", len(spots), n)
	}
	return fixture.WarpCrowdAt(m, spots)
}

// fit returns the least-squares slope and intercept of y on x.
func fit(xs, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0
	}
	slope = (n*sxy - sx*sy) / d
	return slope, (sy - slope*sx) / n
}

// Exponent returns the least-squares slope of log y on log x over the
// points with both positive: the power of a power law (NaN with fewer
// than two such points).
func Exponent(xs, ys []float64) float64 {
	var lx, ly []float64
	for i := range xs {
		if xs[i] > 0 && ys[i] > 0 {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(ys[i]))
		}
	}
	if len(lx) < 2 {
		return math.NaN()
	}
	s, _ := fit(lx, ly)
	return s
}

func summariseTimeWarp(r *Results, cells []CellResult) {
	g := group(cells)
	summariseWarpCost(r, g)
	summariseWarpLoad(r, g)
	summariseWarpAccuracy(r, g)
}

// summariseWarpCost tabulates warp cost by entities and rewind, the
// median over the timing repeats with their range, and fits its growth
// in both within each repeat, reporting each exponent's median and
// range over the repeats.
func summariseWarpCost(r *Results, g groups) {
	// cost[rep][entities, rewind ms]
	cost := map[int]map[[2]int]float64{}
	ticks := map[int]float64{}
	tbl := Table{Name: "timewarp_cost", Title: "Wall time per warp (µs; median over timing repeats, and their range; this machine)",
		Columns: []string{"entities", "rewind_ms", "ticks", "warp_us", "warp_us_min", "warp_us_max", "repeats"}}
	for _, n := range warpEntities {
		name := fmt.Sprintf("cost_entities%d", n)
		if len(g.cells[name]) == 0 {
			continue
		}
		met := map[string]float64{}
		for _, ms := range warpRewindsMS {
			k := fmt.Sprintf("warp_us_rewind%d", ms)
			var vs []float64
			for _, c := range g.cells[name] {
				if cost[c.Cell.Replicate] == nil {
					cost[c.Cell.Replicate] = map[[2]int]float64{}
				}
				cost[c.Cell.Replicate][[2]int{n, ms}] = c.Metrics[k]
				vs = append(vs, c.Metrics[k])
				ticks[ms] = c.Metrics[fmt.Sprintf("ticks_rewind%d", ms)]
			}
			med, lo, hi := medianRange(vs)
			met[k], met[k+"_min"], met[k+"_max"] = med, lo, hi
			tbl.Rows = append(tbl.Rows, []string{fmt.Sprint(n), fmt.Sprint(ms), fnum(ticks[ms]), fnum(med), fnum(lo), fnum(hi), fmt.Sprint(len(vs))})
		}
		r.Conditions = append(r.Conditions, g.condition(name, "timing repeats", len(g.cells[name]), met))
	}
	if len(cost) == 0 {
		return
	}
	fitTbl := Table{Name: "timewarp_cost_fit", Title: "Growth of warp cost: exponent in entities per rewind, and in rewind per entity count, fitted within each timing repeat (median and range over repeats)",
		Columns: []string{"sweep", "at", "exponent", "exponent_min", "exponent_max", "slope", "slope_unit", "repeats"}}
	fitMet := map[string]float64{}
	reps := slices.Sorted(maps.Keys(cost))
	worstN := math.Inf(-1)
	for _, ms := range warpRewindsMS {
		if ms == 0 {
			continue // no warp: the cost is a call
		}
		var es, slopes []float64
		for _, rep := range reps {
			var xs, ys []float64
			for _, n := range warpEntities {
				if v, ok := cost[rep][[2]int{n, ms}]; ok {
					xs, ys = append(xs, float64(n)), append(ys, v)
				}
			}
			if e := Exponent(xs, ys); !math.IsNaN(e) {
				slope, _ := fit(xs, ys)
				es, slopes = append(es, e), append(slopes, slope)
			}
		}
		if len(es) == 0 {
			continue // fewer than two entity counts (a shard)
		}
		e, lo, hi := medianRange(es)
		slope, _, _ := medianRange(slopes)
		fitTbl.Rows = append(fitTbl.Rows, []string{"entities", fmt.Sprintf("rewind %d ms", ms), fnum(e), fnum(lo), fnum(hi), fnum(slope), "µs per entity", fmt.Sprint(len(es))})
		key := fmt.Sprintf("cost_exponent_entities_rewind%d", ms)
		fitMet[key], fitMet[key+"_min"], fitMet[key+"_max"] = e, lo, hi
		worstN = math.Max(worstN, e)
	}
	last := fmt.Sprintf("cost_exponent_entities_rewind%d", warpRewindsMS[len(warpRewindsMS)-1])
	if e, ok := fitMet[last]; ok {
		fitMet["cost_exponent_entities"] = e
		fitMet["cost_exponent_entities_min"], fitMet["cost_exponent_entities_max"] = fitMet[last+"_min"], fitMet[last+"_max"]
		fitMet["cost_exponent_entities_max_over_rewinds"] = worstN
	}
	worstR := math.Inf(-1)
	for _, n := range warpEntities {
		var es, slopes []float64
		for _, rep := range reps {
			var ms, ts, ys []float64
			for _, d := range warpRewindsMS {
				if v, ok := cost[rep][[2]int{n, d}]; ok {
					ms, ts, ys = append(ms, float64(d)), append(ts, ticks[d]), append(ys, v)
				}
			}
			if e := Exponent(ts, ys); !math.IsNaN(e) {
				slope, _ := fit(ms, ys)
				es, slopes = append(es, e), append(slopes, slope)
			}
		}
		if len(es) == 0 {
			continue
		}
		e, lo, hi := medianRange(es)
		slope, _, _ := medianRange(slopes)
		fitTbl.Rows = append(fitTbl.Rows, []string{"rewind", fmt.Sprintf("%d entities", n), fnum(e), fnum(lo), fnum(hi), fnum(slope), "µs per ms rewound", fmt.Sprint(len(es))})
		fitMet[fmt.Sprintf("cost_exponent_rewind_entities%d", n)] = e
		fitMet[fmt.Sprintf("cost_slope_us_per_ms_entities%d", n)] = slope
		worstR = math.Max(worstR, e)
	}
	if !math.IsInf(worstR, -1) {
		fitMet["cost_exponent_rewind_max"] = worstR
	}
	r.Conditions = append(r.Conditions, Condition{Name: "cost_fit", Metrics: fitMet, N: len(reps), NUnit: "timing repeats",
		Params: map[string]any{"fit": "least squares of log cost on log entities (per rewind) and on log rewound ticks (per entity count), within each timing repeat; the median over repeats, with _min and _max their range"}})
	r.Tables = append(r.Tables, tbl, fitTbl)
	r.Plots = append(r.Plots,
		Plot{Name: "timewarp_cost_rewind", Title: "Wall time per warp against rewind depth", Kind: "line", Table: "timewarp_cost",
			X: "rewind_ms", Y: "warp_us", Series: "entities", YLo: "warp_us_min", YHi: "warp_us_max", XLabel: "rewind (ms)", YLabel: "µs per warp",
			Caption: "Median over timing repeats; error bars their range."},
		Plot{Name: "timewarp_cost_entities", Title: "Wall time per warp against entities", Kind: "line", Table: "timewarp_cost",
			X: "entities", Y: "warp_us", Series: "rewind_ms", YLo: "warp_us_min", YHi: "warp_us_max", XLabel: "entities", YLabel: "µs per warp",
			Caption: "Median over timing repeats; error bars their range."},
	)
}

// medianRange returns the median of xs and its least and greatest
// values (zeros for none).
func medianRange(xs []float64) (med, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// summariseWarpAccuracy tabulates hit accuracy by weapon, round trip and
// compensation, and pairs the conditions player by player.
func summariseWarpAccuracy(r *Results, g groups) {
	tbl := Table{Name: "timewarp_accuracy", Title: "Hit accuracy by loadout, the high-ping half's round trip and compensation",
		Columns: []string{"weapon", "rtt_ms", "compensation", "shots", "hits", "hit_accuracy", "hit_accuracy_ci95", "hit_accuracy_high", "hit_accuracy_low"}}
	for _, wp := range warpWeapons {
		for _, rtt := range warpRTTs {
			for _, cond := range warpConds(wp) {
				name := warpCondition(wp, rtt, cond)
				if len(g.cells[name]) == 0 {
					continue
				}
				met := map[string]float64{"shots": g.sum(name, "shots"), "hits": g.sum(name, "hits")}
				for _, grp := range []string{"", "_high", "_low"} {
					met["hit_accuracy"+grp] = g.ratio(name, "hits"+grp, "shots"+grp)
				}
				r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), met))
				tbl.Rows = append(tbl.Rows, []string{wp, fmt.Sprint(rtt), cond, fnum(met["shots"]), fnum(met["hits"]),
					fnum(met["hit_accuracy"]), fnum(g.ci(name, "hit_accuracy")), fnum(met["hit_accuracy_high"]), fnum(met["hit_accuracy_low"])})
			}
			groups := []string{"hit_accuracy_high", "hit_accuracy_low"}
			if rtt == 0 {
				groups = []string{"hit_accuracy"}
			}
			for _, pair := range [][2]string{{"none", "predict"}, {"none", "timewarp"}, {"timewarp", "timewarp-predict"}, {"none", "tlc"}, {"timewarp-predict", "tlc"},
				{"none", "timewarp-hitscan"}, {"timewarp", "timewarp-hitscan"}, {"predict", "timewarp-hitscan-predict"}} {
				a, b := warpCondition(wp, rtt, pair[0]), warpCondition(wp, rtt, pair[1])
				if len(g.cells[a]) == 0 || len(g.cells[b]) == 0 {
					continue // the hitscan-only conditions: the rifle only
				}
				for _, metric := range groups {
					xa, xb := pairPlayers(g, a, b, metric)
					AddPaired(r, metric, a, b, xa, xb, "paired by player (seed and slot)")
				}
			}
		}
		r.Plots = append(r.Plots, Plot{Name: "timewarp_accuracy_" + wp, Title: "High-ping players' hit accuracy against their round trip, " + wp,
			Kind: "line", Table: "timewarp_accuracy_" + wp, X: "rtt_ms", Y: "hit_accuracy_high", Series: "compensation",
			XLabel: "round trip of the high-ping half (ms)", YLabel: "hit accuracy"})
	}
	r.Tables = append(r.Tables, tbl)
	for _, wp := range warpWeapons {
		sub := Table{Name: "timewarp_accuracy_" + wp, Title: "Hit accuracy, " + wp, Columns: tbl.Columns}
		for _, row := range tbl.Rows {
			if row[0] == wp {
				sub.Rows = append(sub.Rows, row)
			}
		}
		r.Tables = append(r.Tables, sub)
	}
}

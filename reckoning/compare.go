package reckoning

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// CompareConfig sets up Compare: the map the paths were recorded on, the
// trend maps' grid, which players are replayed, and the thresholds.
type CompareConfig struct {
	MapName string
	Bounds  geom.AABB
	// Grid is the trend maps' cells along each axis; HoldOut replays
	// every HoldOut-th player, the others building the trend maps.
	Grid, HoldOut int
	// EtaMin, Eta and EtaMax are led reckoning's thresholds (Eta also
	// dead reckoning's), K the blend time constant; Frontier further
	// dead reckoning thresholds to replay.
	EtaMin, Eta, EtaMax, K float64
	Frontier               []float64
}

// MethodRow is one method's pooled replay.
type MethodRow struct {
	Method string `json:"method"`
	// EtaM is dead reckoning's threshold; led reckoning's range is
	// EtaMinM to EtaMaxM around it.
	EtaM               float64 `json:"eta_m"`
	EtaMinM            float64 `json:"eta_min_m,omitempty"`
	EtaMaxM            float64 `json:"eta_max_m,omitempty"`
	UpdatesPerS        float64 `json:"updates_per_s"`
	PositionErrorMeanM float64 `json:"position_error_mean_m"`
	// The same per path, the led reckoning study's unit (its Tables II
	// and III give the mean over paths and its standard deviation), over
	// the replayed paths of at least MinPathDuration.
	PathUpdatesPerS        float64 `json:"path_updates_per_s"`
	PathUpdatesPerSSD      float64 `json:"path_updates_per_s_sd"`
	PathPositionErrorMeanM float64 `json:"path_position_error_mean_m"`
	PathPositionErrorSDM   float64 `json:"path_position_error_sd_m"`
}

// MinPathDuration is the shortest path the per-path figures take in: the
// led reckoning study kept paths longer than 5 seconds ([led] section
// VII-A).
const MinPathDuration = 5 * time.Second

// Comparison is dead against led reckoning on recorded paths, as the led
// reckoning study replayed them.
type Comparison struct {
	Players int `json:"players_replayed"`
	// Paths counts the replayed paths of at least MinPathDuration.
	Paths    int         `json:"paths_replayed"`
	Trainers int         `json:"players_training"`
	Seconds  float64     `json:"replayed_s"`
	Methods  []MethodRow `json:"methods"`
	// EqualError sets led reckoning against dead reckoning at led
	// reckoning's error, when that error lies within the frontier.
	EqualError *EqualError `json:"equal_error,omitempty"`
}

// EqualError is led reckoning against dead reckoning at the same error.
type EqualError struct {
	ErrorM           float64 `json:"error_m"`
	DeadEtaM         float64 `json:"dead_eta_m"`
	DeadUpdatesPerS  float64 `json:"dead_updates_per_s"`
	LedUpdatesPerS   float64 `json:"led_updates_per_s"`
	LedVsDeadUpdates float64 `json:"led_vs_dead_updates"`
}

// Compare replays every cfg.HoldOut-th player's paths frame by frame
// through dead reckoning at cfg.Eta and the frontier's thresholds, and
// through led reckoning on trend maps built from the other players, one
// per team, so no replayed path is in its own trend map. Methods lists
// dead reckoning at Eta first (the others' baseline), then led
// reckoning, then the frontier by threshold.
func Compare(samples []Sample, cfg CompareConfig) (Comparison, error) {
	held, train, err := HoldOut(samples, cfg.HoldOut)
	if err != nil {
		return Comparison{}, err
	}
	var teams []int
	for _, s := range samples {
		teams = append(teams, s.Team)
	}
	slices.Sort(teams)
	trends, err := TeamTrends(cfg.MapName, cfg.Bounds, cfg.Grid, train, slices.Compact(teams))
	if err != nil {
		return Comparison{}, err
	}
	rep := Comparison{Players: players(held), Trainers: players(train)}
	if rep.Players == 0 {
		return rep, errors.New("no paths to replay: the input has no players")
	}
	pool := func(method string, policy func(int) Policy) MethodRow {
		tot := Total(Replay(held, policy))
		rep.Seconds = tot.Seconds
		row := MethodRow{Method: method, UpdatesPerS: tot.UpdatesPerS(), PositionErrorMeanM: tot.ErrorMean()}
		paths, _ := ReplayPaths(held, policy, ReplayOptions{Order: First, MinDuration: MinPathDuration})
		rep.Paths = len(paths)
		var upd, errs []float64
		for _, p := range paths {
			upd, errs = append(upd, p.UpdatesPerS()), append(errs, p.ErrorMean())
		}
		row.PathUpdatesPerS, row.PathUpdatesPerSSD = meanSD(upd)
		row.PathPositionErrorMeanM, row.PathPositionErrorSDM = meanSD(errs)
		return row
	}
	dead := func(e float64) MethodRow {
		row := pool("dead", func(int) Policy { return Dead{Threshold: e, Blend: BlendTime(cfg.K, e)} })
		row.EtaM = e
		return row
	}
	led := pool("led", func(team int) Policy {
		return Led{Trend: trends[team], EtaMin: cfg.EtaMin, EtaMid: cfg.Eta, EtaMax: cfg.EtaMax, K: cfg.K}
	})
	led.EtaM, led.EtaMinM, led.EtaMaxM = cfg.Eta, cfg.EtaMin, cfg.EtaMax
	etas := append([]float64{cfg.Eta}, slices.DeleteFunc(slices.Clone(cfg.Frontier), func(x float64) bool { return x == cfg.Eta })...)
	slices.Sort(etas[1:])
	var points []FrontierPoint
	for i, e := range slices.Compact(etas) {
		row := dead(e)
		rep.Methods = append(rep.Methods, row)
		if i == 0 {
			rep.Methods = append(rep.Methods, led)
		}
		points = append(points, FrontierPoint{Eta: e, UpdatesPerS: row.UpdatesPerS, ErrorMean: row.PositionErrorMeanM})
	}
	if upd, e, ok := UpdatesAtError(points, led.PositionErrorMeanM); ok {
		rep.EqualError = &EqualError{ErrorM: led.PositionErrorMeanM, DeadEtaM: e, DeadUpdatesPerS: upd,
			LedUpdatesPerS: led.UpdatesPerS, LedVsDeadUpdates: Ratio(led.UpdatesPerS, upd) - 1}
	}
	return rep, nil
}

// meanSD returns the mean of xs and its sample standard deviation
// (zeros for none; the deviation 0 for one).
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(ss / float64(len(xs)-1))
	}
	return mean, sd
}

// players counts the players in s.
func players(s []Sample) int {
	ids := map[int]bool{}
	for _, x := range s {
		ids[x.Player] = true
	}
	return len(ids)
}

// Ratio returns a/b, or 1 (no change) when b is 0: how one method's
// figure stands to another's.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 1
	}
	return a / b
}

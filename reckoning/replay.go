package reckoning

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Replaying recorded paths, as the led reckoning study did: each path is
// played frame by frame through a Sender and the receiver's Model with
// nothing in between, counting the updates sent and the distance between
// where the receiver has the player and where the player was.

// FrontierEtas are the dead reckoning thresholds, in metres, that trace
// how updates trade against error as the threshold grows, from below
// the middle threshold to ηmax. Led reckoning is worth its trend map
// only if it sends fewer updates than dead reckoning does at the same
// error, which comparing the two at equal middle thresholds alone does
// not tell.
var FrontierEtas = []float64{0.2, 0.3, DefaultEta, 0.5, DefaultEtaMax}

// ReplayResult sums one player's replayed paths.
type ReplayResult struct {
	Player, Team int
	Updates      int     // updates sent
	Frames       int     // samples replayed
	ErrorSum     float64 // metres, summed over the frames
	Seconds      float64 // time replayed
}

// UpdatesPerS returns the updates sent per second replayed.
func (r ReplayResult) UpdatesPerS() float64 { return div(float64(r.Updates), r.Seconds) }

// ErrorMean returns the mean distance in metres between the receiver's
// position and the recorded one.
func (r ReplayResult) ErrorMean() float64 { return div(r.ErrorSum, float64(r.Frames)) }

func (r *ReplayResult) add(o ReplayResult) {
	r.Updates += o.Updates
	r.Frames += o.Frames
	r.ErrorSum += o.ErrorSum
	r.Seconds += o.Seconds
}

// Total pools results: their sums, with no player or team.
func Total(rs []ReplayResult) ReplayResult {
	var t ReplayResult
	for _, r := range rs {
		t.add(r)
	}
	return t
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Replay replays every continuous stretch of samples (Tracks) under the
// policy of its team, first order, and sums the results per player,
// ordered by player number.
func Replay(samples []Sample, policy func(team int) Policy) []ReplayResult {
	return ReplayOrder(samples, policy, First)
}

// ReplayOrder is Replay with reckoning of order o on both sides.
func ReplayOrder(samples []Sample, policy func(team int) Policy, o Order) []ReplayResult {
	var out []ReplayResult
	for _, tr := range Tracks(samples) {
		if len(tr.Samples) < 2 {
			continue
		}
		r := ReplayTrackOrder(tr.Samples, policy(tr.Team), o)
		r.Player, r.Team = tr.Player, tr.Team
		if n := len(out); n > 0 && out[n-1].Player == tr.Player {
			out[n-1].add(r)
			continue
		}
		out = append(out, r)
	}
	return out
}

// ReplayTrack replays one continuous path. The sender knows each
// recorded position and the velocity from the last two positions
// (lagkit's choice: the led reckoning study does not say how its replay
// took velocity, and its paths recorded one; ReplayPaths can use a
// recorded velocity instead); the receiver's position is measured at
// every frame, after any update of that frame.
func ReplayTrack(path []Sample, policy Policy) ReplayResult {
	return ReplayTrackOrder(path, policy, First)
}

// ReplayTrackOrder is ReplayTrack with reckoning of order o on both
// sides; second order takes the acceleration, as the led reckoning
// study's projection did ([led], equations 2 to 6), from the last three
// positions: the change between the last two velocities.
func ReplayTrackOrder(path []Sample, policy Policy, o Order) ReplayResult {
	return replayTrack(path, policy, o, FromPositions)
}

func replayTrack(path []Sample, policy Policy, o Order, v Velocity) ReplayResult {
	snd := Sender{Policy: policy, Order: o}
	rcv := Model{Order: o}
	var r ReplayResult
	for i, s := range path {
		st := PathStateFrom(path, i, v)
		if blend, due := snd.Step(st, i == 0); due {
			rcv.Update(st, blend)
			r.Updates++
		}
		r.ErrorSum += rcv.At(s.T).Dist(s.Pos)
	}
	r.Frames = len(path)
	if len(path) > 0 {
		r.Seconds = (path[len(path)-1].T - path[0].T).Seconds()
	}
	return r
}

// PathState returns the kinematic state at path[i]: its position, the
// velocity from the last two positions and the acceleration from the
// last three (zero where the path has too few).
func PathState(path []Sample, i int) State {
	st := State{T: path[i].T, Pos: path[i].Pos}
	vel := func(j int) geom.Vec3 {
		return path[j].Pos.Sub(path[j-1].Pos).Scale(1 / (path[j].T - path[j-1].T).Seconds())
	}
	if i > 0 {
		st.Vel = vel(i)
	}
	if i > 1 {
		st.Acc = st.Vel.Sub(vel(i - 1)).Scale(1 / (path[i].T - path[i-1].T).Seconds())
	}
	return st
}

// Velocity says where a replay takes a sample's velocity from.
type Velocity int

const (
	// FromPositions takes it from the last two positions, and the
	// acceleration from the last three (PathState).
	FromPositions Velocity = iota
	// Recorded takes the velocity the path file records (Sample.Vel), as
	// the led reckoning study's paths held one ([led], section VII-A), and
	// the acceleration from the change between the last two recorded
	// velocities.
	Recorded
)

func (v Velocity) String() string {
	if v == Recorded {
		return "recorded"
	}
	return "from positions"
}

// PathStateFrom is PathState with the velocity taken as v says; with
// Recorded, every sample must have one (Sample.HasVel).
func PathStateFrom(path []Sample, i int, v Velocity) State {
	if v != Recorded {
		return PathState(path, i)
	}
	st := State{T: path[i].T, Pos: path[i].Pos, Vel: path[i].Vel}
	if i > 0 {
		st.Acc = path[i].Vel.Sub(path[i-1].Vel).Scale(1 / (path[i].T - path[i-1].T).Seconds())
	}
	return st
}

// ReplayOptions set how ReplayPaths replays.
type ReplayOptions struct {
	Order    Order    // default First
	Velocity Velocity // default FromPositions
	// MinDuration leaves out paths shorter than it; the led reckoning
	// study kept paths longer than 5 seconds ([led], section VII-A).
	MinDuration time.Duration
}

// PathResult is one replayed path's result: the unit the led reckoning
// study reported over (a mean over its 500 paths, with its standard
// deviation; [led] Tables II and III).
type PathResult struct {
	ReplayResult
	Start time.Duration // the path's first sample
}

// ReplayPaths replays every continuous stretch of samples (Tracks) at
// least opt.MinDuration long under the policy of its team and returns
// one result per path, ordered by player and time. With opt.Velocity
// Recorded, a sample without a recorded velocity is an error.
func ReplayPaths(samples []Sample, policy func(team int) Policy, opt ReplayOptions) ([]PathResult, error) {
	var out []PathResult
	for _, tr := range Tracks(samples) {
		n := len(tr.Samples)
		if n < 2 || tr.Samples[n-1].T-tr.Samples[0].T < opt.MinDuration {
			continue
		}
		if opt.Velocity == Recorded {
			for _, s := range tr.Samples {
				if !s.HasVel {
					return nil, fmt.Errorf("reckoning: player %d at %v s: no recorded velocity (a path file with the header %q has one)",
						s.Player, s.T.Seconds(), PathVelHeader)
				}
			}
		}
		r := replayTrack(tr.Samples, policy(tr.Team), opt.Order, opt.Velocity)
		r.Player, r.Team = tr.Player, tr.Team
		out = append(out, PathResult{ReplayResult: r, Start: tr.Samples[0].T})
	}
	return out, nil
}

// HoldOut splits samples into the players to replay and the players to
// build trend maps from: every n-th player in order of player number,
// starting with the first, is held out. n must be at least 2.
func HoldOut(samples []Sample, n int) (held, train []Sample, err error) {
	if n < 2 {
		return nil, nil, fmt.Errorf("reckoning: hold out every %d-th player: want 2 or more, so some players train the trend maps", n)
	}
	var ids []int
	for _, s := range samples {
		ids = append(ids, s.Player)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, s := range samples {
		if rank, _ := slices.BinarySearch(ids, s.Player); rank%n == 0 {
			held = append(held, s)
		} else {
			train = append(train, s)
		}
	}
	return held, train, nil
}

// TeamTrends builds, from samples, the trend map of every team in teams
// on a grid x grid grid over bounds. A team with no paths in samples
// gets an empty map, which has no trend anywhere.
func TeamTrends(mapName string, bounds geom.AABB, grid int, samples []Sample, teams []int) (map[int]*TrendMap, error) {
	out := map[int]*TrendMap{}
	for _, team := range teams {
		if out[team] != nil {
			continue
		}
		tm := &TrendMap{Map: mapName, Team: team, Bounds: bounds, NX: grid, NY: grid}
		if err := tm.Build(samples); err != nil {
			return nil, err
		}
		out[team] = tm
	}
	return out, nil
}

// FrontierPoint is dead reckoning's result at one threshold.
type FrontierPoint struct {
	Eta         float64 // metres
	UpdatesPerS float64
	ErrorMean   float64 // metres
}

// UpdatesAtError returns the updates per second dead reckoning would
// send at mean error e, and the threshold that gives it, interpolated
// linearly between the two points of the frontier whose errors straddle
// e; ok is false when e lies outside the frontier's errors.
func UpdatesAtError(frontier []FrontierPoint, e float64) (updates, eta float64, ok bool) {
	pts := slices.Clone(frontier)
	slices.SortFunc(pts, func(a, b FrontierPoint) int { return cmp.Compare(a.ErrorMean, b.ErrorMean) })
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if e < a.ErrorMean || e > b.ErrorMean {
			continue
		}
		f := 0.0
		if b.ErrorMean > a.ErrorMean {
			f = (e - a.ErrorMean) / (b.ErrorMean - a.ErrorMean)
		}
		return a.UpdatesPerS + f*(b.UpdatesPerS-a.UpdatesPerS), a.Eta + f*(b.Eta-a.Eta), true
	}
	return 0, 0, false
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lagkit/lagkit/bot"
)

// Experiment is a study's design: the cells to run, how to run one, and
// how to sum the cells up.
type Experiment struct {
	Name  string
	Title string
	// Design says what the study asked and how the cells mirror it.
	Design string
	// Cells lists the design's cells; quick asks for a smaller, faster
	// version of the same design.
	Cells func(quick bool) []Cell
	// RunCell plays one cell; it must be a function of the cell alone.
	RunCell func(c Cell) (CellResult, error)
	// Summarise fills r's conditions, tests, tables and plots from the
	// cells' results.
	Summarise func(r *Results, cells []CellResult)
	Published []Reference
	// Equivalent lists pairs of conditions the design's own argument
	// says play alike (time warp with no late command is no
	// compensation): CheckArms requires their cells to be identical, and
	// their tests against each other are dropped. Any other pair of
	// identical arms fails the run.
	Equivalent [][2]string
	// Bots reports that every player of its cells is a bot made by the
	// cell's Bots (lagkit's shooter bot when nil), so a game's own bots
	// (Options.BotPolicy) can play its design; its other designs script
	// their players or measure lagkit's bot itself.
	Bots bool
}

// Cell is one unit of work: a condition under one seed.
type Cell struct {
	Index     int            `json:"index"`
	Condition string         `json:"condition"`
	Params    map[string]any `json:"params"`
	// Replicate numbers the seeds; cells of one replicate share a seed,
	// so conditions are compared on the same bots (a paired design).
	Replicate int    `json:"replicate"`
	Seed      uint64 `json:"seed"`
	// Bots makes the cell's bots (Options.BotPolicy; nil: lagkit's).
	Bots bot.Maker `json:"-"`
}

// CellResult is what one cell produced: named values, and per-unit
// series (per player, per shot) that summaries pair up across conditions.
type CellResult struct {
	Cell    Cell                 `json:"cell"`
	Metrics map[string]float64   `json:"metrics"`
	Series  map[string][]float64 `json:"series,omitempty"`
	WallS   float64              `json:"wall_s"`
}

// registry holds the built-in experiments in the order List shows them.
var registry []*Experiment

func register(e *Experiment) *Experiment {
	registry = append(registry, e)
	return e
}

// List returns the built-in experiments.
func List() []*Experiment { return slices.Clone(registry) }

// Get returns the built-in experiment called name.
func Get(name string) (*Experiment, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	names := make([]string, len(registry))
	for i, e := range registry {
		names[i] = e.Name
	}
	return nil, fmt.Errorf("experiment: unknown experiment %q (known: %s)", name, strings.Join(names, ", "))
}

// Shard selects part of a design's cells: cells whose index is k-1
// modulo n. The zero Shard selects every cell.
type Shard struct{ K, N int }

// ParseShard reads "k/n" with 1 <= k <= n.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("experiment: shard %q: want k/n with 1 <= k <= n, such as 2/4", s)
	}
	return Shard{K: k, N: n}, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

func (s Shard) has(i int) bool { return s.N == 0 || i%s.N == s.K-1 }

// Options set how an experiment runs.
type Options struct {
	Seed     uint64
	Quick    bool
	Parallel int // workers; 0: one per CPU
	Shard    Shard
	// Done holds cells already played (read back from an interrupted
	// run's cells.jsonl): Run checks they belong to this design and seed
	// and plays only the others.
	Done []CellResult
	// OnCell, when set, is called with each cell's result as it finishes,
	// one call at a time, so a caller can save it before the run ends.
	// An error stops the run.
	OnCell func(CellResult) error
	// Progress, when set, is called after each cell with the count done.
	Progress func(done, total int, c Cell)
	// Command is the command line recorded in the results' provenance.
	Command []string
	// BotPolicy makes the bots of every cell (Cell.Bots, then
	// match.Config.BotPolicy): a game's own in place of lagkit's
	// shooter bot, for an experiment whose players are all bots
	// (Experiment.Bots); Run refuses it for another.
	BotPolicy bot.Maker
}

// Planned returns the cells Run plays for opt: those of opt.Shard, each
// with its replicate's seed.
func Planned(e *Experiment, opt Options) []Cell {
	var cells []Cell
	for _, c := range e.Cells(opt.Quick) {
		if opt.Shard.has(c.Index) {
			c.Seed = cellSeed(opt.Seed, c.Replicate)
			c.Bots = opt.BotPolicy
			cells = append(cells, c)
		}
	}
	return cells
}

// Run plays the experiment's cells (those of opt.Shard, less opt.Done)
// on parallel workers and sums them up. The results do not depend on the
// number of workers, or on how often the run was interrupted and resumed:
// every cell is a function of its seed. When ctx is cancelled, Run starts
// no more cells, waits for those under way (reporting them to OnCell) and
// returns an error wrapping ctx's.
func Run(ctx context.Context, e *Experiment, opt Options) (*Results, []CellResult, error) {
	start := time.Now()
	if opt.BotPolicy != nil && !e.Bots {
		return nil, nil, fmt.Errorf("experiment: %s: its players are not all bots made through a bot.Maker, so it plays no other game's bots", e.Name)
	}
	planned := Planned(e, opt)
	byIndex := make(map[int]Cell, len(planned))
	for _, c := range planned {
		byIndex[c.Index] = c
	}
	done := make(map[int]bool, len(opt.Done))
	results := make([]CellResult, 0, len(planned))
	for _, r := range opt.Done {
		want, ok := byIndex[r.Cell.Index]
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("experiment: %s: finished cell %d is not in this run's design (shard %q)", e.Name, r.Cell.Index, opt.Shard.String())
		case done[r.Cell.Index]:
			return nil, nil, fmt.Errorf("experiment: %s: cell %d finished twice", e.Name, r.Cell.Index)
		case r.Cell.Condition != want.Condition || r.Cell.Replicate != want.Replicate || r.Cell.Seed != want.Seed:
			return nil, nil, fmt.Errorf("experiment: %s: finished cell %d is %s, replicate %d, seed %d; this run's is %s, replicate %d, seed %d",
				e.Name, r.Cell.Index, r.Cell.Condition, r.Cell.Replicate, r.Cell.Seed, want.Condition, want.Replicate, want.Seed)
		}
		done[r.Cell.Index] = true
		results = append(results, r)
	}
	var remaining []Cell
	for _, c := range planned {
		if !done[c.Index] {
			remaining = append(remaining, c)
		}
	}
	workers := opt.Parallel
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var (
		mu    sync.Mutex
		errs  []error
		count = len(results)
		wg    sync.WaitGroup
		next  = make(chan Cell)
	)
	for range min(workers, max(len(remaining), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if ctx.Err() != nil {
					continue // interrupted: start no more cells
				}
				t := time.Now()
				r, err := e.RunCell(c)
				r.Cell, r.WallS = c, time.Since(t).Seconds()
				mu.Lock()
				if err == nil && opt.OnCell != nil {
					err = opt.OnCell(r)
				}
				if err != nil {
					errs = append(errs, fmt.Errorf("cell %d (%s, replicate %d): %w", c.Index, c.Condition, c.Replicate, err))
				} else {
					results = append(results, r)
					count++
					if opt.Progress != nil {
						opt.Progress(count, len(planned), c)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, c := range remaining {
		mu.Lock()
		failed := len(errs) > 0
		mu.Unlock()
		if failed {
			break
		}
		select {
		case next <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, results, err
	}
	if len(results) < len(planned) {
		return nil, results, fmt.Errorf("experiment: %s: stopped after %d of %d cells: %w", e.Name, len(results), len(planned), context.Cause(ctx))
	}
	if err := CheckArms(e, results); err != nil {
		return nil, results, err
	}
	opt.Done = nil
	r := Summarise(e, results, opt)
	r.WallS = time.Since(start).Seconds()
	return r, results, nil
}

// Summarise builds an experiment's results from cell results, whether
// from one run or merged from shards.
func Summarise(e *Experiment, cells []CellResult, opt Options) *Results {
	slices.SortFunc(cells, func(a, b CellResult) int { return a.Cell.Index - b.Cell.Index })
	r := &Results{
		Experiment: e.Name, Seed: opt.Seed, Quick: opt.Quick, Title: e.Title, Design: e.Design,
		Shard: opt.Shard.String(), Published: slices.Clone(e.Published), Provenance: Build(),
		Conditions: []Condition{}, Tests: []Test{}, Tables: []Table{}, Plots: []Plot{},
	}
	r.Provenance.Command = opt.Command
	e.Summarise(r, cells)
	dropEquivalentTests(e, r)
	AdjustHolm(r)
	for i := range r.Published {
		r.Published[i].Citation = Cite(r.Published[i].Source)
	}
	return r
}

// cellSeed derives a replicate's seed from the run's (SplitMix64).
func cellSeed(seed uint64, replicate int) uint64 {
	z := seed + uint64(replicate+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

package experiment

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
	// Progress, when set, is called after each cell with the count done.
	Progress func(done, total int, c Cell)
}

// Run plays the experiment's cells (those of opt.Shard) on parallel
// workers and sums them up. The results do not depend on the number of
// workers: every cell is a function of its seed.
func Run(e *Experiment, opt Options) (*Results, []CellResult, error) {
	start := time.Now()
	var cells []Cell
	for _, c := range e.Cells(opt.Quick) {
		if opt.Shard.has(c.Index) {
			c.Seed = cellSeed(opt.Seed, c.Replicate)
			cells = append(cells, c)
		}
	}
	workers := opt.Parallel
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	results := make([]CellResult, len(cells))
	errs := make([]error, len(cells))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range min(workers, max(len(cells), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				r, err := e.RunCell(cells[i])
				r.Cell, r.WallS = cells[i], time.Since(t).Seconds()
				results[i], errs[i] = r, err
				mu.Lock()
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(cells), cells[i])
				}
				mu.Unlock()
			}
		}()
	}
	for i := range cells {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
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
		Shard: opt.Shard.String(), Published: e.Published,
		Conditions: []Condition{}, Tests: []Test{}, Tables: []Table{}, Plots: []Plot{},
	}
	e.Summarise(r, cells)
	return r
}

// cellSeed derives a replicate's seed from the run's (SplitMix64).
func cellSeed(seed uint64, replicate int) uint64 {
	z := seed + uint64(replicate+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

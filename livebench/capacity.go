package livebench

import (
	"context"
	"fmt"
	"time"
)

// Capacity is what a capacity search found.
type Capacity struct {
	// Held is the most matches the server held within the bounds
	// (lateness p99 at most MaxLatenessUS, no overrun), and Best the
	// run at that size (nil when not even the smallest held).
	Held int     `json:"held"`
	Best *Result `json:"best,omitempty"`
	// Tried are every run, in the order made.
	Tried []*Result `json:"tried"`
	// MaxLatenessUS is the bound on every match's tick-start lateness
	// p99.
	MaxLatenessUS float64 `json:"max_lateness_us"`
}

// held reports whether a run stayed within the bounds.
func (c *Capacity) held(r *Result) bool {
	return r.LatenessP99US <= c.MaxLatenessUS && r.Overruns == 0
}

// MeasureCapacity finds the largest number of cfg's matches (Players
// bots each, at TickRate) one server holds with every match's tick-start
// lateness p99 at most maxLateness and no overrun: it doubles the
// matches from cfg.Matches (at least 1) until a run misses a bound or
// reaches limit, then bisects between the last that held and the first
// that did not. Each size is one Run of cfg's Duration; the core's run
// is skipped.
func MeasureCapacity(ctx context.Context, cfg Config, maxLateness time.Duration, limit int) (*Capacity, error) {
	c := &Capacity{MaxLatenessUS: float64(maxLateness) / float64(time.Microsecond)}
	if limit < 1 {
		return nil, fmt.Errorf("livebench: capacity limit %d: want at least 1", limit)
	}
	cfg.CoreDuration = -1
	try := func(k int) (bool, error) {
		cfg.Matches = k
		r, err := Run(ctx, cfg)
		if err != nil {
			return false, fmt.Errorf("livebench: %d matches: %w", k, err)
		}
		c.Tried = append(c.Tried, r)
		ok := c.held(r)
		if ok && k > c.Held {
			c.Held, c.Best = k, r
		}
		return ok, nil
	}
	if err := search(max(cfg.Matches, 1), limit, try); err != nil {
		return nil, err
	}
	return c, nil
}

// search finds the largest size at most limit for which held says true,
// sizes holding below a size that does not: it doubles from start until
// a size does not hold or limit is reached, then bisects between the
// last that held and the first that did not.
func search(start, limit int, held func(int) (bool, error)) error {
	lo, hi := 0, 0 // lo held (0: none yet); hi did not
	for k := min(start, limit); ; k = min(2*k, limit) {
		ok, err := held(k)
		if err != nil {
			return err
		}
		if !ok {
			hi = k
			break
		}
		lo = k
		if k == limit {
			return nil
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := held(mid)
		if err != nil {
			return err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return nil
}

package report

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/lagkit/lagkit/experiment"
)

// WriteRun writes the report of res into dir, and the raw cells in
// design order.
func WriteRun(dir string, res *experiment.Results, cells []experiment.CellResult) error {
	if err := Write(dir, res); err != nil {
		return err
	}
	return experiment.WriteCells(dir, cells)
}

// Merge reads the folders of the shards of one experiment run and sums
// their cells up anew, refusing folders of other runs, a cell found
// twice and a missing shard.
func Merge(dirs []string) (*experiment.Results, []experiment.CellResult, error) {
	var (
		first *experiment.Results
		cells []experiment.CellResult
		seen  = map[int]string{}
	)
	for _, dir := range dirs {
		r, err := Read(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s holds no results.json: give the --out folders of 'experiment run --shard k/n'", dir)
		}
		if err != nil {
			return nil, nil, err
		}
		if first == nil {
			first = r
		} else if r.Experiment != first.Experiment || r.Seed != first.Seed || r.Quick != first.Quick {
			return nil, nil, fmt.Errorf("%s holds %s (seed %d, quick %v), not %s (seed %d, quick %v)",
				dir, r.Experiment, r.Seed, r.Quick, first.Experiment, first.Seed, first.Quick)
		}
		shardCells, err := experiment.ReadCells(dir)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range shardCells {
			if prev, dup := seen[c.Cell.Index]; dup {
				return nil, nil, fmt.Errorf("cell %d is in both %s and %s", c.Cell.Index, prev, dir)
			}
			seen[c.Cell.Index] = dir
			cells = append(cells, c)
		}
	}
	e, err := experiment.Get(first.Experiment)
	if err != nil {
		return nil, nil, err
	}
	if want := len(e.Cells(first.Quick)); len(cells) != want {
		return nil, nil, fmt.Errorf("%d of the design's %d cells found; a shard is missing", len(cells), want)
	}
	if err := experiment.CheckArms(e, cells); err != nil {
		return nil, nil, err
	}
	res := experiment.Summarise(e, cells, experiment.Options{Seed: first.Seed, Quick: first.Quick})
	return res, cells, nil
}

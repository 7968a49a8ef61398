package match

import (
	"bytes"
	"fmt"

	"github.com/lagkit/lagkit/reckoning"
)

// RecordPaths plays n matches of cfg, under seeds cfg.Seed, cfg.Seed+1,
// ..., and returns the paths they record (cfg.Paths is ignored), each
// match's players numbered after the ones before.
func RecordPaths(cfg Config, n int) ([]reckoning.Sample, error) {
	var samples []reckoning.Sample
	seed := cfg.Seed
	for i := range n {
		var buf bytes.Buffer
		cfg.Seed, cfg.Paths = seed+uint64(i), &buf
		if _, err := Run(cfg, nil); err != nil {
			return nil, err
		}
		s, err := reckoning.ReadPaths(fmt.Sprintf("match %d", cfg.Seed), &buf)
		if err != nil {
			return nil, err
		}
		samples = reckoning.AppendPaths(samples, s)
	}
	return samples, nil
}

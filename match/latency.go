package match

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseLatency reads PLAYER:MS pairs separated by commas, each player
// (0 to players-1) at most once, each round trip 0 to 5000 ms, as --latency
// gives them: a table for Config.Latency.
func ParseLatency(s string, players int) (map[int]float64, error) {
	out := map[int]float64{}
	if s == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		p, v, ok := strings.Cut(strings.TrimSpace(pair), ":")
		id, err1 := strconv.Atoi(p)
		ms, err2 := strconv.ParseFloat(v, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q is not PLAYER:MS (e.g. 2:250)", pair)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("player %d given twice", id)
		}
		if id < 0 || id >= players {
			return nil, fmt.Errorf("player %d: want 0 to %d (--bots %d)", id, players-1, players)
		}
		if !(ms >= 0 && ms <= 5000) {
			return nil, fmt.Errorf("player %d: %v ms, want 0 to 5000", id, ms)
		}
		out[id] = ms
	}
	return out, nil
}

package lagcomp

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/internal/msec"
)

// clc is conditional lag compensation: like tlc, but only within limits.
// A shooter whose round trip exceeds MaxRTT is not compensated at all (as
// Battlefield 4 and Overwatch cap it at 250 ms); a hit whose victim would
// be moved back further than the rollback cap is tested again against the
// present (as Battlefield's FrameHistoryTime bounds it), with a larger
// cap for victims of the fast class ([taxonomy], conditional lag compensation).
type clc struct {
	maxRTT               time.Duration // 0: no cap
	maxRollback, maxFast float64       // 0: no cap
	fastSpeed            float64
}

func newCLC(cfg Config) (Policy, error) {
	p := clc{maxRTT: 250 * time.Millisecond, maxRollback: cfg.MaxRollbackM, maxFast: cfg.MaxRollbackFastM, fastSpeed: cfg.FastSpeed}
	switch {
	case cfg.MaxRTTms < 0:
		p.maxRTT = 0
	case cfg.MaxRTTms > 0:
		p.maxRTT = msec.Duration(cfg.MaxRTTms)
	}
	if cfg.MaxRollbackM < 0 || cfg.MaxRollbackFastM < 0 || cfg.FastSpeed < 0 {
		return nil, fmt.Errorf("lagcomp: policy clc: rollback caps and fast speed must not be negative")
	}
	if p.maxFast == 0 {
		p.maxFast = 1.5 * p.maxRollback
	}
	if p.maxRollback > 0 && p.maxFast < p.maxRollback {
		return nil, fmt.Errorf("lagcomp: policy clc: max_rollback_fast_m %v is below max_rollback_m %v", p.maxFast, p.maxRollback)
	}
	if p.fastSpeed == 0 {
		p.fastSpeed = 5
	}
	return p, nil
}

func (clc) Name() string   { return "clc" }
func (clc) Traits() Traits { return Traits{Rewinds: true} }

func (p clc) Rewind(s *Shot) bool { return p.maxRTT == 0 || s.ShooterRTT <= p.maxRTT }

func (p clc) Judge(_ *Shot, h *Found) Verdict {
	if !h.Rewound || p.maxRollback == 0 {
		return Register
	}
	limit := p.maxRollback
	if v := h.VictimNow.Vel; math.Hypot(v.X, v.Y) > p.fastSpeed {
		limit = p.maxFast
	}
	if h.RollbackM > limit {
		return Unrewind
	}
	return Register
}

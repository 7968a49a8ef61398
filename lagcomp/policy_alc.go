package lagcomp

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/internal/msec"
)

// alc is advanced lag compensation: tlc decides a provisional hit, and a
// victim whose round trip is within the low-ping threshold may appeal it:
// its client checks the hit against its current pose and confirms or
// denies ([alc], advanced lag compensation). Victims above the threshold cannot
// appeal; their shots behind cover are mostly due to their own lag.
type alc struct{ lowPing time.Duration }

func newALC(cfg Config) (Policy, error) {
	lp, err := lowPing(cfg)
	return alc{lowPing: lp}, err
}

func lowPing(cfg Config) (time.Duration, error) {
	switch {
	case cfg.LowPingMS < 0:
		return 0, fmt.Errorf("lagcomp: policy %s: low_ping_ms %v is negative", cfg.Name, cfg.LowPingMS)
	case cfg.LowPingMS == 0:
		return 50 * time.Millisecond, nil
	}
	return msec.Duration(cfg.LowPingMS), nil
}

func (alc) Name() string      { return "alc" }
func (alc) Rewind(*Shot) bool { return true }

// Traits: alc waits twice the low-ping threshold for an appeal, the
// round trip of the slowest victim allowed to appeal, twice over.
func (p alc) Traits() Traits {
	return Traits{Rewinds: true, AppealWindow: 2 * p.lowPing, LowPing: p.lowPing}
}

func (p alc) Judge(_ *Shot, h *Found) Verdict {
	if h.VictimRTT <= p.lowPing {
		return Appeal
	}
	return Register
}

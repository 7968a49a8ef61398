package experiment

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/wire"
)

// lowPingMS and highPingMS split players by round trip: at most the
// first are low-ping (alc's appeal threshold), at least the second
// high-ping.
const (
	lowPingMS  = 50
	highPingMS = 100
)

// playMatch runs one match cell and measures it.
func playMatch(cfg match.Config) (CellResult, error) {
	res, err := match.Run(cfg, nil)
	if err != nil {
		return CellResult{}, err
	}
	return CellResult{Metrics: matchMetrics(res), Series: playerSeries(res)}, nil
}

// matchMetrics measures a match the way the studies did: hits on
// low-ping victims and how many were behind cover on their screens,
// high-ping shooters' accuracy, how long shooters waited to hear of a
// hit, what became of appeals, and how far victims were moved back.
func matchMetrics(res *match.Result) map[string]float64 {
	rtt := map[int]float64{}
	m := map[string]float64{}
	for _, p := range res.Players {
		rtt[p.ID] = p.RTTms
		m["shots"] += float64(p.Shots)
		m["hits"] += float64(p.Hits)
		if p.RTTms >= highPingMS {
			m["shots_high"] += float64(p.Shots)
			m["hits_high"] += float64(p.Hits)
		} else {
			m["shots_low"] += float64(p.Shots)
			m["hits_low"] += float64(p.Hits)
		}
	}
	var delaySum, delayN, rollSum, rewindSum float64
	for _, s := range res.Shots {
		if !s.Rewound {
			m["shots_not_compensated"]++
		}
		if s.Victim < 0 {
			continue
		}
		if s.Registered {
			m["hits_received"]++
			if s.SBC {
				m["sbc"]++
			}
			if rtt[s.Victim] <= lowPingMS {
				m["hits_received_low"]++
				if s.SBC {
					m["sbc_low"]++
				}
			}
			if s.ConfirmDelay > 0 {
				delaySum += float64(s.ConfirmDelay) / float64(time.Millisecond)
				delayN++
			}
		}
		if s.Hit && s.Rewound {
			m["rewound_hits"]++
			rollSum += s.RollbackM
			rewindSum += s.RewindMS
			m["rollback_max_m"] = math.Max(m["rollback_max_m"], s.RollbackM)
		}
		if s.Appealed {
			m["appeals"]++
			switch s.Outcome {
			case wire.OutcomeConfirmed:
				m["confirmed"]++
			case wire.OutcomeDeniedUpheld:
				m["denials_upheld"]++
			case wire.OutcomeDeniedRefuted:
				m["denials_refuted"]++
			case wire.OutcomeTimeout:
				m["timeouts"]++
			}
		}
		if s.Outcome == wire.OutcomeDiscarded {
			m["discarded"]++
		}
	}
	m["hit_accuracy"] = safeDiv(m["hits"], m["shots"])
	m["hit_accuracy_high"] = safeDiv(m["hits_high"], m["shots_high"])
	m["hit_accuracy_low"] = safeDiv(m["hits_low"], m["shots_low"])
	m["sbc_per_hit"] = safeDiv(m["sbc"], m["hits_received"])
	m["sbc_per_hit_low"] = safeDiv(m["sbc_low"], m["hits_received_low"])
	m["hit_confirm_delay_ms"] = safeDiv(delaySum, delayN)
	m["rollback_mean_m"] = safeDiv(rollSum, m["rewound_hits"])
	m["rewind_mean_ms"] = safeDiv(rewindSum, m["rewound_hits"])
	m["not_compensated_fraction"] = safeDiv(m["shots_not_compensated"], float64(len(res.Shots)))
	m["captures"] = float64(res.Match.Captures)
	return m
}

// playerSeries lists each player's accuracy in slot order, so conditions
// run on the same seed can be compared player by player.
func playerSeries(res *match.Result) map[string][]float64 {
	acc := make([]float64, len(res.Players))
	for i, p := range res.Players {
		acc[i] = p.HitAccuracy
	}
	return map[string][]float64{"hit_accuracy": acc}
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

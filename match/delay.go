package match

import (
	"time"

	"github.com/lagkit/lagkit/delay"
)

// delayResults turns the server's delay measurements of a player whose
// uplink's base one-way latency is upMS into its input-to-effect time,
// its share of time under added delay, and the added delay's mean, in
// milliseconds.
func delayResults(d delay.Stats, upMS float64) (inputToEffectMS, activeShare, meanMS float64) {
	if d.NewInputs > 0 {
		inputToEffectMS = upMS + msOf(d.InputWait)
	}
	if d.Observed > 0 {
		activeShare = float64(d.Active) / float64(d.Observed)
	}
	return inputToEffectMS, activeShare, msOf(d.Mean)
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

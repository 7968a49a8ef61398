package match

import (
	"time"

	"github.com/lagkit/lagkit/sim"
)

// observeDisplay measures the display error of player i's client.
func (o *observer) observeDisplay(now time.Duration, i int, p *sim.Player) {
	o.display[i].Observe(now, p.Client, o.history)
}

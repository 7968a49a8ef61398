package match

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// ReplicationMethods are the names ThresholdReplication knows, those of
// reckoning's replication modes.
var ReplicationMethods = reckoning.ReplicationNames()

// ThresholdReplication returns the server's replication for the
// reckoning replication mode called method on the shipped map mapName
// (see reckoning.NewReplication): "full" sends every player's state in
// every snapshot, "dead" and "led" are threshold replication with dead
// and led reckoning.
func ThresholdReplication(method, mapName string) (server.Replication, error) {
	r, err := reckoning.NewReplication(method, mapName)
	if err != nil {
		return server.Replication{}, fmt.Errorf("match: %w", err)
	}
	return server.Replication{Policy: r.Policy, Teams: r.Teams}, nil
}

// replicatedDisplay has a client draw the others with the dead reckoning
// the server's threshold replication assumes, when there is one.
func replicatedDisplay(cc *client.Config, r server.Replication) {
	if r.Policy == nil {
		return
	}
	cc.Display = client.DeadReckon
	cc.Reckoning, cc.ReckoningOrder, cc.ReckoningTeams = r.Policy, r.Order, r.Teams
}

// observeDisplay measures the display error of player i's client.
func (o *observer) observeDisplay(now time.Duration, i int, p *sim.Player) {
	o.display[i].Observe(now, p.Client, o.history)
}

package match

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// ReplicationMethods are the methods ThresholdReplication knows.
var ReplicationMethods = []string{"full", "dead", "led"}

// ThresholdReplication returns the replication of a method on the
// shipped map mapName: "full" sends every player's state in every
// snapshot; "dead" is threshold replication with dead reckoning at the
// default threshold; "led" is threshold replication with led reckoning,
// each team's players judged against the shipped trend map of their
// team (the map's every-team trend map for the others).
func ThresholdReplication(method, mapName string) (server.Replication, error) {
	switch method {
	case "full":
		return server.Replication{}, nil
	case "dead":
		return server.Replication{Policy: reckoning.Dead{}}, nil
	case "led":
		if strings.HasSuffix(mapName, ".json") {
			return server.Replication{}, fmt.Errorf("match: led replication needs a shipped map's trend maps, and %s is a map file", mapName)
		}
		r := server.Replication{Teams: make([]reckoning.Policy, 2)}
		for team := -1; team < 2; team++ {
			tm, err := reckoning.Shipped(mapName, team)
			if err != nil {
				return server.Replication{}, fmt.Errorf("match: led replication: %w", err)
			}
			if team < 0 {
				r.Policy = reckoning.Led{Trend: tm}
			} else {
				r.Teams[team] = reckoning.Led{Trend: tm}
			}
		}
		return r, nil
	}
	return server.Replication{}, fmt.Errorf("match: replication %q: want full, dead or led", method)
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

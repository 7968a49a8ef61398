package server

import (
	"fmt"

	"github.com/lagkit/lagkit/reckoning"
)

// ThresholdReplication returns the replication for the reckoning
// replication mode called method on the shipped map mapName (see
// reckoning.NewReplication): "full" sends every player's state in every
// snapshot, "dead" and "led" are threshold replication with dead and led
// reckoning. A client follows it with client.Config.FollowReplication.
func ThresholdReplication(method, mapName string) (Replication, error) {
	r, err := reckoning.NewReplication(method, mapName)
	if err != nil {
		return Replication{}, fmt.Errorf("server: %w", err)
	}
	return Replication{Policy: r.Policy, Teams: r.Teams}, nil
}

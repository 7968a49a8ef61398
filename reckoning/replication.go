package reckoning

import (
	"fmt"
	"strings"

	"github.com/lagkit/lagkit/internal/registry"
)

// Replication is how players' states reach the clients: every state in
// every snapshot (the zero Replication), or threshold replication, which
// sends a player's state only when the receiver's dead (or led)
// reckoning of it strays beyond the policy's threshold.
type Replication struct {
	// Policy is the reckoning policy; nil sends every state.
	Policy Policy
	// Teams, when set, hold the policy for each team's players, by team
	// number; Policy serves the others.
	Teams []Policy
}

// Replications is the registry of replication modes, by name, in the
// order help lists them: "full" (every state in every snapshot), "dead"
// (threshold replication with dead reckoning at the default threshold)
// and "led" (threshold replication with led reckoning on the map's
// shipped trend maps). Each builds its replication for a shipped map.
var Replications = registry.New("replication",
	registry.Entry[func(mapName string) (Replication, error)]{Name: "full", Item: func(string) (Replication, error) { return Replication{}, nil }},
	registry.Entry[func(mapName string) (Replication, error)]{Name: "dead", Item: func(string) (Replication, error) { return Replication{Policy: Dead{}}, nil }},
	registry.Entry[func(mapName string) (Replication, error)]{Name: "led", Item: ledReplication},
)

// NewReplication returns the replication mode called name on the
// shipped map mapName.
func NewReplication(name, mapName string) (Replication, error) {
	mk, err := Replications.Lookup(name)
	if err != nil {
		return Replication{}, fmt.Errorf("reckoning: %w", err)
	}
	return mk(mapName)
}

// ledReplication judges each team's players against the shipped trend
// map of their team, and any others against the map's every-team trend
// map.
func ledReplication(mapName string) (Replication, error) {
	if strings.HasSuffix(mapName, ".json") {
		return Replication{}, fmt.Errorf("reckoning: led replication needs a shipped map's trend maps, and %s is a map file", mapName)
	}
	r := Replication{Teams: make([]Policy, 2)}
	for team := -1; team < 2; team++ {
		tm, err := Shipped(mapName, team)
		if err != nil {
			return Replication{}, fmt.Errorf("reckoning: led replication: %w", err)
		}
		if team < 0 {
			r.Policy = Led{Trend: tm}
		} else {
			r.Teams[team] = Led{Trend: tm}
		}
	}
	return r, nil
}

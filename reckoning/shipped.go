package reckoning

import (
	"embed"
	"fmt"
)

// The shipped trend maps, built from bot play on the shipped maps
// (trends/README.md says how).
//
//go:embed trends/*.json
var shipped embed.FS

// ShippedName returns the file name of the shipped trend map of a map
// and team (-1: every team): "metro.json", "metro-team0.json".
func ShippedName(mapName string, team int) string {
	if team < 0 {
		return mapName + ".json"
	}
	return fmt.Sprintf("%s-team%d.json", mapName, team)
}

// Shipped returns the shipped trend map of a map for a team, or for
// every team when team is -1.
func Shipped(mapName string, team int) (*TrendMap, error) {
	name := ShippedName(mapName, team)
	data, err := shipped.ReadFile("trends/" + name)
	if err != nil {
		return nil, fmt.Errorf("reckoning: no shipped trend map %s for map %q", name, mapName)
	}
	return Parse(name, data)
}

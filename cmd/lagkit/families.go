package main

import (
	"strings"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/reckoning"
)

// The help text lists each family of interchangeable techniques from one
// function, so a technique added to its package shows up in every
// command's help.

// policyNames lists the lag compensation policies, from lagcomp's
// registry.
func policyNames() []string { return lagcomp.Names() }

// delayModeNames lists the time delay modes, from delay's registry.
func delayModeNames() []string { return delay.Modes() }

// replicationNames lists the replication modes, from reckoning's
// registry.
func replicationNames() []string { return reckoning.ReplicationNames() }

// displayModeNames lists how clients can draw remote players, from the
// client's display registry.
func displayModeNames() []string { return client.DisplayNames() }

// oneOf joins names for help text: "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

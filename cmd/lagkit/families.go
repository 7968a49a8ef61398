package main

import (
	"strings"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
)

// The help text lists each family of interchangeable techniques from one
// function, so a technique added to its package shows up in every
// command's help.

// policyNames lists the lag compensation policies, from lagcomp's
// registry.
func policyNames() []string { return lagcomp.Names() }

// delayModeNames lists the time delay modes the server knows.
func delayModeNames() []string {
	return []string{server.DelayNone, server.DelayRegular, server.DelayAdaptive}
}

// replicationNames lists the replication modes: full state in every
// snapshot, or threshold replication under dead or led reckoning (as
// match.ThresholdReplication accepts them).
func replicationNames() []string { return []string{"full", "dead", "led"} }

// displayModeNames lists how clients can draw remote players, from the
// client's display modes.
func displayModeNames() []string {
	var names []string
	for d := client.Display(0); ; d++ {
		if _, err := client.ParseDisplay(d.String()); err != nil {
			return names
		}
		names = append(names, d.String())
	}
}

// oneOf joins names for help text: "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

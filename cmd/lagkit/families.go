package main

import (
	"slices"

	"github.com/lagkit/lagkit/aimassist"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/internal/registry"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/scaling"
)

// The help text lists each family of interchangeable techniques from one
// function, so a technique added to its package shows up in every
// command's help.

// policyNames lists the lag compensation policies, from lagcomp's
// registry.
func policyNames() []string { return lagcomp.Policies.Names() }

// delayModeNames lists the time delay modes, from delay's registry.
func delayModeNames() []string { return delay.Modes.Names() }

// replicationNames lists the replication modes, from reckoning's
// registry.
func replicationNames() []string { return reckoning.Replications.Names() }

// displayModeNames lists how clients can draw remote players, from the
// client's display registry.
func displayModeNames() []string { return client.Displays.Names() }

// scalingModeNames lists the attribute scaling modes, from scaling's
// registry.
func scalingModeNames() []string { return scaling.Modes.Names() }

// aimAssistNames lists the aim assistance modes, from aimassist's
// registry.
func aimAssistNames() []string { return aimassist.Modes.Names() }

// modeNames lists the game modes, from mode's list.
func modeNames() []string { return mode.Kinds.Names() }

// choice rejects a flag value that is not one of names, as a usage
// error naming the flag and the choices.
func choice(flag, v string, names []string) error {
	if !slices.Contains(names, v) {
		return usagef("--%s %q: want %s", flag, v, oneOf(names))
	}
	return nil
}

// oneOf joins names for help text: "a, b or c".
func oneOf(names []string) string { return registry.OneOf(names) }

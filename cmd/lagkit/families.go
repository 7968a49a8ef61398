package main

import (
	"slices"

	"github.com/lagkit/lagkit/internal/registry"
)

// The help text lists each family of interchangeable techniques from its
// package's registry (Names), so a technique added to its package shows
// up in every command's help.

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

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/experiment"
)

// resumable checks that dir holds a run of want and returns its finished
// cells, as --resume's errors.
func resumable(dir string, want experiment.Manifest) ([]experiment.CellResult, error) {
	cells, err := experiment.Resume(dir, want)
	var mismatch *experiment.MismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, usagef("--resume %s: the folder holds %s; this command asks for %s", dir, mismatch.Have, mismatch.Want)
	case errors.Is(err, experiment.ErrNoRun):
		return nil, usagef("--resume %s: %v", dir, err)
	case err != nil:
		return nil, fmt.Errorf("--resume %s: %w", dir, err)
	}
	return cells, nil
}

// fresh makes sure dir can take a new run, as --out's errors.
func fresh(dir string, force bool) error {
	switch err := experiment.Fresh(dir, force); {
	case errors.Is(err, experiment.ErrNotEmpty):
		return usagef("--out %s is not empty: give --force to write over it, or --resume %s to continue a run there", dir, dir)
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// commandLine is the command as given, for the results' provenance: the
// command path, the arguments and the flags that were set (in name
// order).
func commandLine(cmd *cobra.Command, args []string) []string {
	line := append(strings.Fields(cmd.CommandPath()), args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			line = append(line, "--"+f.Name)
			if f.Value.String() != "true" {
				line[len(line)-1] += "=" + f.Value.String()
			}
			return
		}
		line = append(line, "--"+f.Name, f.Value.String())
	})
	return line
}

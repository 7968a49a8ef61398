package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

func newTrendCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trend",
		Short: "Build trend maps for led reckoning from recorded play",
	}
	var (
		in    pathInputs
		team  int
		grid  int
		out   string
		image string
	)
	build := &cobra.Command{
		Use:   "build [PATHS.csv ...]",
		Short: "Build a trend map from path files or from bot matches",
		Long: `build reads path files (CSV with the header time,player,team,x,y,z: time
in seconds, the player's number and team, its feet in metres; 'lagkit match
--paths FILE' writes them) and builds the map's trend map: a grid of the mean
axis of movement of the chosen team's players (all teams by default), which
led reckoning uses. With --from-match N it also plays N bot matches (seeds
--seed, --seed+1, ...) and uses their paths. It writes the trend map as JSON
(default trends/MAP.json, or trends/MAP-teamN.json) and, with --image, an
SVG picture of it to check by eye.`,
		Example: `  lagkit match --map metro --duration 10m --paths metro1.csv
  lagkit trend build --map metro --team 0 metro1.csv
  lagkit trend build --map arena --from-match 3 --minutes 10 --image arena.svg`,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, samples, err := in.read(args)
			if err != nil {
				return err
			}
			if err := checkTeam(team, samples); err != nil {
				return err
			}
			tm := &reckoning.TrendMap{Map: m.Name, Team: team, Bounds: m.Bounds, NX: grid, NY: grid}
			if err := tm.Build(samples); err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("trends", reckoning.ShippedName(m.Name, team))
			}
			if err := writeFile(out, tm.Write); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			if image != "" {
				if !strings.HasSuffix(image, ".svg") {
					return usagef("--image %s: only SVG (.svg) is drawn", image)
				}
				if err := writeFile(image, func(w io.Writer) error { return tm.WriteSVG(w, m.AABBs()) }); err != nil {
					return fmt.Errorf("--image: %w", err)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d samples, %d of %d cells with a trend\n", out, len(samples), tm.Filled(), len(tm.Cells))
			return nil
		},
	}
	f := build.Flags()
	in.flags(f, 20)
	f.IntVar(&team, "team", -1, "team whose paths to use (-1: every team)")
	f.IntVar(&grid, "grid", reckoning.DefaultGrid, "cells along each axis")
	f.StringVar(&out, "out", "", "trend map file to write (default trends/MAP.json or trends/MAP-teamN.json)")
	f.StringVar(&image, "image", "", "also draw the trend map to this SVG file")
	cmd.AddCommand(build, newTrendReplayCmd())
	return cmd
}

// pathInputs are the recorded paths a trend command reads: path files
// named as arguments, and bot matches it plays itself.
type pathInputs struct {
	mapName string
	matches int
	minutes float64
	seed    uint64
	modeStr string
	pathHz  int
	// changed reports whether a flag was given.
	changed func(name string) bool
}

func (in *pathInputs) flags(f *pflag.FlagSet, pathHz int) {
	in.changed = f.Changed
	f.StringVar(&in.mapName, "map", "metro", "map name (metro, arena, courtyard) or a map file (.json)")
	f.IntVar(&in.matches, "from-match", 0, "also play this many bot matches and use their paths")
	f.Float64Var(&in.minutes, "minutes", 10, "length of each --from-match match in minutes")
	f.Uint64Var(&in.seed, "seed", 1, "seed of the first --from-match match")
	f.StringVar(&in.modeStr, "mode", "ctf", "game mode of the --from-match matches: ffa, tdm, ctf or dom")
	f.IntVar(&in.pathHz, "path-hz", pathHz, "samples per second of the --from-match paths (at most the 64 Hz tick)")
}

// read loads the map and reads the path files and plays the matches,
// numbering each source's players after the ones before.
func (in *pathInputs) read(files []string) (*world.Map, []reckoning.Sample, error) {
	if len(files) == 0 && in.matches == 0 {
		return nil, nil, usagef("no input: give path files or --from-match N")
	}
	if in.matches < 0 || in.matches > 100 {
		return nil, nil, usagef("--from-match %d: want 0 to 100 matches", in.matches)
	}
	if in.pathHz < 1 || in.pathHz > 64 {
		return nil, nil, usagef("--path-hz %d: want 1 to 64 samples per second", in.pathHz)
	}
	if !(in.minutes > 0 && in.minutes <= 24*60) {
		return nil, nil, usagef("--minutes %v: want more than 0, up to a day", in.minutes)
	}
	if err := choice("mode", in.modeStr, mode.Kinds.Names()); err != nil {
		return nil, nil, err
	}
	if in.matches == 0 {
		for _, name := range []string{"minutes", "seed", "mode", "path-hz"} {
			if in.changed != nil && in.changed(name) {
				return nil, nil, usagef("--%s applies only with --from-match N", name)
			}
		}
	}
	m, err := world.LoadNamed(in.mapName)
	if err != nil {
		return nil, nil, err
	}
	samples, err := reckoning.ReadPathFiles(files)
	if err != nil {
		return nil, nil, err
	}
	played, err := match.RecordPaths(match.Config{Map: in.mapName, Mode: mode.Kind(in.modeStr), Seed: in.seed,
		Duration: time.Duration(in.minutes * float64(time.Minute)), PathRate: in.pathHz}, in.matches)
	if err != nil {
		return nil, nil, err
	}
	samples = reckoning.AppendPaths(samples, played)
	return m, samples, nil
}

// checkTeam rejects a --team that no sample is of, which would build a
// trend map with no trend.
func checkTeam(team int, samples []reckoning.Sample) error {
	if team < 0 {
		return nil
	}
	teams := reckoning.Teams(samples)
	if slices.Contains(teams, team) {
		return nil
	}
	found := make([]string, len(teams))
	for i, t := range teams {
		found[i] = strconv.Itoa(t)
	}
	return usagef("--team %d: no path sample is of that team (teams found: %s)", team, strings.Join(found, ", "))
}

// writeFile creates path (and its folder) and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

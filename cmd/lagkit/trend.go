package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/world"
)

func newTrendCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trend",
		Short: "Build trend maps for led reckoning from recorded play",
	}
	var (
		mapName string
		team    int
		grid    int
		out     string
		image   string
		matches int
		minutes float64
		seed    uint64
		modeStr string
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
			if len(args) == 0 && matches == 0 {
				return errors.New("no input: give path files or --from-match N")
			}
			if matches < 0 || matches > 100 {
				return fmt.Errorf("--from-match %d: want 0 to 100 matches", matches)
			}
			if !(minutes > 0 && minutes <= 24*60) {
				return fmt.Errorf("--minutes %v: want more than 0, up to a day", minutes)
			}
			m, err := loadWorld(mapName)
			if err != nil {
				return err
			}
			var samples []reckoning.Sample
			for _, path := range args {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				s, err := reckoning.ReadPaths(path, f)
				f.Close()
				if err != nil {
					return err
				}
				samples = appendPaths(samples, s)
			}
			for i := range matches {
				var buf bytes.Buffer
				if _, err := match.Run(match.Config{
					Map: mapName, Mode: mode.Kind(modeStr), Seed: seed + uint64(i),
					Duration: time.Duration(minutes * float64(time.Minute)), Paths: &buf,
				}, nil); err != nil {
					return err
				}
				s, err := reckoning.ReadPaths(fmt.Sprintf("match %d", seed+uint64(i)), &buf)
				if err != nil {
					return err
				}
				samples = appendPaths(samples, s)
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
					return fmt.Errorf("--image %s: only SVG (.svg) is drawn", image)
				}
				boxes := make([]geom.AABB, len(m.Boxes))
				for i, b := range m.Boxes {
					boxes[i] = b.AABB
				}
				if err := writeFile(image, func(w io.Writer) error { return tm.WriteSVG(w, boxes) }); err != nil {
					return fmt.Errorf("--image: %w", err)
				}
			}
			cells := 0
			for _, c := range tm.Cells {
				if c.N > 0 {
					cells++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d samples, %d of %d cells with a trend\n", out, len(samples), cells, len(tm.Cells))
			return nil
		},
	}
	f := build.Flags()
	f.StringVar(&mapName, "map", "metro", "map name (metro, arena, courtyard) or a map file (.json)")
	f.IntVar(&team, "team", -1, "team whose paths to use (-1: every team)")
	f.IntVar(&grid, "grid", reckoning.DefaultGrid, "cells along each axis")
	f.StringVar(&out, "out", "", "trend map file to write (default trends/MAP.json or trends/MAP-teamN.json)")
	f.StringVar(&image, "image", "", "also draw the trend map to this SVG file")
	f.IntVar(&matches, "from-match", 0, "also play this many bot matches and use their paths")
	f.Float64Var(&minutes, "minutes", 10, "length of each --from-match match in minutes")
	f.Uint64Var(&seed, "seed", 1, "seed of the first --from-match match")
	f.StringVar(&modeStr, "mode", "ctf", "game mode of the --from-match matches: ffa, tdm, ctf or dom")
	cmd.AddCommand(build)
	return cmd
}

// appendPaths adds a file's samples, numbering its players after those
// already held, so that players of different files stay apart.
func appendPaths(all, s []reckoning.Sample) []reckoning.Sample {
	base := 0
	for _, x := range all {
		base = max(base, x.Player+1)
	}
	for _, x := range s {
		x.Player += base
		all = append(all, x)
	}
	return all
}

// loadWorld loads a shipped map by name or a map file by path.
func loadWorld(name string) (*world.Map, error) {
	if strings.HasSuffix(name, ".json") {
		return world.LoadFile(name)
	}
	return world.Load(name)
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

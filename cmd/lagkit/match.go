package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
)

// defaultMatchRTTms is lagkit match's round trip for every player when
// --rtt is not given (the library's match.Config defaults to a LAN).
const defaultMatchRTTms = 20

func newMatchCmd() *cobra.Command {
	var (
		cfg     match.Config
		modeStr string
		latency string
		loadout string
		out     string
		paths   string
		repl    string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "match",
		Short: "Play one match of bots in virtual time and summarise it",
		Long: `match plays one match of bots, each through its own client over its own
emulated link, with the chosen mode, map and lag compensation policy. It
prints each player's statistics; with --out DIR it also writes
DIR/events.jsonl (every shot, hit, appeal, kill, spawn and objective event,
with server time) and DIR/summary.json. With --paths FILE it records every
living player's position 20 times a second as a path file
(time,player,team,x,y,z), which 'lagkit trend build' reads.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkMatchFlags(cmd.Flags(), cfg); err != nil {
				return err
			}
			cfg.Mode = mode.Kind(modeStr)
			rep, err := match.ThresholdReplication(repl, cfg.Map)
			if err != nil {
				return fmt.Errorf("--replication: %w", err)
			}
			cfg.Replication = rep
			lat, err := parseLatency(latency)
			if err != nil {
				return err
			}
			cfg.Latency = lat
			if loadout != "" {
				cfg.Loadout = strings.Split(loadout, ",")
			}
			var events io.Writer
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				f, err := os.Create(filepath.Join(out, "events.jsonl"))
				if err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				defer f.Close()
				events = f
			}
			if paths != "" {
				f, err := os.Create(paths)
				if err != nil {
					return fmt.Errorf("--paths: %w", err)
				}
				defer f.Close()
				cfg.Paths = f
			}
			res, err := match.Run(cfg, events)
			if err != nil {
				return err
			}
			if out != "" {
				b, _ := json.MarshalIndent(res, "", "  ")
				if err := os.WriteFile(filepath.Join(out, "summary.json"), append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
			}
			printMatch(cmd.OutOrStdout(), res)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Map, "map", "metro", "map name (metro, arena, courtyard) or a map file (.json)")
	f.StringVar(&cfg.WeaponsFile, "weapons", "", "weapons file (default: the shipped weapons)")
	f.StringVar(&loadout, "loadout", "", "weapons every player carries, by name, comma separated (default: the first weapon)")
	f.StringVar(&modeStr, "mode", "ctf", "game mode: ffa, tdm, ctf or dom")
	f.IntVar(&cfg.Bots, "bots", 12, "number of bots")
	f.DurationVar(&cfg.Duration, "duration", 10*time.Minute, "match length (simulated)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	f.IntVar(&cfg.TickRate, "tick", 64, "server tick rate (20-128 Hz)")
	f.StringVar(&cfg.Policy.Name, "policy", "tlc", "lag compensation policy: "+oneOf(policyNames()))
	f.Float64Var(&cfg.Policy.LowPingMS, "low-ping-ms", 0, "alc: appeal threshold (default 50)")
	f.Float64Var(&cfg.Policy.MaxRTTms, "max-rtt-ms", 0, "clc: round-trip cap (default 250; negative: none)")
	f.Float64Var(&cfg.Policy.MaxRollbackM, "max-rollback-m", 0, "clc: rollback distance cap (0: none)")
	f.Float64Var(&cfg.BaseRTTms, "rtt", defaultMatchRTTms, "every player's round trip in ms unless set otherwise")
	f.StringVar(&latency, "latency", "", "per-player round trips, as PLAYER:MS pairs, e.g. 2:250,5:250")
	f.Float64Var(&cfg.HighPingFraction, "high-ping-fraction", 0, "fraction of each team given --high-ping-ms")
	f.Float64Var(&cfg.HighPingMS, "high-ping-ms", 250, "round trip of the high-ping players in ms")
	f.Float64Var(&cfg.JitterMS, "jitter", 0, "delay jitter per direction in ms")
	f.Float64Var(&cfg.Loss, "loss", 0, "loss probability per direction")
	f.Float64Var(&cfg.Skill, "skill", 0.5, "bot skill from 0 to 1")
	f.StringVar(&cfg.Delay.Mode, "delay", "none", "time delay: "+oneOf(delayModeNames())+" (delay equalises every player's latency; adaptive only while players interact)")
	f.DurationVar(&cfg.Delay.Adaptation, "adaptation", delay.DefaultAdaptation, "adaptive delay: moving-average length of the added delay (0s: at once)")
	f.StringVar(&cfg.Delay.Trigger, "trigger", "proximity", "adaptive delay: what makes players interact: proximity (within 20 m, until beyond 25 m) or fov (either sees the other)")
	f.StringVar(&repl, "replication", "full", "replication: "+oneOf(replicationNames())+" (full sends every state in every snapshot; dead and led are threshold replication under dead or led reckoning, led with the map's shipped trend maps; clients then dead reckon)")
	f.DurationVar(&cfg.TimeWarp, "timewarp", 0, "time warp window, e.g. 500ms: late commands run at their issue tick, re-simulated (needs --policy none, mode ffa or tdm)")
	f.StringVar(&out, "out", "", "folder for events.jsonl and summary.json")
	f.StringVar(&paths, "paths", "", "write players' positions at 20 Hz to this path file (CSV)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object (players and match) instead of a table")
	return cmd
}

// checkMatchFlags rejects values the match driver would otherwise read
// as "use the default" (zero bots, a zero duration), so what runs is what
// was asked for.
func checkMatchFlags(f *pflag.FlagSet, cfg match.Config) error {
	if err := cmp.Or(
		positive(f, "bots", cfg.Bots, "1 to 128"),
		positive(f, "duration", cfg.Duration, "more than 0, such as 2m"),
		positive(f, "tick", cfg.TickRate, "20 to 128 (Hz)"),
		positive(f, "low-ping-ms", cfg.Policy.LowPingMS, "more than 0 (50 when not given)"),
		nonZero(f, "max-rtt-ms", cfg.Policy.MaxRTTms, "more than 0, or negative for no cap (250 when not given)"),
	); err != nil {
		return err
	}
	if !slices.Contains(policyNames(), cfg.Policy.Name) {
		return usagef("--policy %q: want %s", cfg.Policy.Name, oneOf(policyNames()))
	}
	if !slices.Contains(delayModeNames(), cfg.Delay.Mode) {
		return usagef("--delay %q: want %s", cfg.Delay.Mode, oneOf(delayModeNames()))
	}
	if f.Changed("skill") && !(cfg.Skill > 0 && cfg.Skill <= 1) {
		return usagef("--skill %v: want more than 0, up to 1", cfg.Skill)
	}
	return nil
}

// parseLatency reads PLAYER:MS pairs separated by commas, each player
// at most once.
func parseLatency(s string) (map[int]float64, error) {
	out := map[int]float64{}
	if s == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		p, v, ok := strings.Cut(strings.TrimSpace(pair), ":")
		id, err1 := strconv.Atoi(p)
		ms, err2 := strconv.ParseFloat(v, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, usagef("--latency: %q is not PLAYER:MS (e.g. 2:250)", pair)
		}
		if _, dup := out[id]; dup {
			return nil, usagef("--latency: player %d given twice", id)
		}
		out[id] = ms
	}
	return out, nil
}

func printMatch(w io.Writer, r *match.Result) {
	m := r.Match
	fmt.Fprintf(w, "%s on %s under %s: score %d-%d, %d captures, %.0f s simulated in %.1f s\n",
		m.Mode, m.Map, m.Policy, m.Score[0], m.Score[1], m.Captures, m.DurationS, m.WallS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "id\tteam\trtt\tshots\thits\taccuracy\tkills\tdeaths\tscore\thit by\tsbc\tdistance\t")
	for _, p := range r.Players {
		fmt.Fprintf(tw, "%d\t%d\t%.0f ms\t%d\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%.0f m\t\n",
			p.ID, p.Team, p.RTTms, p.Shots, p.Hits, 100*p.HitAccuracy, p.Kills, p.Deaths, p.Score,
			p.HitsReceived, p.SBCReceived, p.DistanceM)
	}
	tw.Flush()
	var bytes, updates, disp, samples float64
	for _, p := range r.Players {
		bytes += p.BytesPerS
		updates += float64(p.UpdatesSent)
		disp += p.DisplayErrorM * float64(p.DisplaySamples)
		samples += float64(p.DisplaySamples)
	}
	if n := float64(len(r.Players)); n > 0 {
		fmt.Fprintf(w, "per client: %.0f B/s, %.1f player updates/s, display error %.4f m\n",
			bytes/n, updates/n/max(m.DurationS, 1e-9), disp/max(samples, 1))
	}
	fmt.Fprintln(w, "state hash", m.StateHash)
}

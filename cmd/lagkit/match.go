package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
)

// matchFlags are lagkit match's flags.
type matchFlags struct {
	cfg     match.Config
	modeStr string
	latency string
	loadout string
	out     string
	force   bool
	paths   string
	repl    string
	asJSON  bool
}

func newMatchCmd() *cobra.Command {
	var o matchFlags
	cmd := &cobra.Command{
		Use:   "match",
		Short: "Play one match of bots in virtual time and summarise it",
		Long: `match plays one match of bots, each through its own client over its own
emulated link, with the chosen mode, map and lag compensation policy. It
prints each player's statistics; with --out DIR it also writes
DIR/events.jsonl (every shot, hit, appeal, kill, spawn and objective event,
with server time) and DIR/summary.json. With --paths FILE it records every
living player's position 20 times a second as a path file
(time,player,team,x,y,z), which 'lagkit trend build' reads. With --duels
it also follows each pair's duels (the peeker's advantage: who drew the
other first and by how much, beside Riot's prediction) and reports them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.cfg.Map, "map", "metro", "map name (metro, arena, courtyard) or a map file (.json)")
	f.StringVar(&o.cfg.WeaponsFile, "weapons", "", "weapons file (default: the shipped weapons)")
	f.StringVar(&o.loadout, "loadout", "", "weapons every player carries, by name, comma separated (default: the first weapon)")
	f.StringVar(&o.modeStr, "mode", "ctf", "game mode: ffa, tdm, ctf or dom")
	f.IntVar(&o.cfg.Bots, "bots", 12, "number of bots")
	f.DurationVar(&o.cfg.Duration, "duration", 10*time.Minute, "match length (simulated)")
	f.Uint64Var(&o.cfg.Seed, "seed", 1, "random seed")
	f.IntVar(&o.cfg.TickRate, "tick", 64, "server tick rate (20-128 Hz)")
	f.StringVar(&o.cfg.Policy.Name, "policy", "tlc", "lag compensation policy: "+oneOf(lagcomp.Policies.Names()))
	f.Float64Var(&o.cfg.Policy.LowPingMS, "low-ping-ms", 0, "alc: appeal threshold (default 50)")
	f.Float64Var(&o.cfg.Policy.MaxRTTms, "max-rtt-ms", 0, "clc: round-trip cap (default 250; negative: none)")
	f.Float64Var(&o.cfg.Policy.MaxRollbackM, "max-rollback-m", 0, "clc: rollback distance cap (0: none)")
	f.Float64Var(&o.cfg.BaseRTTms, "rtt", match.DefaultBaseRTTms, "every player's round trip in ms unless set otherwise")
	f.StringVar(&o.latency, "latency", "", "per-player round trips, as PLAYER:MS pairs, e.g. 2:250,5:250")
	f.Float64Var(&o.cfg.HighPingFraction, "high-ping-fraction", 0, "fraction of each team given --high-ping-ms")
	f.Float64Var(&o.cfg.HighPingMS, "high-ping-ms", 250, "round trip of the high-ping players in ms")
	f.Float64Var(&o.cfg.JitterMS, "jitter", 0, "delay jitter per direction in ms")
	f.Float64Var(&o.cfg.Loss, "loss", 0, "loss probability per direction")
	f.Float64Var(&o.cfg.Skill, "skill", 0.5, "bot skill from 0 to 1")
	f.StringVar(&o.cfg.Delay.Mode, "delay", "none", "time delay: "+oneOf(delay.Modes.Names())+" (delay equalises every player's latency; adaptive only while players interact)")
	f.DurationVar(&o.cfg.Delay.Adaptation, "adaptation", delay.DefaultAdaptation, "time delay: moving-average length of the added delay (0s: at once)")
	f.StringVar(&o.cfg.Delay.Trigger, "trigger", "proximity", "adaptive delay: what makes players interact: "+oneOf(delay.Triggers.Names())+" (proximity: within 20 m, until beyond 25 m; fov: either sees the other)")
	f.StringVar(&o.repl, "replication", "full", "replication: "+oneOf(reckoning.Replications.Names())+" (full sends every state in every snapshot; dead and led are threshold replication under dead or led reckoning, led with the map's shipped trend maps; clients then dead reckon)")
	f.StringVar(&o.cfg.Scaling.Name, "scaling", "none", "attribute scaling, hitboxes scaled by the shooter's round trip: "+oneOf(scaling.Modes.Names())+" (fixed: --scale-factor for everyone; linear: 1 + --scale-per-second x RTT; accuracy-hold: the shipped accuracy model's holding scale), capped at --scale-max")
	f.Float64Var(&o.cfg.Scaling.Factor, "scale-factor", 0, "fixed scaling: the factor, 1 to 4 (default 1.5)")
	f.Float64Var(&o.cfg.Scaling.PerSecond, "scale-per-second", 0, "linear scaling: k, the growth per second of round trip (default 2.5)")
	f.Float64Var(&o.cfg.Scaling.Max, "scale-max", 0, "scaling: the largest factor, 1 to 4 (default 2)")
	f.StringVar(&o.cfg.AimAssist.Name, "aim-assist", "none", "aim assistance, for shots that missed: "+oneOf(aimassist.Modes.Names())+" (magnetism: a miss within a cone widened with latency bends onto the nearest hitbox; area-cursor: a part whose centre lies within a fixed angle of the line is hit)")
	f.DurationVar(&o.cfg.TimeWarp, "timewarp", 0, "time warp window, e.g. 500ms: late commands run at their issue tick, re-simulated (needs --policy none, mode ffa or tdm)")
	f.StringVar(&o.out, "out", "", "folder for events.jsonl and summary.json")
	f.BoolVar(&o.force, "force", false, "write into --out even if it is not empty")
	f.BoolVar(&o.cfg.PredictionOff, "prediction-off", false, "clients show their own player where the server last put it, unpredicted")
	f.StringVar(&o.paths, "paths", "", "write players' positions at 20 Hz to this path file (CSV)")
	f.BoolVar(&o.cfg.Duels, "duels", false, "follow every pair's duels (who drew the other first, by how much, against Riot's prediction) and report them: the duels line, and duels in --json and summary.json")
	f.BoolVar(&o.asJSON, "json", false, "print one JSON object (players and match) instead of a table")
	return cmd
}

// run plays the match o's flags ask for.
func (o *matchFlags) run(cmd *cobra.Command) error {
	if err := checkMatchFlags(cmd.Flags(), o.cfg, o.modeStr); err != nil {
		return err
	}
	o.cfg.Mode = mode.Kind(o.modeStr)
	if err := choice("replication", o.repl, reckoning.Replications.Names()); err != nil {
		return err
	}
	rep, err := server.ThresholdReplication(o.repl, o.cfg.Map)
	if err != nil {
		return fmt.Errorf("--replication: %w", err)
	}
	o.cfg.Replication = rep
	lat, err := match.ParseLatency(o.latency, o.cfg.Bots)
	if err != nil {
		return usagef("--latency: %v", err)
	}
	o.cfg.Latency = lat
	if o.loadout != "" {
		o.cfg.Loadout = strings.Split(o.loadout, ",")
	}
	var events io.Writer
	if o.out != "" {
		if err := emptyOut(o.out, o.force); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(o.out, "events.jsonl"))
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer f.Close()
		events = f
	}
	if o.paths != "" {
		f, err := os.Create(o.paths)
		if err != nil {
			return fmt.Errorf("--paths: %w", err)
		}
		defer f.Close()
		o.cfg.Paths = f
	}
	res, err := match.Run(o.cfg, events)
	if err != nil {
		return err
	}
	if o.out != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(filepath.Join(o.out, "summary.json"), append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if o.asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
	}
	res.WriteTable(cmd.OutOrStdout())
	return nil
}

// checkMatchFlags rejects values the match driver would otherwise read
// as "use the default" (zero bots, a zero duration), values out of range
// and flags that would change nothing under the other flags given, each
// naming its flag, so what runs is what was asked for.
func checkMatchFlags(f *pflag.FlagSet, cfg match.Config, modeStr string) error {
	if err := cmp.Or(
		positive(f, "bots", cfg.Bots, game.PlayersRange),
		positive(f, "duration", cfg.Duration, "more than 0, such as 2m"),
		positive(f, "tick", cfg.TickRate, game.TickRateRange+" (Hz)"),
		positive(f, "low-ping-ms", cfg.Policy.LowPingMS, "more than 0 (50 when not given)"),
		nonZero(f, "max-rtt-ms", cfg.Policy.MaxRTTms, "more than 0, or negative for no cap (250 when not given)"),
		within("bots", cfg.Bots, 1, 128, ""),
		within("tick", cfg.TickRate, 20, 128, " (Hz)"),
		within("rtt", cfg.BaseRTTms, 0, 5000, " (ms)"),
		within("high-ping-fraction", cfg.HighPingFraction, 0, 1, ""),
		within("high-ping-ms", cfg.HighPingMS, 0, 5000, " (ms)"),
		within("jitter", cfg.JitterMS, 0, 1000, " (ms)"),
		within("loss", cfg.Loss, 0, 1, ""),
		within("max-rollback-m", cfg.Policy.MaxRollbackM, 0, 1000, " (m; 0: no cap)"),
		within("adaptation", cfg.Delay.Adaptation, 0, 10*time.Second, ""),
		within("timewarp", cfg.TimeWarp, 0, time.Second, ""),
	); err != nil {
		return err
	}
	if err := cmp.Or(
		choice("policy", cfg.Policy.Name, lagcomp.Policies.Names()),
		choice("delay", cfg.Delay.Mode, delay.Modes.Names()),
		choice("trigger", cfg.Delay.Trigger, delay.Triggers.Names()),
		choice("mode", modeStr, mode.Kinds.Names()),
		choice("scaling", cfg.Scaling.Name, scaling.Modes.Names()),
		choice("aim-assist", cfg.AimAssist.Name, aimassist.Modes.Names()),
	); err != nil {
		return err
	}
	if _, err := scaling.New(cfg.Scaling); err != nil {
		return usagef("%v", err)
	}
	if cfg.Duration > game.MaxDuration {
		return usagef("--duration %v: want at most 24h", cfg.Duration)
	}
	if f.Changed("skill") && !(cfg.Skill > 0 && cfg.Skill <= 1) {
		return usagef("--skill %v: want more than 0, up to 1", cfg.Skill)
	}
	if cfg.TimeWarp > 0 {
		if cfg.Policy.Name != "none" {
			return usagef("--timewarp needs --policy none: time warp judges the shots itself, without rewinding")
		}
		if modeStr != string(mode.FFA) && modeStr != string(mode.TDM) {
			return usagef("--timewarp needs --mode ffa or tdm, not %s: objectives (flags, points) are not re-simulated", modeStr)
		}
	}
	// Flags that only one setting of another flag reads.
	alc := cfg.Policy.Name == "alc" || cfg.Policy.Name == "alc-predict"
	for _, dep := range []struct {
		flag, needs string
		ok          bool
	}{
		{"low-ping-ms", "--policy alc or alc-predict", alc},
		{"max-rtt-ms", "--policy clc", cfg.Policy.Name == "clc"},
		{"max-rollback-m", "--policy clc", cfg.Policy.Name == "clc"},
		{"adaptation", "--delay delay or adaptive", cfg.Delay.Mode != "none"},
		{"trigger", "--delay adaptive", cfg.Delay.Mode == "adaptive"},
		{"high-ping-ms", "--high-ping-fraction above 0", cfg.HighPingFraction > 0},
		{"scale-factor", "--scaling fixed", cfg.Scaling.Name == "fixed"},
		{"scale-per-second", "--scaling linear", cfg.Scaling.Name == "linear"},
		{"scale-max", "--scaling fixed, linear or accuracy-hold", cfg.Scaling.Name != "none"},
	} {
		if f.Changed(dep.flag) && !dep.ok {
			return usagef("--%s applies only with %s", dep.flag, dep.needs)
		}
	}
	return nil
}

// within rejects a flag value outside lo to hi (NaN included); unit
// follows the range in the message.
func within[T int | float64 | time.Duration](name string, v, lo, hi T, unit string) error {
	if !(v >= lo && v <= hi) {
		return usagef("--%s %v: want %v to %v%s", name, v, lo, hi, unit)
	}
	return nil
}

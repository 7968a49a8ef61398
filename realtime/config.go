package realtime

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/world"
)

// Duration is a time.Duration written as Go writes durations ("90s",
// "10m", "150ms") in configuration files and the JSON API.
type Duration time.Duration

// UnmarshalText reads a duration such as "90s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, such as 90s or 150ms", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as "1m30s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// MatchConfig describes one live match. Zero values take the defaults.
type MatchConfig struct {
	// Name labels the match in logs, metrics and the API (default: its
	// id).
	Name string `toml:"name" json:"name,omitempty"`
	// Map is a shipped map's name or a map file (.json); default metro.
	Map string `toml:"map" json:"map,omitempty"`
	// Mode is ffa, tdm, ctf or dom (default tdm).
	Mode string `toml:"mode" json:"mode,omitempty"`
	// Duration ends the match (0: it runs until ended).
	Duration Duration `toml:"duration" json:"duration,omitempty"`
	// TickRate is the server's rate, 20 to 128 Hz (default 64).
	TickRate int `toml:"tick_rate" json:"tick_rate,omitempty"`
	// Seats is how many players the match holds (default 16).
	Seats int `toml:"seats" json:"seats,omitempty"`
	// Bots is how many seats server-side bots keep filled: while fewer
	// than Bots people play, bots make up the difference, and each
	// person who joins a match at that size takes a bot's seat.
	Bots     int     `toml:"bots" json:"bots,omitempty"`
	BotSkill float64 `toml:"bot_skill" json:"bot_skill,omitempty"` // 0 to 1 (default 0.5)
	Seed     uint64  `toml:"seed" json:"seed,omitempty"`
	// Policy is the lag compensation policy and its parameters (default
	// tlc).
	Policy lagcomp.Config `toml:"policy" json:"policy,omitempty"`
	// Delay is time delay: mode none, delay or adaptive.
	Delay DelayConfig `toml:"delay" json:"delay,omitempty"`
	// TimeWarp is the time warp window (0: off).
	TimeWarp Duration `toml:"time_warp" json:"time_warp,omitempty"`
	// Replication is full, dead or led (default full).
	Replication string `toml:"replication" json:"replication,omitempty"`
	// Latency injects delay, jitter and loss per player and direction.
	Latency []LinkRule `toml:"latency" json:"latency,omitempty"`
}

// DelayConfig is the match's time delay.
type DelayConfig struct {
	Mode       string   `toml:"mode" json:"mode,omitempty"`             // none, delay or adaptive
	Trigger    string   `toml:"trigger" json:"trigger,omitempty"`       // adaptive: proximity or fov
	Adaptation Duration `toml:"adaptation" json:"adaptation,omitempty"` // adaptive: moving-average length
}

// LinkRule sets the emulated link of the players it names.
type LinkRule struct {
	// Player names who the rule is for: a seat number ("3"), a player
	// name ("bot2"), or a transport peer ("udp:127.0.0.1:40512"). A
	// peer rule beats a name rule, which beats a seat rule.
	Player string `toml:"player" json:"player"`
	// Up is the player-to-server direction, Down the other.
	Up   LinkConfig `toml:"up" json:"up"`
	Down LinkConfig `toml:"down" json:"down"`
}

// LinkConfig is one direction of an emulated link.
type LinkConfig struct {
	LatencyMS float64 `toml:"latency_ms" json:"latency_ms,omitempty"`
	JitterMS  float64 `toml:"jitter_ms" json:"jitter_ms,omitempty"`
	Loss      float64 `toml:"loss" json:"loss,omitempty"`
}

func (l LinkConfig) netem() (netem.Config, error) {
	if !(l.LatencyMS >= 0 && l.LatencyMS <= 5000) || !(l.JitterMS >= 0 && l.JitterMS <= 1000) || !(l.Loss >= 0 && l.Loss <= 1) {
		return netem.Config{}, fmt.Errorf("latency %v ms (0..5000), jitter %v ms (0..1000) or loss %v (0..1) out of range", l.LatencyMS, l.JitterMS, l.Loss)
	}
	c := netem.Config{Latency: msDur(l.LatencyMS), Jitter: msDur(l.JitterMS), Loss: l.Loss}
	return c, c.Validate()
}

func (l LinkConfig) zero() bool { return l == LinkConfig{} }

func msDur(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }

// File is a configuration file: the matches to run.
type File struct {
	Matches []MatchConfig `toml:"match"`
}

// ParseFile reads a configuration file's TOML; name prefixes errors, which
// give the line and column and refuse unknown fields.
func ParseFile(name string, data []byte) (*File, error) {
	var f File
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			e := sm.Errors[0]
			row, col := e.Position()
			return nil, fmt.Errorf("%s:%d:%d: unknown field %q", name, row, col, strings.Join(e.Key(), "."))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", name, row, col, de.Error())
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(f.Matches) == 0 {
		return nil, fmt.Errorf("%s: no [[match]] table", name)
	}
	for i := range f.Matches {
		if _, err := f.Matches[i].resolve(); err != nil {
			return nil, fmt.Errorf("%s: match %d: %w", name, i+1, err)
		}
	}
	return &f, nil
}

// resolved is a checked MatchConfig with what it names loaded.
type resolved struct {
	cfg    MatchConfig
	server server.Config
	params *game.Params
	grid   *nav.Grid
	weapon *game.Weapon
	rules  []linkRule
}

// linkRule is a LinkRule with its directions converted.
type linkRule struct {
	player   string
	up, down netem.Config
	emulate  bool
}

func (c *MatchConfig) resolve() (*resolved, error) {
	out := *c
	if out.Map == "" {
		out.Map = "metro"
	}
	if out.Mode == "" {
		out.Mode = string(mode.TDM)
	}
	if out.TickRate == 0 {
		out.TickRate = 64
	}
	if out.Seats == 0 {
		out.Seats = 16
	}
	if out.BotSkill == 0 {
		out.BotSkill = 0.5
	}
	if out.Policy.Name == "" {
		out.Policy.Name = "tlc"
	}
	if out.Replication == "" {
		out.Replication = "full"
	}
	switch {
	case out.Seats < 1 || out.Seats > 128:
		return nil, fmt.Errorf("seats %d outside 1..128", out.Seats)
	case out.Bots < 0 || out.Bots > out.Seats:
		return nil, fmt.Errorf("bots %d outside 0..seats (%d)", out.Bots, out.Seats)
	case out.Duration < 0 || time.Duration(out.Duration) > 24*time.Hour:
		return nil, fmt.Errorf("duration %v outside 0..24h", time.Duration(out.Duration))
	case !(out.BotSkill >= 0 && out.BotSkill <= 1):
		return nil, fmt.Errorf("bot_skill %v outside 0..1", out.BotSkill)
	case len(out.Name) > 64:
		return nil, fmt.Errorf("name longer than 64 bytes")
	}
	var m *world.Map
	var err error
	if strings.HasSuffix(out.Map, ".json") {
		m, err = world.LoadFile(out.Map)
	} else {
		m, err = world.Load(out.Map)
	}
	if err != nil {
		return nil, err
	}
	rep, err := match.ThresholdReplication(out.Replication, out.Map)
	if err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	params := game.DefaultParams()
	loadout := []game.Weapon{game.Rifle()} // the server's default loadout, which bots fight with
	r := &resolved{cfg: out, params: &params, weapon: &loadout[0]}
	r.server = server.Config{
		Map: m, TickRate: out.TickRate, MaxClients: out.Seats, Movement: &params, Weapons: loadout,
		Seed: out.Seed, Policy: out.Policy, Replication: rep, TimeWarp: time.Duration(out.TimeWarp),
		Mode:  mode.Config{Mode: mode.Kind(out.Mode), Duration: time.Duration(out.Duration)},
		Delay: server.Delay{Mode: out.Delay.Mode, Trigger: out.Delay.Trigger, Adaptation: time.Duration(out.Delay.Adaptation)},
	}
	// server.New checks everything the server owns: tick rate, mode,
	// policy, delay and time warp.
	if _, err := server.New(r.server); err != nil {
		return nil, err
	}
	if r.rules, err = linkRules(out.Latency); err != nil {
		return nil, err
	}
	if out.Bots > 0 {
		if r.grid, err = nav.Build(m, &params); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// linkRules checks and converts rules.
func linkRules(rules []LinkRule) ([]linkRule, error) {
	if len(rules) > 1024 {
		return nil, fmt.Errorf("latency: %d rules, at most 1024", len(rules))
	}
	out := make([]linkRule, len(rules))
	for i, lr := range rules {
		if lr.Player == "" {
			return nil, fmt.Errorf("latency %d: player is empty: give a seat number, a name or a peer", i+1)
		}
		up, err := lr.Up.netem()
		if err != nil {
			return nil, fmt.Errorf("latency %d (%s): up: %w", i+1, lr.Player, err)
		}
		down, err := lr.Down.netem()
		if err != nil {
			return nil, fmt.Errorf("latency %d (%s): down: %w", i+1, lr.Player, err)
		}
		out[i] = linkRule{player: lr.Player, up: up, down: down, emulate: !lr.Up.zero() || !lr.Down.zero()}
	}
	return out, nil
}

// ruleFor returns the rule for a player by peer, name and seat, in that
// order of precedence, and whether one applies.
func ruleFor(rules []linkRule, peer, name string, seat int) (linkRule, bool) {
	for _, key := range []string{peer, name} {
		for _, r := range rules {
			if key != "" && r.player == key {
				return r, true
			}
		}
	}
	if seat >= 0 {
		s := strconv.Itoa(seat)
		for _, r := range rules {
			if r.player == s {
				return r, true
			}
		}
	}
	return linkRule{}, false
}

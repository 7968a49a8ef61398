package realtime

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
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
	// With World set it only names the map (default: World's name).
	Map string `toml:"map" json:"map,omitempty"`
	// World, set by a program, is the map played, which Map then names
	// (in logs, the API and the clients' welcome): a map of Maps, which
	// a request to the API names and the server loaded at start.
	World *world.Map `toml:"-" json:"-"`
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
	// Scaling is attribute scaling (default none; see package scaling).
	Scaling scaling.Config `toml:"scaling" json:"scaling,omitempty"`
	// AimAssist is aim assistance (default none; see package aimassist).
	AimAssist aimassist.Config `toml:"aim_assist" json:"aim_assist,omitempty"`
	// Replication is full, dead or led (default full).
	Replication string `toml:"replication" json:"replication,omitempty"`
	// Display is the display mode every client, bot or page, draws the
	// other players with (client.DisplayNames; default: each client's
	// own), mandated by the server. Threshold replication draws by its
	// own dead reckoning and takes none.
	Display string `toml:"display" json:"display,omitempty"`
	// PredictionOff has every client show its player where the server
	// last put it, without predicting its commands (mandated by the
	// server; default: clients predict).
	PredictionOff bool `toml:"prediction_off" json:"prediction_off,omitempty"`
	// Feedback is what every client shows its player of the network
	// (client.Feedbacks: none, ping, netgraph or placebo; default: each
	// page's own choice); a placebo shows PlaceboMS when set, else the
	// real round trip times PlaceboScale (default half).
	Feedback     string  `toml:"feedback" json:"feedback,omitempty"`
	PlaceboMS    float64 `toml:"placebo_ms" json:"placebo_ms,omitempty"`
	PlaceboScale float64 `toml:"placebo_scale" json:"placebo_scale,omitempty"`
	// Latency injects delay, jitter and loss per player and direction.
	Latency []LinkRule `toml:"latency" json:"latency,omitempty"`
	// Seat, set by a program (a study), places each connecting player
	// by identity and keeps its statistics across a disconnect (see
	// server.Config.Seat).
	Seat func(server.Identity) server.Placement `toml:"-" json:"-"`
	// Weapons, set by a program, is the loadout every player of
	// lagkit's shooter carries (default the rifle alone); bots fight
	// with the first. A game's own (Step, Game or Shots set) has none.
	Weapons []weapon.Weapon `toml:"-" json:"-"`
	// Movement, set by a program, is the movement rules (default
	// game.DefaultParams()); the clients must use the same.
	Movement *game.Params `toml:"-" json:"-"`
	// Step, set by a program, is the game's movement and firing rule
	// (server.Config.Step). The match's bots predict with it; other
	// clients must set the same client.Config.Step. With none of Step,
	// Game and Shots set, the match plays lagkit's shooter (shooter.Arm
	// with Weapons).
	Step game.StepFunc `toml:"-" json:"-"`
	// Game, Spawn, Died, Body, BodyOf and Shots, set by a program, are
	// the server core's (server.Config): the game's declared state, its
	// respawn and death rules, the players' body for TraceAt (one for all, or one
	// per player and tick), and its shot resolution. The match's bots
	// predict with the same Game.
	Game   *game.Layout                                   `toml:"-" json:"-"`
	Spawn  func(id, team int, st *game.PlayerState)       `toml:"-" json:"-"`
	Died   func(id int, st *game.PlayerState)             `toml:"-" json:"-"`
	Body   lagcomp.Body                                   `toml:"-" json:"-"`
	BodyOf func(id int, st game.PlayerState) lagcomp.Body `toml:"-" json:"-"`
	Shots  server.Shots                                   `toml:"-" json:"-"`
	// Cmd, set by a program, is the game's own part of every command
	// (server.Config.Cmd, game.DeclareCmd): the match's bots send it,
	// and other clients must declare the same client.Config.Cmd.
	Cmd *game.CmdLayout `toml:"-" json:"-"`
	// Shape and MaxHealth, set by a program, are the server core's
	// (server.Config): the wire's shape for the game (its bodies' part
	// count, health to all), which the match's bots share and other
	// clients must declare the same (client.Config.Shape), and each
	// player's full health.
	Shape     wire.Shape                              `toml:"-" json:"-"`
	MaxHealth func(id int, st game.PlayerState) int16 `toml:"-" json:"-"`
	// Rules, set by a program, are the game's match rules
	// (server.Config.Rules), in place of lagkit's mode Mode names
	// (shooter.Rules); the match's Mode is then their Name.
	Rules func(server.RulesEnv) (server.Rules, error) `toml:"-" json:"-"`
	// BotPolicy, set by a program, makes the match's server-side bots
	// (Bots) of a game's own: bot i (from 0, in the order they start)
	// plays the policy BotPolicy(i, seed) returns, through a client core
	// with the match's Step and Game, its seed derived from Seed.
	// Default: lagkit's bots (bots.New with BotSkill), which need the map's
	// navigation grid.
	BotPolicy bot.Maker `toml:"-" json:"-"`
	// OnTick, set by a program, runs the game's own server logic on the
	// match goroutine each time the core has run its due ticks (one,
	// unless the match fell behind): moving its
	// entities (server.Server.SetEntity), reading its players' events
	// (r.GameEvents: what the core handed over since the last OnTick,
	// its shots, kills and log too) and answering them. It
	// must not block, keep s or r, or call the Match.
	OnTick func(s *server.Server, r *server.Ready) `toml:"-" json:"-"`
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
	// TargetRTTMS is the round trip the player plays at, whatever their
	// own network adds (0: none): the link injects the difference from
	// the round trip the server measures less what it injects, half
	// each way, and follows it as the player's own drifts (netem.Hold).
	// Up's and Down's latency must then be 0; their jitter and losses
	// still apply. A player whose own round trip is above the target
	// plays at their own.
	TargetRTTMS float64 `toml:"target_rtt_ms" json:"target_rtt_ms,omitempty"`
}

// LinkConfig is one direction of an emulated link: one-way latency and
// jitter, and the probabilities that a packet is lost, delivered twice,
// or held back 20 ms so that later packets overtake it (netem.Config).
type LinkConfig struct {
	LatencyMS float64 `toml:"latency_ms" json:"latency_ms,omitempty"`
	JitterMS  float64 `toml:"jitter_ms" json:"jitter_ms,omitempty"`
	Loss      float64 `toml:"loss" json:"loss,omitempty"`
	Duplicate float64 `toml:"duplicate" json:"duplicate,omitempty"`
	Reorder   float64 `toml:"reorder" json:"reorder,omitempty"`
}

func (l LinkConfig) netem() (netem.Config, *problem) {
	switch {
	case !(l.LatencyMS >= 0 && l.LatencyMS <= 5000):
		return netem.Config{}, fail("latency_ms", "%v, want 0 to 5000", l.LatencyMS)
	case !(l.JitterMS >= 0 && l.JitterMS <= 1000):
		return netem.Config{}, fail("jitter_ms", "%v, want 0 to 1000", l.JitterMS)
	case !(l.Loss >= 0 && l.Loss <= 1):
		return netem.Config{}, fail("loss", "%v, want 0 to 1", l.Loss)
	case !(l.Duplicate >= 0 && l.Duplicate <= 1):
		return netem.Config{}, fail("duplicate", "%v, want 0 to 1", l.Duplicate)
	case !(l.Reorder >= 0 && l.Reorder <= 1):
		return netem.Config{}, fail("reorder", "%v, want 0 to 1", l.Reorder)
	}
	// These bounds are within netem's (Config.Validate), so the result
	// needs no second check.
	return netem.Config{Latency: msDur(l.LatencyMS), Jitter: msDur(l.JitterMS), Loss: l.Loss,
		Duplicate: l.Duplicate, Reorder: l.Reorder, ReorderDelay: 20 * time.Millisecond}, nil
}

func (l LinkConfig) zero() bool { return l == LinkConfig{} }

func msDur(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }

// File is a configuration file: the matches to run.
type File struct {
	// SpectateDelay, if given (spectate_delay = "30s", before the
	// matches), is the delay on what the matches' spectators see
	// (Host.SetSpectateDelay; "0s" turns it off); lagkit serve's
	// --spectate-delay overrides it.
	SpectateDelay *Duration     `toml:"spectate_delay"`
	Matches       []MatchConfig `toml:"match"`
}

// MaxFileSize is the largest configuration file read: a file of 256
// matches, each with a few dozen latency rules, fits in a few hundred KiB.
const MaxFileSize = 1 << 20

// MaxMatchJSON is the largest match configuration the HTTP API takes in
// one request: one match with its latency rules fits in a few KiB.
const MaxMatchJSON = 64 << 10

var (
	configFile = cfgfile.Kind{Name: "serve config file", MaxSize: MaxFileSize}
	matchJSON  = cfgfile.Kind{Name: "match config", MaxSize: MaxMatchJSON}
)

// LoadFile reads and checks the configuration file at path.
func LoadFile(path string) (*File, error) { return LoadFileMaps(path, nil) }

// LoadFileMaps is LoadFile where a match's map may also be one of maps
// loaded from a directory (LoadMaps), by name: such a match's World is
// set. A map file's path, relative to the working directory, still
// loads that file.
func LoadFileMaps(path string, maps *Maps) (*File, error) {
	data, err := configFile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseFile(path, data, maps)
}

// ParseFile checks a configuration file's TOML; name names the file in
// errors. Every error it returns is a *cfgfile.Error,
// "name:line:col: match[0].tick_rate: problem", and it refuses unknown
// fields, keys given twice and files over MaxFileSize.
func ParseFile(name string, data []byte) (*File, error) { return parseFile(name, data, nil) }

func parseFile(name string, data []byte, maps *Maps) (*File, error) {
	var f File
	doc, err := configFile.DecodeTOML(name, data, &f)
	if err != nil {
		return nil, err
	}
	if len(f.Matches) == 0 {
		return nil, doc.Errorf("match", "no [[match]] table")
	}
	if f.SpectateDelay != nil {
		if err := CheckSpectateDelay(time.Duration(*f.SpectateDelay)); err != nil {
			return nil, doc.Errorf("spectate_delay", "%v", err)
		}
	}
	for i := range f.Matches {
		if mc := &f.Matches[i]; maps != nil && maps.Loaded(mc.Map) {
			m, err := maps.Load(mc.Map)
			if err != nil {
				return nil, doc.Errorf(fmt.Sprintf("match[%d].map", i), "%s", cause(err))
			}
			mc.World = m
		}
		if _, p := f.Matches[i].resolve(); p != nil {
			return nil, doc.Locate(within(p, fmt.Sprintf("match[%d]", i)))
		}
	}
	return &f, nil
}

// DecodeMatch decodes a match configuration given as JSON (the body of
// the HTTP API's POST /api/matches), strictly as ParseFile reads TOML.
// It only decodes: Host.Start checks the match, and the Doc returned
// here places the Problem of a ConfigError that Start returns in data.
func DecodeMatch(name string, data []byte) (MatchConfig, *cfgfile.Doc, error) {
	var c MatchConfig
	doc, err := matchJSON.DecodeJSON(name, data, &c)
	return c, doc, err
}

// DecodeLatency decodes link rules given as JSON (the body of the HTTP
// API's PUT /api/matches/{id}/latency) and checks them. Every error it
// returns is a *cfgfile.Error.
func DecodeLatency(name string, data []byte) ([]LinkRule, error) {
	var rules []LinkRule
	doc, err := matchJSON.DecodeJSON(name, data, &rules)
	if err != nil {
		return nil, err
	}
	if _, p := linkRules(rules, ""); p != nil {
		return nil, doc.Locate(p)
	}
	return rules, nil
}

// MaxTokenRequest is the largest token request (DecodeTokenRequest)
// read.
const MaxTokenRequest = 4 << 10

var tokenJSON = cfgfile.Kind{Name: "token request", MaxSize: MaxTokenRequest}

// DecodeTokenRequest decodes a request for a connect token,
// {"player": NAME}, as the HTTP API's POST /api/matches/{id}/tokens and
// the page's token endpoint take it: an object with no other key, the
// name 1 to wire.MaxNameLen bytes of UTF-8 without control characters
// (a name a client can connect with). Every error is a *cfgfile.Error.
func DecodeTokenRequest(name string, data []byte) (string, error) {
	var req struct {
		Player *string `json:"player"`
	}
	doc, err := tokenJSON.DecodeJSON(name, data, &req)
	if err != nil {
		return "", err
	}
	switch p := req.Player; {
	case p == nil || *p == "":
		return "", doc.Errorf("player", "missing: want {\"player\": NAME}")
	case len(*p) > wire.MaxNameLen:
		return "", doc.Errorf("player", "%d bytes, want 1 to %d", len(*p), wire.MaxNameLen)
	case !utf8.ValidString(*p):
		return "", doc.Errorf("player", "not valid UTF-8")
	case strings.IndexFunc(*p, unicode.IsControl) >= 0:
		return "", doc.Errorf("player", "%q has a control character", *p)
	}
	return *req.Player, nil
}

// ConfigError is a MatchConfig value that does not do: its field path,
// spelt as a configuration file spells its keys (tick_rate,
// latency[0].up.loss), and what is wrong.
type ConfigError struct{ *cfgfile.Problem }

// Error formats e as "path: problem".
func (e *ConfigError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// within puts prefix, the path of a match, before p's path.
func within(p *cfgfile.Problem, prefix string) *cfgfile.Problem {
	if p.Path == "" {
		p.Path = prefix
		return p
	}
	return p.Within(prefix + ".")
}

// problem is a MatchConfig value that does not do.
type problem = cfgfile.Problem

var fail = cfgfile.Problemf

// cause returns err's message without the package prefixes ("server:
// config: ", "lagcomp: ") that name code rather than the file's key.
func cause(err error) string {
	return pkgPrefix.ReplaceAllString(err.Error(), "")
}

var pkgPrefix = regexp.MustCompile(`^(?:[a-z]+: )+`)

// resolved is a checked MatchConfig with what it names loaded.
type resolved struct {
	cfg    MatchConfig
	server server.Config
	params *game.Params
	grid   *nav.Grid
	// loadout is lagkit's shooter's weapons (nil for a game of its
	// own), and weapon the one its bots fight with.
	loadout []weapon.Weapon
	weapon  *weapon.Weapon
	rules   []linkRule
}

// linkRule is a LinkRule with its directions converted.
type linkRule struct {
	player   string
	up, down netem.Config
	target   time.Duration // a round trip to hold (0: none)
	emulate  bool
}

// resolve checks c, fills in its defaults and loads what it names. A
// problem's path is spelt as the configuration file spells the match's
// keys.
func (c *MatchConfig) resolve() (*resolved, *problem) {
	out := *c
	switch {
	case out.Map != "":
	case out.World != nil && out.World.Name != "":
		out.Map = out.World.Name // the map played, not metro, in logs and the API
	default:
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
	case len(out.Name) > 64:
		return nil, fail("name", "%d bytes, want at most 64", len(out.Name))
	case out.TickRate < game.MinTickRate || out.TickRate > game.MaxTickRate:
		// The server's bounds (server.Config.TickRate), checked here to
		// name the key.
		return nil, fail("tick_rate", "%d, want %s", out.TickRate, game.TickRateRange)
	case out.Seats < 1 || out.Seats > game.MaxPlayers:
		return nil, fail("seats", "%d, want %s", out.Seats, game.PlayersRange)
	case out.Bots < 0 || out.Bots > out.Seats:
		return nil, fail("bots", "%d, want 0 to seats (%d)", out.Bots, out.Seats)
	case out.Duration < 0 || time.Duration(out.Duration) > game.MaxDuration:
		return nil, fail("duration", "%v, want 0 to 24h", time.Duration(out.Duration))
	case !(out.BotSkill >= 0 && out.BotSkill <= 1):
		return nil, fail("bot_skill", "%v, want 0 to 1", out.BotSkill)
	case out.Display != "" && out.Replication != "full":
		return nil, fail("display", "replication %s draws players by its own dead reckoning: leave display out", out.Replication)
	}
	if out.Display != "" {
		if _, err := client.Displays.Lookup(out.Display); err != nil {
			return nil, fail("display", "%s", cause(err))
		}
	}
	if err := checkFeedback(out.Feedback, out.PlaceboMS, out.PlaceboScale); err != "" {
		return nil, fail("feedback", "%s", err)
	}
	m := out.World
	var err error
	switch {
	case m != nil:
	case strings.HasSuffix(out.Map, ".json"):
		m, err = world.LoadFile(out.Map)
	default:
		m, err = world.Load(out.Map)
	}
	if err != nil {
		return nil, fail("map", "%s", cause(err))
	}
	rep, err := server.ThresholdReplication(out.Replication, out.Map)
	if err != nil {
		return nil, fail("replication", "%s", cause(err))
	}
	params := game.DefaultParams()
	if out.Movement != nil {
		params = *out.Movement
		if err := params.Validate(); err != nil {
			return nil, fail("movement", "%s", cause(err))
		}
	}
	r := &resolved{cfg: out, params: &params}
	own := out.Step != nil || out.Game != nil || out.Shots != nil
	if own && len(out.Weapons) > 0 {
		// A game of its own fires none of lagkit's weapons.
		return nil, fail("weapons", "lagkit's weapons are lagkit's shooter's, and this match plays a game's own step, state or shots")
	}
	r.server = server.Config{
		Map: m, TickRate: out.TickRate, MaxClients: out.Seats, Movement: &params,
		Step: out.Step, Game: out.Game, Cmd: out.Cmd, Spawn: out.Spawn, Died: out.Died, Body: out.Body, BodyOf: out.BodyOf, Shots: out.Shots, Shape: out.Shape, MaxHealth: out.MaxHealth, Seed: out.Seed, Policy: out.Policy, Replication: rep, TimeWarp: time.Duration(out.TimeWarp),
		Rules: out.Rules, Adjust: shooter.Adjust(out.Scaling, out.AimAssist),
		Delay: delay.Config{Mode: out.Delay.Mode, Trigger: out.Delay.Trigger, Adaptation: time.Duration(out.Delay.Adaptation)},
		Settings: server.Settings{Display: out.Display, PredictionOff: out.PredictionOff,
			Feedback: out.Feedback, PlaceboMS: out.PlaceboMS, PlaceboScale: out.PlaceboScale},
		// Live players get the rewind view and other players' tracers.
		ShowRewind:  true,
		ShowTracers: true,
		Seat:        out.Seat,
	}
	if !own {
		// lagkit's shooter, with its weapons.
		if err := shooter.Arm(&r.server, out.Weapons); err != nil {
			return nil, fail("weapons", "%s", cause(err))
		}
		r.loadout = r.server.Shots.(shooter.Weapons).Loadout
		r.weapon = &r.loadout[0]
	} else {
		rifle := weapon.Rifle() // what lagkit's bots aim by, in any game
		r.weapon = &rifle
	}
	// The parts server.New checks, one at a time so that a problem names
	// its key.
	if _, err := lagcomp.New(out.Policy); err != nil {
		return nil, fail(policyKey(out.Policy, err), "%s", cause(err))
	}
	if _, err := r.server.Delay.WithDefaults(); err != nil {
		return nil, fail(delayKey(out.Delay), "%s", cause(err))
	}
	if out.Rules == nil {
		mc := mode.Config{Mode: mode.Kind(out.Mode), Duration: time.Duration(out.Duration)}
		if _, err := mode.New(mc, m, out.Seats); err != nil {
			return nil, fail("mode", "%s", cause(err))
		}
		r.server.Rules = shooter.Rules(mc)
	}
	rules, err := r.server.Rules(server.RulesEnv{Map: m, MaxClients: out.Seats, TickDuration: game.TickDuration(out.TickRate)})
	switch {
	case err != nil:
		return nil, fail("", "rules: %s", cause(err))
	case rules == nil:
		return nil, fail("", "rules: none made")
	}
	r.cfg.Mode = rules.Name()
	if err := rules.WarpCheck(); err != nil && out.TimeWarp != 0 {
		// The rules' fit with time warp, named before the policy's.
		return nil, fail("time_warp", "%s", cause(err))
	}
	if _, err := scaling.New(out.Scaling); err != nil {
		return nil, fail("scaling", "%s", cause(err))
	}
	if _, err := aimassist.New(out.AimAssist); err != nil {
		return nil, fail("aim_assist", "%s", cause(err))
	}
	// What server.New finds beyond those is the time warp's fit with
	// the rest (its window against the policy, mode and history).
	if _, err := server.New(r.server); err != nil {
		if out.TimeWarp != 0 {
			return nil, fail("time_warp", "%s", cause(err))
		}
		return nil, fail("", "%s", cause(err))
	}
	var p *problem
	if r.rules, p = linkRules(out.Latency, "latency"); p != nil {
		return nil, p
	}
	if out.Bots > 0 && out.BotPolicy == nil { // a game's bots find their own way
		if r.grid, err = nav.Build(m, &params); err != nil {
			return nil, fail("map", "%s", cause(err))
		}
	}
	return r, nil
}

// policyKey returns the key of the policy table that err, lagcomp.New's
// error about c, is about: the name when no policy has it, else the
// parameter the error names, else the table.
func policyKey(c lagcomp.Config, err error) string {
	if !lagcomp.Policies.Has(c.Name) {
		return "policy.name"
	}
	t := reflect.TypeFor[lagcomp.Config]()
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if key != "" && strings.Contains(err.Error(), ": "+key+" ") {
			return "policy." + key
		}
	}
	return "policy"
}

// delayKey returns the key of the delay table that delay.Config's check
// refuses: an unknown mode or trigger, or else the adaptation, the one
// range the table can set.
func delayKey(c DelayConfig) string {
	mode := c.Mode
	if mode == "" {
		mode = delay.None
	}
	switch {
	case !delay.Modes.Has(mode):
		return "delay.mode"
	case c.Trigger != "" && !delay.Triggers.Has(c.Trigger):
		return "delay.trigger"
	}
	return "delay.adaptation"
}

// linkRules checks and converts rules, found at path in the file ("" for
// a file of rules alone).
func linkRules(rules []LinkRule, path string) ([]linkRule, *problem) {
	if len(rules) > 1024 {
		return nil, fail(path, "%d rules, want at most 1024", len(rules))
	}
	out := make([]linkRule, len(rules))
	for i, lr := range rules {
		at := fmt.Sprintf("%s[%d].", path, i)
		if lr.Player == "" {
			return nil, fail(at+"player", "missing: give a seat number, a name or a peer")
		}
		up, p := lr.Up.netem()
		if p != nil {
			return nil, p.Within(at + "up.")
		}
		down, p := lr.Down.netem()
		if p != nil {
			return nil, p.Within(at + "down.")
		}
		switch {
		case !(lr.TargetRTTMS >= 0 && lr.TargetRTTMS <= 5000):
			return nil, fail(at+"target_rtt_ms", "%v, want 0 to 5000", lr.TargetRTTMS)
		case lr.TargetRTTMS > 0 && (lr.Up.LatencyMS != 0 || lr.Down.LatencyMS != 0):
			return nil, fail(at+"target_rtt_ms", "with a latency_ms: the target sets the latency")
		}
		out[i] = linkRule{player: lr.Player, up: up, down: down, target: msDur(lr.TargetRTTMS),
			emulate: !lr.Up.zero() || !lr.Down.zero() || lr.TargetRTTMS > 0}
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

// checkFeedback returns what is wrong with a feedback and its placebo's
// settings, or "".
func checkFeedback(name string, ms, scale float64) string {
	if name != "" {
		if _, err := client.Feedbacks.Lookup(name); err != nil {
			return err.Error()
		}
	}
	switch {
	case (ms != 0 || scale != 0) && name != "placebo":
		return "placebo_ms and placebo_scale apply only to feedback placebo"
	case !(ms >= 0 && ms <= 65535):
		return fmt.Sprintf("placebo_ms %v, want 0 to 65535", ms)
	case !(scale >= 0 && scale <= 65.535):
		return fmt.Sprintf("placebo_scale %v, want 0 to 65.535", scale)
	}
	return ""
}

// Package scenario runs scripted, reproducible hit registration
// situations through lagkit's real server, clients and emulated links: a
// scenario file names a map, players with their links and timed actions
// (walk to, crouch, aim at a player or a point, fire), the lag
// compensation policy, and optionally the outcome expected under each
// policy. The scenario is data; a test is one loop over the files.
//
// # File format
//
// A scenario is a TOML file:
//
//	name = "cover dash"
//	description = "A 20 ms victim runs into cover while a 250 ms shooter fires."
//	map = "maps/range.json"  # a map file relative to this file, or a shipped map's name
//	tick_rate = 64           # server ticks per second (default 64)
//	duration = "4s"          # simulated time (default 5s)
//	seed = 1                 # link and server seed (default 1)
//
//	[policy]                 # lag compensation (default tlc), as in a match configuration
//	name = "clc"
//	max_rtt_ms = 200
//
//	[[player]]
//	name = "shooter"         # unique
//	rtt_ms = 250             # round trip, split evenly between directions
//	jitter_ms = 0            # delay standard deviation per direction
//	loss = 0                 # loss probability per direction
//	pos = [0, 0, 0]          # where the player is placed on joining (feet)
//	yaw_deg = 90             # initial view direction, 0 along +X, counter-clockwise
//	appeals = "honest"       # honest (default), deny (denies every hit), silent (never answers)
//
//	[[player.do]]            # timed actions, in any order
//	at = "0.5s"              # simulated time, as the player's client ticks
//	aim_at = "victim"        # keep aiming at that player's torso as this client draws it
//	[[player.do]]
//	at = "2.245s"
//	fire = 1                 # fire this many shots (the trigger is held until they are fired)
//
//	[[expect]]               # the outcome of a shot under a policy
//	policy = "tlc"
//	shot = 1                 # the first shot fired in the scenario
//	victim = "victim"        # "" for a miss
//	registered = true
//	sbc = true
//	appeal = "none"          # none, confirmed, denied_upheld, denied_refuted, timeout
//
// Action fields (any combination per entry): move_to = [x, y] walks
// there and stops; stop = true stops walking; stance = "crouch" or
// "stand"; aim_at = "name" tracks a player (aim_part picks the body part,
// default torso); aim_point = [x, y, z] aims at a point; yaw_deg and
// pitch_deg set the view; fire = n fires n shots. Expectation fields other
// than policy and shot are optional: only those given are checked.
package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/world"
)

// File is a parsed scenario.
type File struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Map         string         `toml:"map"`
	TickRate    int            `toml:"tick_rate"`
	Duration    Duration       `toml:"duration"`
	Seed        uint64         `toml:"seed"`
	Policy      lagcomp.Config `toml:"policy"`
	Players     []Player       `toml:"player"`
	Expect      []Expect       `toml:"expect"`

	// path is where the file was read from; world the loaded map.
	path  string
	world *world.Map
}

// Player is one scripted participant.
type Player struct {
	Name     string     `toml:"name"`
	RTTms    float64    `toml:"rtt_ms"`
	JitterMS float64    `toml:"jitter_ms"`
	Loss     float64    `toml:"loss"`
	Pos      [3]float64 `toml:"pos"`
	YawDeg   float64    `toml:"yaw_deg"`
	Appeals  string     `toml:"appeals"`
	Do       []Action   `toml:"do"`
}

// Action is one timed step of a player's script.
type Action struct {
	At       Duration    `toml:"at"`
	MoveTo   *[2]float64 `toml:"move_to"`
	Stop     bool        `toml:"stop"`
	Stance   string      `toml:"stance"`
	AimAt    string      `toml:"aim_at"`
	AimPart  string      `toml:"aim_part"`
	AimPoint *[3]float64 `toml:"aim_point"`
	YawDeg   *float64    `toml:"yaw_deg"`
	PitchDeg *float64    `toml:"pitch_deg"`
	Fire     int         `toml:"fire"`
}

// Expect is the expected outcome of one shot under one policy.
type Expect struct {
	Policy     string  `toml:"policy"`
	Shot       int     `toml:"shot"`
	Victim     *string `toml:"victim"`
	Hit        *bool   `toml:"hit"`
	Registered *bool   `toml:"registered"`
	SBC        *bool   `toml:"sbc"`
	Appeal     *string `toml:"appeal"`
}

// Duration is a time.Duration written as a string such as "2.5s".
type Duration struct{ time.Duration }

// UnmarshalText parses a duration such as "250ms" or "2.5s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, such as 250ms or 2.5s", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as time.Duration.String does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Load reads and checks the scenario file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks a scenario read from path (used to name it in errors and
// to find a map file given relative to it).
func Parse(path string, data []byte) (*File, error) {
	var f File
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			e := sm.Errors[0]
			row, col := e.Position()
			return nil, fmt.Errorf("%s:%d:%d: unknown field %q", path, row, col, strings.Join(e.Key(), "."))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", path, row, col, de.Error())
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f.path = path
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

func (f *File) check() error {
	if f.Name == "" {
		return errors.New("name: missing")
	}
	if f.Map == "" {
		return errors.New("map: missing")
	}
	m, err := f.loadMap()
	if err != nil {
		return fmt.Errorf("map: %w", err)
	}
	f.world = m
	if f.TickRate == 0 {
		f.TickRate = 64
	}
	if f.TickRate < 20 || f.TickRate > 128 {
		return fmt.Errorf("tick_rate: %d outside 20..128", f.TickRate)
	}
	if f.Duration.Duration == 0 {
		f.Duration.Duration = 5 * time.Second
	}
	if f.Duration.Duration < 0 || f.Duration.Duration > time.Hour {
		return fmt.Errorf("duration: %v outside 0..1h", f.Duration)
	}
	if f.Seed == 0 {
		f.Seed = 1
	}
	if f.Policy.Name == "" {
		f.Policy.Name = "tlc"
	}
	if _, err := lagcomp.New(f.Policy); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if len(f.Players) == 0 || len(f.Players) > 64 {
		return fmt.Errorf("player: %d players, want 1 to 64", len(f.Players))
	}
	names := map[string]bool{}
	for i, p := range f.Players {
		if p.Name == "" || names[p.Name] {
			return fmt.Errorf("player[%d].name: %q is empty or not unique", i, p.Name)
		}
		names[p.Name] = true
	}
	for i := range f.Players {
		if err := f.Players[i].check(names, m); err != nil {
			return fmt.Errorf("player[%d] (%s).%w", i, f.Players[i].Name, err)
		}
	}
	for i, e := range f.Expect {
		if _, err := lagcomp.New(lagcomp.Config{Name: e.Policy}); err != nil {
			return fmt.Errorf("expect[%d].policy: %w", i, err)
		}
		if e.Shot < 1 {
			return fmt.Errorf("expect[%d].shot: %d, want 1 or more", i, e.Shot)
		}
		if e.Victim != nil && *e.Victim != "" && !names[*e.Victim] {
			return fmt.Errorf("expect[%d].victim: no player %q", i, *e.Victim)
		}
		if e.Appeal != nil && !slices.Contains(appealNames, *e.Appeal) {
			return fmt.Errorf("expect[%d].appeal: %q, want one of %v", i, *e.Appeal, appealNames)
		}
	}
	return nil
}

var appealNames = []string{"none", "confirmed", "denied_upheld", "denied_refuted", "timeout"}

func (p *Player) check(names map[string]bool, m *world.Map) error {
	for k, v := range map[string]float64{"rtt_ms": p.RTTms, "jitter_ms": p.JitterMS} {
		if !(v >= 0 && v <= 10000) {
			return fmt.Errorf("%s: %v outside 0..10000", k, v)
		}
	}
	if !(p.Loss >= 0 && p.Loss <= 1) {
		return fmt.Errorf("loss: %v outside 0..1", p.Loss)
	}
	if !finite(p.Pos[:]...) || !m.Bounds.Contains(vec(p.Pos)) {
		return fmt.Errorf("pos: %v is not inside the map's bounds", p.Pos)
	}
	if !finite(p.YawDeg) {
		return fmt.Errorf("yaw_deg: %v is not finite", p.YawDeg)
	}
	switch p.Appeals {
	case "", "honest", "deny", "silent":
	default:
		return fmt.Errorf("appeals: %q, want honest, deny or silent", p.Appeals)
	}
	for i, a := range p.Do {
		if err := a.check(names); err != nil {
			return fmt.Errorf("do[%d].%w", i, err)
		}
	}
	return nil
}

func (a *Action) check(names map[string]bool) error {
	if a.At.Duration < 0 {
		return fmt.Errorf("at: %v is negative", a.At)
	}
	if a.MoveTo != nil && !finite(a.MoveTo[:]...) {
		return fmt.Errorf("move_to: %v is not finite", *a.MoveTo)
	}
	if a.AimPoint != nil && !finite(a.AimPoint[:]...) {
		return fmt.Errorf("aim_point: %v is not finite", *a.AimPoint)
	}
	if a.AimAt != "" && !names[a.AimAt] {
		return fmt.Errorf("aim_at: no player %q", a.AimAt)
	}
	if _, ok := partByName(a.AimPart); !ok {
		return fmt.Errorf("aim_part: %q, want head, torso, leg_l or leg_r", a.AimPart)
	}
	switch a.Stance {
	case "", "stand", "crouch":
	default:
		return fmt.Errorf("stance: %q, want stand or crouch", a.Stance)
	}
	if a.Fire < 0 || a.Fire > 1000 {
		return fmt.Errorf("fire: %d outside 0..1000", a.Fire)
	}
	for name, v := range map[string]*float64{"yaw_deg": a.YawDeg, "pitch_deg": a.PitchDeg} {
		if v != nil && !finite(*v) {
			return fmt.Errorf("%s: %v is not finite", name, *v)
		}
	}
	return nil
}

func partByName(name string) (game.PartKind, bool) {
	if name == "" {
		return game.PartTorso, true
	}
	for k := range game.PartKind(game.NumParts) {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// loadMap loads the scenario's map: a file relative to the scenario, or a
// shipped map.
func (f *File) loadMap() (*world.Map, error) {
	if strings.HasSuffix(f.Map, ".json") {
		return world.LoadFile(filepath.Join(filepath.Dir(f.path), f.Map))
	}
	return world.Load(f.Map)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

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
//	map = "maps/range.json"  # a map file (absolute, or relative to this file), or a shipped map's name
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
//	interp_ms = 100          # the client's interpolation delay, 1 to 500 (default 100)
//	pos = [0, 0, 0]          # where the player is placed on joining (feet)
//	yaw_deg = 90             # view direction on joining, 0 along +X, counter-clockwise;
//	                         # it holds until an action turns the player
//	appeals = "honest"       # honest (default), deny (denies every hit), silent (never answers)
//
//	[[player.do]]            # timed actions, in any order
//	at = "0.5s"              # simulated time, as the player's client ticks
//	aim_at = "victim"        # keep aiming at that player's torso as this client draws it
//	[[player.do]]
//	at = "2.245s"
//	fire = 1                 # fire this many shots (the trigger is held until they are fired)
//
//	[[expect]]               # the outcome under a policy
//	policy = "tlc"
//	shots = 1                # the number of shots fired
//	shot = 1                 # the shot the fields below are about: the first fired
//	victim = "victim"        # "" for a miss
//	registered = true
//	sbc = true
//	appeal = "none"          # none, confirmed, denied_upheld, denied_refuted, timeout
//	rewind_ms = [340, 375]   # how far the server rewound, low to high inclusive
//	rollback_m = [1.3, 1.55] # how far the victim was moved back, low to high inclusive
//
// Action fields (any combination per entry): move_to = [x, y] walks
// there and stops; stop = true stops walking; stance = "crouch" or
// "stand"; aim_at = "name" tracks a player (aim_part picks the body part,
// default torso); aim_point = [x, y, z] aims at a point; yaw_deg and
// pitch_deg set the view; fire = n fires n shots. An expectation needs
// shot, shots or both; the fields about one shot need shot, and only
// those given are checked.
//
// Unknown keys and keys given twice are errors, and a scenario file may
// be at most 256 KiB (MaxFileSize). Every error names the file, line and
// column, the key as the file spells it and the problem:
//
//	cover-dash.toml:17:1: player[0].rtt_ms: -5, want 0 to 10000
package scenario

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cfgfile"
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
	Name     string  `toml:"name"`
	RTTms    float64 `toml:"rtt_ms"`
	JitterMS float64 `toml:"jitter_ms"`
	Loss     float64 `toml:"loss"`
	// InterpMS is the client's interpolation delay in ms (default: the
	// client's, 100 ms).
	InterpMS *float64   `toml:"interp_ms"`
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

// Expect is the expected outcome under one policy: of one shot (Shot),
// and or of the number of shots fired (Shots).
type Expect struct {
	Policy string `toml:"policy"`
	// Shot numbers the shot checked, from 1 (0: none).
	Shot int `toml:"shot"`
	// Shots is the number of shots the scenario fires.
	Shots      *int    `toml:"shots"`
	Victim     *string `toml:"victim"`
	Hit        *bool   `toml:"hit"`
	Registered *bool   `toml:"registered"`
	SBC        *bool   `toml:"sbc"`
	Appeal     *string `toml:"appeal"`
	// RewindMS and RollbackM bound the shot's rewind and rollback,
	// [low, high] inclusive.
	RewindMS  *[2]float64 `toml:"rewind_ms"`
	RollbackM *[2]float64 `toml:"rollback_m"`
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

// MaxFileSize is the largest scenario file read: a scenario of 64
// players with long scripts fits in a few tens of KiB.
const MaxFileSize = 256 << 10

var scenarioFile = cfgfile.Kind{Name: "scenario file", MaxSize: MaxFileSize}

// Load reads and checks the scenario file at path.
func Load(path string) (*File, error) {
	data, err := scenarioFile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks a scenario read from path (used to name it in errors and
// to find a map file given relative to it). Every error it returns is a
// *cfgfile.Error: "path:line:col: field.path: problem".
func Parse(path string, data []byte) (*File, error) {
	var f File
	doc, err := scenarioFile.DecodeTOML(path, data, &f)
	if err != nil {
		return nil, err
	}
	f.path = path
	if p := f.check(); p != nil {
		return nil, doc.Locate(p)
	}
	return &f, nil
}

// problem is a value of a scenario file that does not do, at its path.
type problem = cfgfile.Problem

var fail = cfgfile.Problemf

// Limits on a scenario's numbers.
const (
	maxPlayers = 64
	maxRTTms   = 10000
	// maxInterpMS is the server's default bound on a client's
	// interpolation delay (server.Config.InterpMax): a longer delay would
	// be clamped, and the scenario would not mean what it says.
	maxInterpMS = 500
	maxFire     = 1000
	maxShots    = 100000
)

func (f *File) check() *problem {
	if f.Name == "" {
		return fail("name", "missing")
	}
	if f.Map == "" {
		return fail("map", "missing")
	}
	m, err := f.loadMap()
	if err != nil {
		return fail("map", "%s", strings.TrimPrefix(err.Error(), "world: "))
	}
	f.world = m
	if f.TickRate == 0 {
		f.TickRate = 64
	}
	if f.TickRate < game.MinTickRate || f.TickRate > game.MaxTickRate {
		return fail("tick_rate", "%d, want %s", f.TickRate, game.TickRateRange)
	}
	if f.Duration.Duration == 0 {
		f.Duration.Duration = 5 * time.Second
	}
	if f.Duration.Duration < 0 || f.Duration.Duration > time.Hour {
		return fail("duration", "%v, want 0 to 1h", f.Duration)
	}
	if f.Seed == 0 {
		f.Seed = 1
	}
	if f.Policy.Name == "" {
		f.Policy.Name = "tlc"
	}
	if _, err := lagcomp.New(f.Policy); err != nil {
		return fail("policy", "%s", strings.TrimPrefix(err.Error(), "lagcomp: "))
	}
	if len(f.Players) == 0 || len(f.Players) > maxPlayers {
		return fail("player", "%d players, want 1 to %d", len(f.Players), maxPlayers)
	}
	names := map[string]bool{}
	for i, p := range f.Players {
		if p.Name == "" {
			return fail(fmt.Sprintf("player[%d].name", i), "missing")
		}
		if names[p.Name] {
			return fail(fmt.Sprintf("player[%d].name", i), "%q is already the name of another player", p.Name)
		}
		names[p.Name] = true
	}
	for i := range f.Players {
		if p := f.Players[i].check(names, m); p != nil {
			return p.Within(fmt.Sprintf("player[%d].", i))
		}
	}
	for i := range f.Expect {
		if p := f.Expect[i].check(names); p != nil {
			return p.Within(fmt.Sprintf("expect[%d]", i))
		}
	}
	return nil
}

var appealNames = []string{"none", "confirmed", "denied_upheld", "denied_refuted", "timeout"}

func (p *Player) check(names map[string]bool, m *world.Map) *problem {
	for _, c := range []struct {
		key string
		v   float64
	}{{"rtt_ms", p.RTTms}, {"jitter_ms", p.JitterMS}} {
		if !(c.v >= 0 && c.v <= maxRTTms) {
			return fail(c.key, "%v, want 0 to %d", c.v, maxRTTms)
		}
	}
	if !(p.Loss >= 0 && p.Loss <= 1) {
		return fail("loss", "%v, want 0 to 1", p.Loss)
	}
	if p.InterpMS != nil && !(*p.InterpMS >= 1 && *p.InterpMS <= maxInterpMS) {
		return fail("interp_ms", "%v, want 1 to %d", *p.InterpMS, maxInterpMS)
	}
	if !finite(p.Pos[:]...) || !m.Bounds.Contains(vec(p.Pos)) {
		return fail("pos", "%v is not inside the map's bounds", p.Pos)
	}
	if !finite(p.YawDeg) {
		return fail("yaw_deg", "%v is not finite", p.YawDeg)
	}
	switch p.Appeals {
	case "", "honest", "deny", "silent":
	default:
		return fail("appeals", "%q, want honest, deny or silent", p.Appeals)
	}
	for i, a := range p.Do {
		if prob := a.check(names); prob != nil {
			return prob.Within(fmt.Sprintf("do[%d].", i))
		}
	}
	return nil
}

func (a *Action) check(names map[string]bool) *problem {
	if a.At.Duration < 0 {
		return fail("at", "%v is negative", a.At)
	}
	if a.MoveTo != nil && !finite(a.MoveTo[:]...) {
		return fail("move_to", "%v is not finite", *a.MoveTo)
	}
	if a.AimPoint != nil && !finite(a.AimPoint[:]...) {
		return fail("aim_point", "%v is not finite", *a.AimPoint)
	}
	if a.AimAt != "" && !names[a.AimAt] {
		return fail("aim_at", "no player %q", a.AimAt)
	}
	if _, ok := partByName(a.AimPart); !ok {
		return fail("aim_part", "%q, want head, torso, leg_l or leg_r", a.AimPart)
	}
	switch a.Stance {
	case "", "stand", "crouch":
	default:
		return fail("stance", "%q, want stand or crouch", a.Stance)
	}
	if a.Fire < 0 || a.Fire > maxFire {
		return fail("fire", "%d, want 0 to %d", a.Fire, maxFire)
	}
	if a.YawDeg != nil && !finite(*a.YawDeg) {
		return fail("yaw_deg", "%v is not finite", *a.YawDeg)
	}
	if a.PitchDeg != nil && !finite(*a.PitchDeg) {
		return fail("pitch_deg", "%v is not finite", *a.PitchDeg)
	}
	return nil
}

// check checks an expectation; the paths of its problems start with
// ".", to follow "expect[i]".
func (e *Expect) check(names map[string]bool) *problem {
	if _, err := lagcomp.New(lagcomp.Config{Name: e.Policy}); err != nil {
		return fail(".policy", "%s", strings.TrimPrefix(err.Error(), "lagcomp: "))
	}
	if e.Shots != nil && (*e.Shots < 0 || *e.Shots > maxShots) {
		return fail(".shots", "%d, want 0 to %d", *e.Shots, maxShots)
	}
	if e.Shot == 0 {
		if e.Shots == nil {
			return fail("", "want shot (the shot to check) or shots (how many are fired)")
		}
		if e.Victim != nil || e.Hit != nil || e.Registered != nil || e.SBC != nil || e.Appeal != nil || e.RewindMS != nil || e.RollbackM != nil {
			return fail(".shot", "missing: victim, hit, registered, sbc, appeal, rewind_ms and rollback_m are about one shot")
		}
	}
	if e.Shot < 0 || e.Shot > maxShots {
		return fail(".shot", "%d, want 1 to %d", e.Shot, maxShots)
	}
	if e.Victim != nil && *e.Victim != "" && !names[*e.Victim] {
		return fail(".victim", "no player %q", *e.Victim)
	}
	if e.Appeal != nil && !slices.Contains(appealNames, *e.Appeal) {
		return fail(".appeal", "%q, want one of %s", *e.Appeal, strings.Join(appealNames, ", "))
	}
	for _, r := range []struct {
		key string
		v   *[2]float64
	}{{".rewind_ms", e.RewindMS}, {".rollback_m", e.RollbackM}} {
		if r.v != nil && !(finite(r.v[:]...) && r.v[0] >= 0 && r.v[0] <= r.v[1]) {
			return fail(r.key, "[%v, %v], want [low, high] with 0 <= low <= high", r.v[0], r.v[1])
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

// loadMap loads the scenario's map: a map file (.json), at an absolute
// path or relative to the scenario file, or a shipped map by name.
func (f *File) loadMap() (*world.Map, error) {
	if strings.HasSuffix(f.Map, ".json") {
		return world.LoadFile(mapPath(f.path, f.Map))
	}
	return world.Load(f.Map)
}

// mapPath resolves a scenario's map file: an absolute path stays as it
// is; a relative one is relative to the scenario file's folder.
func mapPath(scenarioPath, mapFile string) string {
	if filepath.IsAbs(mapFile) {
		return mapFile
	}
	return filepath.Join(filepath.Dir(scenarioPath), mapFile)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

package lagcomp

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/registry"
)

// Policy is a lag compensation policy: whether a shot is tested against
// the world its shooter saw (rewound to the target time) or against the
// present, and what becomes of a hit. Policies are chosen by name in the
// match configuration (see New); adding one takes one file and one line in
// the registry.
type Policy interface {
	// Name is the policy's name in configurations and records.
	Name() string
	// Traits declares what the policy may do, for the server to check
	// and size by rather than by the policy's name.
	Traits() Traits
	// Rewind reports whether shot s is tested at its target time (true)
	// or against the present.
	Rewind(s *Shot) bool
	// Judge decides what becomes of a hit the test found.
	Judge(s *Shot, h *Found) Verdict
}

// Traits are what a policy declares about its behaviour: a server checks
// a combination by them (time warp needs a policy that never rewinds and
// never appeals) and sizes what it needs by them (the appeal window),
// so a new policy is taken for what it does, not for its name.
type Traits struct {
	// Rewinds reports whether Rewind may return true.
	Rewinds bool
	// AppealWindow is how long the victim of a hit Judge made
	// provisional (Appeal) may answer; silence after it counts as a
	// confirmation. A policy that never appeals declares 0.
	AppealWindow time.Duration
	// LowPing is the round trip at or under which the policy judges a
	// victim apart (alc's appeals, alc-predict's predicted pose); 0 for
	// a policy that judges every victim alike. A study whose victims
	// all play above it cannot tell the policy from tlc.
	LowPing time.Duration
}

// Shot is what the server knows of a shot when a policy looks at it.
type Shot struct {
	Shooter int
	// Now is the server time of the tick resolving the shot, and Target
	// the time the shooter's view showed (already checked against the
	// server's estimate and clamped to max_unlag).
	Now, Target time.Duration
	// ShooterRTT is the server's measurement of the shooter's round trip.
	ShooterRTT time.Duration
	// Eye is the shooter's eye when it fired.
	Eye geom.Vec3
}

// Found is a hit as a policy judges it.
type Found struct {
	Hit
	// Rewound reports whether the test ran at the shot's target time.
	Rewound bool
	// RollbackM is the distance along the ground between the victim's
	// tested and current positions (0 when not rewound).
	RollbackM float64
	// VictimRTT is the server's measurement of the victim's round trip.
	VictimRTT time.Duration
	// VictimNow is the victim's current authoritative state.
	VictimNow game.PlayerState
	Grid      *geom.Grid
	Params    *game.Params
	// OnBody reports a hit on a game's body (a Rewinder's RewindHit):
	// Local is then in the body's frame, not in a humanoid part's.
	OnBody bool
}

// PoseOf is the pose a player or entity in state st is recorded at: its
// position, and its yaw in radians.
func PoseOf(st game.PlayerState) Pose {
	return Pose{Pos: st.Pos, Yaw: game.AngleToRad(int32(st.Yaw)), Teleport: st.Teleport}
}

// Covered is SBC detection of the hit on its victim in state st, seen
// from eye: BehindCover on the humanoid part hit, or for a hit on a
// game's body (OnBody) BehindCoverBody on the body at st.
func (f *Found) Covered(st game.PlayerState, eye geom.Vec3) bool {
	if f.OnBody {
		return BehindCoverBody(PoseOf(st), f.Local, eye, f.Grid)
	}
	return BehindCover(st, f.Part, f.Local, eye, f.Grid, f.Params)
}

// Verdict is what a policy decides for a hit.
type Verdict uint8

// Verdicts.
const (
	// Register applies the hit now.
	Register Verdict = iota
	// Appeal makes the hit provisional: the victim's client is asked to
	// confirm or deny it (alc).
	Appeal
	// Discard drops the hit.
	Discard
	// Unrewind tests the shot again against the present, and registers
	// what that finds (clc's rollback-distance cap).
	Unrewind
)

// Config selects a policy and its parameters, as a match configuration
// states them. Zero parameters take their defaults.
type Config struct {
	Name string `toml:"name" json:"name"`
	// MaxRTTms is clc's round-trip cap: shooters above it get no
	// compensation (default 250 ms, as Battlefield 4 and Overwatch; a
	// negative value turns the cap off).
	MaxRTTms float64 `toml:"max_rtt_ms" json:"max_rtt_ms"`
	// MaxRollbackM is clc's rollback-distance cap (0: none), and
	// MaxRollbackFastM the larger cap for victims of the fast class,
	// those moving faster than FastSpeed m/s (defaults: 1.5 times the cap,
	// and 5 m/s, above walking speed).
	MaxRollbackM     float64 `toml:"max_rollback_m" json:"max_rollback_m"`
	MaxRollbackFastM float64 `toml:"max_rollback_fast_m" json:"max_rollback_fast_m"`
	FastSpeed        float64 `toml:"fast_speed_mps" json:"fast_speed_mps"`
	// LowPingMS is alc's appeal threshold: victims whose round trip is at
	// most this may appeal, within twice this time (default 50 ms).
	LowPingMS float64 `toml:"low_ping_ms" json:"low_ping_ms"`
}

// Policies is the registry of lag compensation policies, by name, in the
// order help lists them.
var Policies = registry.New("policy",
	registry.Entry[func(Config) (Policy, error)]{Name: "none", Item: newNone},
	registry.Entry[func(Config) (Policy, error)]{Name: "tlc", Item: newTLC},
	registry.Entry[func(Config) (Policy, error)]{Name: "clc", Item: newCLC},
	registry.Entry[func(Config) (Policy, error)]{Name: "alc", Item: newALC},
	registry.Entry[func(Config) (Policy, error)]{Name: "alc-predict", Item: newALCPredict},
)

// New returns the policy cfg names, with its parameters checked.
func New(cfg Config) (Policy, error) {
	mk, err := Policies.Lookup(cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("lagcomp: %w", err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"max_rtt_ms", cfg.MaxRTTms}, {"max_rollback_m", cfg.MaxRollbackM},
		{"max_rollback_fast_m", cfg.MaxRollbackFastM}, {"fast_speed_mps", cfg.FastSpeed},
		{"low_ping_ms", cfg.LowPingMS},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return nil, fmt.Errorf("lagcomp: policy %s: %s is %v, want a finite number", cfg.Name, f.name, f.v)
		}
	}
	return mk(cfg)
}

// Package aimassist is aim assistance, a world adjustment ([taxonomy]):
// the server lets a shot that missed every hitbox hit a player near its
// line of fire. Vicencio-Moreira et al. found bullet magnetism and an
// area cursor the most effective and least noticeable of the assists
// they tried in 3D shooting ([vicencio-assist]).
//
// Modes (Modes lists them): none; magnetism, which bends a near miss
// within an angular cone, widened with the shooter's round trip, onto
// the nearest hitbox when the line of fire to it is clear; and
// area-cursor, which treats the crosshair as a disc of fixed angular
// radius and hits the part whose centre lies nearest its middle within
// it. The package is sans-IO: the server asks a Mode for its cone and
// calls Trace with its own poses.
package aimassist

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/registry"
	"github.com/lagkit/lagkit/lagcomp"
)

// Mode decides how a near miss is assisted. Modes are chosen by name
// (Config.Name); adding one takes one file and one line in the registry.
type Mode interface {
	// Name is the mode's name in configurations and records.
	Name() string
	// Cone returns the angular radius (radians) around a shot's line
	// within which a part may be hit, for a shooter of round trip rtt,
	// and whether the part's centre (true) or its nearest surface
	// (false) is measured.
	Cone(rtt time.Duration) (radius float64, centre bool)
}

// Config selects a mode and its parameters. Zero parameters take their
// defaults.
type Config struct {
	Name string `toml:"name" json:"name"`
	// ConeDeg is magnetism's cone at no latency (default 0.5 degrees),
	// and PerSecondDeg how much it widens per second of round trip
	// (default 2.5: 1 degree at 200 ms).
	ConeDeg      float64 `toml:"cone_deg" json:"cone_deg,omitempty"`
	PerSecondDeg float64 `toml:"per_second_deg" json:"per_second_deg,omitempty"`
	// AreaDeg is the area cursor's radius (default 1 degree).
	AreaDeg float64 `toml:"area_deg" json:"area_deg,omitempty"`
}

// Mode names.
const (
	None       = "none"
	Magnetism  = "magnetism"
	AreaCursor = "area-cursor"
)

// Modes is the registry of aim assistance modes, by name, in the order
// help lists them.
var Modes = registry.New("aim assistance mode",
	registry.Entry[func(Config) (Mode, error)]{Name: None, Item: newNone},
	registry.Entry[func(Config) (Mode, error)]{Name: Magnetism, Item: newMagnetism},
	registry.Entry[func(Config) (Mode, error)]{Name: AreaCursor, Item: newAreaCursor},
)

// MaxConeDeg bounds every cone: beyond it the game aims for the player.
const MaxConeDeg = 10.0

// New returns the mode cfg names (none when empty), with its parameters
// checked.
func New(cfg Config) (Mode, error) {
	if cfg.Name == "" {
		cfg.Name = None
	}
	mk, err := Modes.Lookup(cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("aimassist: %w", err)
	}
	for _, f := range []struct {
		name string
		v    float64
		hi   float64
	}{{"cone_deg", cfg.ConeDeg, MaxConeDeg}, {"per_second_deg", cfg.PerSecondDeg, 100}, {"area_deg", cfg.AreaDeg, MaxConeDeg}} {
		if !(f.v >= 0 && f.v <= f.hi) {
			return nil, fmt.Errorf("aimassist: mode %s: %s is %v, want 0 to %v", cfg.Name, f.name, f.v, f.hi)
		}
	}
	return mk(cfg)
}

func deg(d float64) float64 { return d * math.Pi / 180 }

// Target is a player a shot may be assisted onto: its id and its pose
// at the time the shot is tested.
type Target = lagcomp.Target

// Trace finds the part of the targets nearest ray r within radius
// (radians) of its line, measured to the part's centre (centre) or to
// its nearest surface, no farther than maxDist and with the line of fire
// from r's origin to the part clear of grid's boxes. The hit lands on
// the part's surface point nearest the ray.
func Trace(r geom.Ray, maxDist float64, targets []Target, radius float64, centre bool, grid *geom.Grid, p *game.Params) (lagcomp.Hit, bool) {
	var best lagcomp.Hit
	bestAngle := radius
	found := false
	for _, t := range targets {
		parts := game.Hitboxes(t.Pose, p)
		for i := range parts {
			part := &parts[i]
			// The point of the part's axis nearest the ray, and the ray's
			// point nearest it.
			axis := closestOnSegment(part.Shape.A, part.Shape.B, r)
			along := axis.Sub(r.Origin).Dot(r.Dir)
			if along <= 0 || along > maxDist {
				continue
			}
			off := axis.Sub(r.Origin.AddScaled(r.Dir, along))
			gap := off.Len()
			if !centre {
				gap = math.Max(0, gap-part.Shape.R)
			}
			angle := math.Atan2(gap, along)
			if angle > bestAngle {
				continue
			}
			// The surface point facing the ray.
			pt := axis
			if n := off.Len(); n > 0 {
				pt = axis.Sub(off.Scale(math.Min(part.Shape.R, n) / n))
			}
			if grid.SegmentBlocked(r.Origin, pt) {
				continue
			}
			best = lagcomp.Hit{Victim: t.ID, Part: part.Kind, Dist: pt.Sub(r.Origin).Len(), Point: pt, Local: part.ToLocal(pt), Pose: t.Pose}
			bestAngle, found = angle, true
		}
	}
	return best, found
}

// closestOnSegment returns the point of segment ab nearest the line of
// ray r.
func closestOnSegment(a, b geom.Vec3, r geom.Ray) geom.Vec3 {
	d := b.Sub(a)
	dd := d.Dot(d)
	if dd == 0 {
		return a
	}
	// Minimise |a + s d - (o + t u)| over s in [0, 1], t free (u unit).
	w := a.Sub(r.Origin)
	du := d.Dot(r.Dir)
	den := dd - du*du
	s := 0.0
	if den > 1e-12 {
		s = (du*w.Dot(r.Dir) - w.Dot(d)) / den
	}
	s = math.Min(1, math.Max(0, s))
	return a.AddScaled(d, s)
}

package wire

import (
	"math"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

const maxPos = MaxCoord * game.PosQuantum

func projectileEvents() []ProjectileEvent {
	return []ProjectileEvent{
		{},
		{ID: 1, Owner: 3, Weapon: 2, Tick: 6400, Origin: geom.V(1.5, -2.25, 1.6484375), Velocity: geom.V(59.5, -7.25, 0.125)},
		{ID: math.MaxUint32, Owner: 255, Weapon: 255, Tick: math.MaxUint32,
			Origin: geom.V(maxPos, -maxPos, maxPos), Velocity: geom.V(-MaxCoord*game.VelQuantum, 0, MaxCoord*game.VelQuantum)},
	}
}

func explosionEvents() []ExplosionEvent {
	return []ExplosionEvent{
		{},
		{ID: 9, Tick: 7000, Pos: geom.V(10, 0.5, 0.0078125), Radius: 4},
		{ID: math.MaxUint32, Tick: math.MaxUint32, Pos: geom.V(-maxPos, maxPos, -maxPos), Radius: MaxExplosionRadius},
	}
}

func TestProjectileEventsRoundTrip(t *testing.T) {
	for _, e := range projectileEvents() {
		b, err := AppendProjectileEvent(nil, &e)
		if err != nil || len(b) > 32 {
			t.Fatalf("%+v: %d bytes, %v (want at most 32)", e, len(b), err)
		}
		var got ProjectileEvent
		if err := DecodeProjectileEvent(b, &got); err != nil || got != e {
			t.Fatalf("decoded %+v, %v; want %+v", got, err, e)
		}
	}
	for _, e := range explosionEvents() {
		b, err := AppendExplosionEvent(nil, &e)
		if err != nil || len(b) > 24 {
			t.Fatalf("%+v: %d bytes, %v (want at most 24)", e, len(b), err)
		}
		var got ExplosionEvent
		if err := DecodeExplosionEvent(b, &got); err != nil || got != e {
			t.Fatalf("decoded %+v, %v; want %+v", got, err, e)
		}
	}
	// A radius off the grid is rounded to it.
	b, _ := AppendExplosionEvent(nil, &ExplosionEvent{Radius: 1.0005})
	var got ExplosionEvent
	if err := DecodeExplosionEvent(b, &got); err != nil || got.Radius != 1 {
		t.Fatalf("radius 1.0005 decoded as %v, %v; want 1", got.Radius, err)
	}
}

func TestProjectileEventErrors(t *testing.T) {
	tests := []struct {
		name string
		enc  func() error
		want string
	}{
		{"origin off grid", func() error {
			_, err := AppendProjectileEvent(nil, &ProjectileEvent{Origin: geom.V(0.001, 0, 0)})
			return err
		}, "wire: projectile event: origin"},
		{"velocity out of range", func() error {
			_, err := AppendProjectileEvent(nil, &ProjectileEvent{Velocity: geom.V(0, 0, 2*MaxCoord*game.VelQuantum)})
			return err
		}, "wire: projectile event: velocity"},
		{"velocity NaN", func() error {
			_, err := AppendProjectileEvent(nil, &ProjectileEvent{Velocity: geom.V(math.NaN(), 0, 0)})
			return err
		}, "wire: projectile event: velocity"},
		{"explosion off grid", func() error {
			_, err := AppendExplosionEvent(nil, &ExplosionEvent{Pos: geom.V(0, 0.3, 0)})
			return err
		}, "wire: explosion event: position"},
		{"negative radius", func() error {
			_, err := AppendExplosionEvent(nil, &ExplosionEvent{Radius: -1})
			return err
		}, "wire: explosion event: radius -1"},
		{"huge radius", func() error {
			_, err := AppendExplosionEvent(nil, &ExplosionEvent{Radius: 1000})
			return err
		}, "wire: explosion event: radius 1000"},
		{"truncated projectile", func() error {
			b, _ := AppendProjectileEvent(nil, &projectileEvents()[1])
			return DecodeProjectileEvent(b[:len(b)-2], &ProjectileEvent{})
		}, "wire: projectile event:"},
		{"trailing explosion data", func() error {
			b, _ := AppendExplosionEvent(nil, &explosionEvents()[1])
			return DecodeExplosionEvent(append(b, 0xff), &ExplosionEvent{})
		}, "wire: explosion event:"},
	}
	for _, tt := range tests {
		if err := tt.enc(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error starting %q", tt.name, err, tt.want)
		}
	}
}

func FuzzDecodeProjectileEvent(f *testing.F) {
	fuzzEvent(f, projectileEvents(), AppendProjectileEvent, DecodeProjectileEvent)
}

func FuzzDecodeExplosionEvent(f *testing.F) {
	fuzzEvent(f, explosionEvents(), AppendExplosionEvent, DecodeExplosionEvent)
}

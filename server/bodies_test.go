package server_test

import (
	"strings"
	"testing"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// TestBodyOrBodyOf: a server takes one body for all or a body per
// player, not both.
func TestBodyOrBodyOf(t *testing.T) {
	m := world.Field()
	if _, err := server.New(server.Config{Map: m, Body: standBody, BodyOf: bodyByStance}); err == nil || !strings.Contains(err.Error(), "BodyOf") {
		t.Fatalf("both Body and BodyOf: %v", err)
	}
	s, err := server.New(server.Config{Map: m, BodyOf: bodyByStance})
	if err != nil {
		t.Fatal(err)
	}
	if s.Config().BodyOf == nil {
		t.Fatal("BodyOf lost")
	}
}

// TestBodyReachBounded: a server refuses one body for all that reaches
// further from its origin than the spot of a hit on it can travel
// (wire.MaxBodyLocal), and takes one that reaches as far.
func TestBodyReachBounded(t *testing.T) {
	m := world.Field()
	hull := func(length float64) lagcomp.Body {
		return lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-length, 0, 0), Max: geom.V(0, 0, 0)}, Damage: 10}}
	}
	_, err := server.New(server.Config{Map: m, Body: hull(wire.MaxBodyLocal + 0.5)})
	if want := "server: config: body reaches 64.5 m from its origin: a hit's spot on it travels within wire.MaxBodyLocal (64 m)"; err == nil || err.Error() != want {
		t.Errorf("body of 64.5 m: %v, want %q", err, want)
	}
	if _, err := server.New(server.Config{Map: m, Body: hull(wire.MaxBodyLocal)}); err != nil {
		t.Errorf("body of 64 m: %v", err)
	}
}

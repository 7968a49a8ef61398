package server_test

import (
	"strings"
	"testing"

	"github.com/lagkit/lagkit/server"
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

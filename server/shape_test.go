package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// TestShapeConfig: a shape with fewer slots than the players, or slots
// or parts beyond the wire's bounds, is refused naming the field; the
// entities of a shape of many slots take the slots above the players up
// to its last.
func TestShapeConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Map: world.Field(), MaxClients: 64, Shape: wire.Shape{Slots: 32}}, "max clients 64 exceed the shape's 32 slots"},
		{Config{Map: world.Field(), Shape: wire.Shape{Slots: wire.MaxSlots + 1}}, "slots 4097 outside 1 to 4096"},
		{Config{Map: world.Field(), Shape: wire.Shape{Parts: wire.MaxParts + 1}}, "parts 257 outside 1 to 256"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg.Shape, err, tc.want)
		}
	}
	s, err := New(armed(Config{Map: world.Field(), MaxClients: 8, Shape: wire.Shape{Slots: 1000}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{8, 255, 256, 999} {
		if err := s.SetEntity(id, game.PlayerState{}, nil); err != nil {
			t.Errorf("entity %d: %v", id, err)
		}
	}
	for _, id := range []int{7, 1000} {
		if err := s.SetEntity(id, game.PlayerState{}, nil); !errors.Is(err, ErrNotEntitySlot) || !strings.Contains(err.Error(), "want 8 to 999") {
			t.Errorf("entity %d: %v", id, err)
		}
	}
}

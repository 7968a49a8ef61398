package game

import (
	"testing"

	"github.com/lagkit/lagkit/geom"
)

func TestDbgStep(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(4, 2, 0.3))}, 0)
	s := standing(0, 0)
	for i := range 30 {
		s = Move(s, forward(0), g, &p)
		t.Logf("%d %+v", i, s)
	}
}

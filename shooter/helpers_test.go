package shooter_test

import (
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/scaling"
)

func scalingCfg(name string) scaling.Config  { return scaling.Config{Name: name} }
func assistCfg(name string) aimassist.Config { return aimassist.Config{Name: name} }

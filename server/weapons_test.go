package server

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// The server's own tests fire lagkit's shooter's weapons, as the server
// of lagkit's shooter does (shooter.Arm): package shooter imports this
// one, so they set them up here.

// rifles is lagkit's shooter's resolver, shooter.Weapons, as these
// tests fire it: the same calls on the same seam.
type rifles struct{ loadout []weapon.Weapon }

func (r rifles) Fire(w *ShotWorld) {
	sh := &w.Shot
	wp := &r.loadout[weapon.ArmsOf(&sh.State).Weapon]
	for pellet := range wp.Pellets {
		ray := weapon.ShotRay(sh.State, sh.Cmd.Aimed(), sh.Shooter, pellet, wp, w.Params())
		if wp.Kind == weapon.Projectile {
			w.Launch(ray, Shell{Speed: wp.Speed, Range: wp.Range, Damage: wp.Damage, SplashRadius: wp.SplashRadius, SplashDamage: wp.SplashDamage})
			continue
		}
		ray.Origin = sh.Eye
		h, ok := w.Trace(ray, wp.Range)
		w.ShowTracer()
		if ok {
			w.Hit(wp.Damage[h.Part])
		}
	}
}

func (r rifles) Damage(w *ShotWorld, h *lagcomp.RewindHit) int16 {
	return r.loadout[weapon.ArmsOf(&w.Shot.State).Weapon].Damage[h.Part]
}

func (r rifles) Weapon(st *game.PlayerState) (uint8, bool) {
	slot := weapon.ArmsOf(st).Weapon
	return slot, int(slot) >= len(r.loadout) || r.loadout[slot].Kind == weapon.Hitscan
}

// armed returns cfg playing lagkit's shooter's weapons, loadout (none:
// the rifle alone), as far as cfg brings no game's own: with neither a
// step nor a declared state of its own, the weapons' step, state, and
// spawn and death rules, and with no resolver either, theirs.
func armed(cfg Config, loadout ...weapon.Weapon) Config {
	if cfg.Step != nil || cfg.Game != nil {
		return cfg
	}
	ws, err := weapon.Loadout(loadout)
	if err != nil {
		panic(err)
	}
	cfg.Step, cfg.Game = weapon.StepFunc(ws), weapon.Layout
	if cfg.Shots == nil {
		cfg.Shots = rifles{ws}
	}
	spawn := cfg.Spawn
	cfg.Spawn = func(id, team int, st *game.PlayerState) {
		weapon.Rearm(st, ws)
		if spawn != nil {
			spawn(id, team, st)
		}
	}
	cfg.Died = func(_ int, st *game.PlayerState) { weapon.Disarm(st) }
	return cfg
}

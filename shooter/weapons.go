package shooter

import (
	"fmt"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// Weapons is lagkit's shooter's shot resolution (server.Config.Shots),
// a resolver on the seam every game's takes: each shot fires the weapon
// the shooter holds (weapon.Arms), from Loadout, pellet by pellet. A
// hitscan pellet goes along weapon.ShotRay with its recoil and spread
// from the shot's eye, up to the weapon's Range: it is traced
// (server.ShotWorld.Trace: lagkit's humanoid hitboxes at the time the
// policy chooses, offered to the world adjustments when it misses),
// shown to the players near it, and a hit registered
// (server.ShotWorld.Hit) for the weapon's damage at the part hit. A
// projectile weapon's pellets are launched as the server's projectiles
// (server.ShotWorld.Launch). Loadout must be checked (weapon.Loadout),
// as Arm does.
type Weapons struct {
	Loadout []weapon.Weapon
}

// Fire fires the weapon of w's shot.
func (ws Weapons) Fire(w *server.ShotWorld) {
	sh := &w.Shot
	// The step fires only a weapon of the loadout, so the slot is valid.
	wp := &ws.Loadout[weapon.ArmsOf(&sh.State).Weapon]
	params := w.Params()
	for pellet := range wp.Pellets {
		// A fire press within the command (sub-tick input) aims the
		// pellet as its client drew it at the press.
		ray := weapon.ShotRay(sh.State, sh.Cmd.Aimed(), sh.Shooter, pellet, wp, params)
		if wp.Kind == weapon.Projectile {
			w.Launch(ray, server.Shell{
				Speed: wp.Speed, Range: wp.Range, Damage: wp.Damage,
				SplashRadius: wp.SplashRadius, SplashDamage: wp.SplashDamage,
			})
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

// Damage is the damage of hit h of w's shot, traced again at the
// present beyond the policy's rollback cap (server.Damager): the
// weapon's at the part hit.
func (ws Weapons) Damage(w *server.ShotWorld, h *lagcomp.RewindHit) int16 {
	return ws.Loadout[weapon.ArmsOf(&w.Shot.State).Weapon].Damage[h.Part]
}

// Weapon names the weapon a shooter in state st fired (server.Armoury):
// its loadout slot, and whether it is hitscan.
func (ws Weapons) Weapon(st *game.PlayerState) (uint8, bool) {
	slot := weapon.ArmsOf(st).Weapon
	return slot, int(slot) >= len(ws.Loadout) || ws.Loadout[slot].Kind == weapon.Hitscan
}

// Arm makes server configuration cfg play lagkit's shooter's weapons,
// loadout (nil: the rifle alone, as the ALC study's game had): the step
// with weapons (weapon.StepFunc), their declared state (weapon.Layout),
// the resolver (Weapons) unless cfg has a resolver of its own (a game
// that fires lagkit's weapons and resolves their shots itself), and a
// spawn that hands the weapon back loaded (weapon.Rearm) and a death
// that stops a reload (weapon.Disarm), each before any Spawn and Died
// cfg already has.
func Arm(cfg *server.Config, loadout []weapon.Weapon) error {
	ws, err := weapon.Loadout(loadout)
	if err != nil {
		return fmt.Errorf("shooter: %w", err)
	}
	cfg.Step, cfg.Game = weapon.StepFunc(ws), weapon.Layout
	if cfg.Shots == nil {
		cfg.Shots = Weapons{Loadout: ws}
	}
	spawn, died := cfg.Spawn, cfg.Died
	cfg.Spawn = func(id, team int, st *game.PlayerState) {
		weapon.Rearm(st, ws)
		if spawn != nil {
			spawn(id, team, st)
		}
	}
	cfg.Died = func(id int, st *game.PlayerState) {
		weapon.Disarm(st)
		if died != nil {
			died(id, st)
		}
	}
	return nil
}

// ArmClient makes client configuration cfg predict lagkit's shooter's
// weapons, loadout (nil: the rifle alone), as a server Arm configured:
// the step with weapons, their declared state, and the rays of the
// client's own verdict on its shots (weapon.ShotRays).
func ArmClient(cfg *client.Config, loadout []weapon.Weapon) error {
	ws, err := weapon.Loadout(loadout)
	if err != nil {
		return fmt.Errorf("shooter: %w", err)
	}
	cfg.Step, cfg.Game, cfg.ShotRays = weapon.StepFunc(ws), weapon.Layout, weapon.ShotRays(ws)
	return nil
}

// Client returns client configuration cc as a client of lagkit's
// shooter with the rifle alone (ArmClient), the game lagkit's servers
// play unless given another, or as it is if cc brings a game's own step
// or declared state.
func Client(cc client.Config) client.Config {
	if cc.Step == nil && cc.Game == nil {
		if err := ArmClient(&cc, nil); err != nil {
			panic(err) // the rifle alone is a valid loadout
		}
	}
	return cc
}

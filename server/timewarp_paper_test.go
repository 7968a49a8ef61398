package server

// The tests of time warp as the time warp study describes it
// ([timewarp]), and of the bound lagkit sets itself on its cost: each
// quotes the claim it checks. The rules of scheduling, the committed
// facts and bad input are tested in timewarp_test.go.

import (
	"math"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world/worldtest"
)

// TestTimeWarpIsExact checks what a warp does with a late command:
//
//	"When a late command arrives, revert to the state at its time, insert
//	the command, and re-simulate forward to now."
//
// A command that reaches the server late, within the window, ends in
// exactly the state it would have produced on time. Three players' every command arrives 8 ticks (125 ms) after
// issue, each inserted by a warp: one fires a rifle and another a pistol
// through its team mate at a victim a fourth player also shoots within
// the window, and the third steps into that fourth player's line of fire.
// The result is the on-time run's, bit for bit: positions, health,
// ammunition, weapon state, counters and projectiles.
//
// Reference: [timewarp], revert, insert and re-simulate (docs/references.md).
func TestTimeWarpIsExact(t *testing.T) {
	const late, last, end = 8, 150, 158
	onTime := newWarpScene(t, warpConfig(), duelActors(0, wStops), last, end)
	warped := newWarpScene(t, warpConfig(), duelActors(late, wStops), last, end)
	want := snap(onTime.s)

	// The scene does what it claims.
	v, o, l1, l2, w := want.players[1], want.players[0], want.players[2], want.players[4], want.players[5]
	if v.HitsTaken != 2 || w.HitsTaken != 1 || o.Hits != 1 || l1.Hits != 1 || l2.Hits != 1 || v.Deaths != 0 {
		t.Fatalf("scene: V hit %d times (deaths %d), W %d; O, L1, L2 hit %d, %d, %d; want 2, 1 and 1 each", v.HitsTaken, v.Deaths, w.HitsTaken, o.Hits, l1.Hits, l2.Hits)
	}
	if len(want.projectiles) != 1 {
		t.Fatalf("scene: %d projectiles in flight, want the second pistol shot", len(want.projectiles))
	}
	// O's shot was judged at once against W where the server had it
	// then, short of the axis, and judged again when W's late commands
	// came: a hit on V taken back, one on W found.
	if st := warped.s.TimeWarpStats(); st.Late != 3*last || st.MaxDepth != late || st.Rejudged == 0 || onTime.s.TimeWarpStats().Warps != 0 {
		t.Fatalf("warps: late run %+v, on-time run %+v", st, onTime.s.TimeWarpStats())
	}
	compare(t, "at the last command", snap(warped.s), want)

	// The projectile in flight lands alike.
	for range 30 {
		for _, sc := range []*warpScene{onTime, warped} {
			sc.s.Advance(sc.s.NextTick())
		}
	}
	want = snap(onTime.s)
	if len(want.projectiles) != 0 || want.players[1].HitsTaken != v.HitsTaken+1 {
		t.Fatalf("scene: the last projectile did not land (%d in flight, victim hit %d times)", len(want.projectiles), want.players[1].HitsTaken)
	}
	compare(t, "after the last projectile landed", snap(warped.s), want)
}

// TestTimeWarpCompensatesProjectiles checks what time warp compensates:
//
//	"This compensates everything, projectiles included."
//
// In the exactness scene L2 fires two pistol projectiles (not lag
// compensated by rewinding) at the victim while its commands arrive 8
// ticks late. Under time warp they fly from where and when L2 fired them
// and land as they did on time; an ordinary server runs the same late
// commands 8 ticks later, so the victim's damage and L2's hits come out
// otherwise.
//
// Reference: [timewarp], projectiles compensated (docs/references.md).
func TestTimeWarpCompensatesProjectiles(t *testing.T) {
	const late, last, end = 8, 150, 190
	onTime := snap(newWarpScene(t, warpConfig(), duelActors(0, wStops), last, end).s)
	warped := snap(newWarpScene(t, warpConfig(), duelActors(late, wStops), last, end).s)
	plainCfg := warpConfig()
	plainCfg.TimeWarp = 0
	plain := snap(newWarpScene(t, plainCfg, duelActors(late, wStops), last, end).s)
	l2, v := 4, 1
	if onTime.players[l2].Hits != 2 {
		t.Fatalf("scene: L2's projectiles hit %d times on time, want 2", onTime.players[l2].Hits)
	}
	if warped.players[l2].Hits != 2 || warped.players[v].State.Health != onTime.players[v].State.Health {
		t.Errorf("time warp: L2 hit %d times, victim's health %d; on time 2 and %d", warped.players[l2].Hits, warped.players[v].State.Health, onTime.players[v].State.Health)
	}
	if plain.players[l2].Hits == 2 && plain.players[v].State.Health == onTime.players[v].State.Health {
		t.Errorf("without time warp the late projectiles landed as on time: the scene shows nothing")
	}
}

// strafeActors is the hitscan-only scene: S, whose commands arrive late
// ticks after issue, walks backwards and fires its rifle once, at tick
// 40, at where V stands then; V runs sideways across S's line of fire
// all along, so that the shot judged 8 ticks after it was fired misses.
// P, late too, walks and fires the projectile pistol at V at tick 110.
func strafeActors(t *testing.T, late uint32) []warpActor {
	sPos, vPos, pPos := geom.V(-10, 0, 0), geom.V(0, -3, 0), geom.V(-8, -6, 0)
	run := func(uint32) game.UserCmd { return game.UserCmd{Yaw: game.YawUnits(math.Pi / 2), Forward: 127} }
	// Where V stands after tick 40: the on-time scene without the shot.
	probe := newWarpScene(t, warpConfig(), []warpActor{
		{pos: sPos, script: func(uint32) game.UserCmd { return game.UserCmd{} }},
		{pos: vPos, yaw: math.Pi / 2, script: run},
	}, 40, 40)
	v, _ := probe.s.Client(probe.ids[1])
	yaw, pitch := aim(sPos, v.State.Pos, 1.0)
	pYaw, pPitch := aim(pPos, vPos.Add(geom.V(0, 3, 0)), 1.0)
	return []warpActor{
		{pos: sPos, late: late, script: func(n uint32) game.UserCmd { // S, team 0
			c := game.UserCmd{Yaw: yaw, Pitch: pitch, Forward: -40}
			if n == 40 {
				c.Buttons = game.BtnFire
			}
			return c
		}},
		{pos: vPos, yaw: math.Pi / 2, script: run}, // V, team 1
		{pos: pPos, late: late, script: func(n uint32) game.UserCmd { // P, team 0
			c := game.UserCmd{Yaw: pYaw, Pitch: pPitch, Weapon: 1, Forward: 30}
			if n == 110 { // the pistol is drawn by then
				c.Buttons = game.BtnFire
			}
			return c
		}},
	}
}

// TestTimeWarpHitscanOnly checks the study's narrower time warp: only
// the hitscan raygun's shots were warped, not the projectile pistol nor
// the players' movement ([timewarp], sections 4.1.2 and 5.2, in
// lagkit's words). With time warp of hitscan shots only, S's late rifle
// shot is judged in the world of its issue tick and hits as it did on
// time (an ordinary server misses V, which ran on), while everything
// else is as on an ordinary server with the same late commands: every
// player's position and P's late projectile.
//
// Reference: [timewarp], sections 4.1.2 and 5.2 (docs/references.md).
func TestTimeWarpHitscanOnly(t *testing.T) {
	const late, last, end = 8, 120, 140
	onTime := snap(newWarpScene(t, warpConfig(), strafeActors(t, 0), last, end).s)
	cfg := warpConfig()
	cfg.TimeWarpHitscanOnly = true
	sc := newWarpScene(t, cfg, strafeActors(t, late), last, end)
	shots := snap(sc.s)
	plainCfg := warpConfig()
	plainCfg.TimeWarp = 0
	plain := snap(newWarpScene(t, plainCfg, strafeActors(t, late), last, end).s)
	fullRun := newWarpScene(t, warpConfig(), strafeActors(t, late), last, end)
	full := snap(fullRun.s)
	s, p := 0, 2
	if onTime.players[s].Hits != 1 || plain.players[s].Hits != 0 || full.players[s].Hits != 1 {
		t.Fatalf("scene: S's rifle shot hit %d times on time, %d late on an ordinary server, %d late under time warp; want 1, 0, 1",
			onTime.players[s].Hits, plain.players[s].Hits, full.players[s].Hits)
	}
	if st := sc.s.TimeWarpStats(); st.Late != 1 || st.Warps != 1 {
		t.Errorf("warps %+v: want S's one rifle shot inserted, in one warp", st)
	}
	if got := shots.players[s].Hits; got != 1 {
		t.Errorf("S's late rifle shot hit %d times: it was not judged at its issue tick", got)
	}
	if g, want := shots.players[p], plain.players[p]; g.Shots != 1 || g.Hits != want.Hits || g.HitsTaken != want.HitsTaken {
		t.Errorf("P fired %d projectiles that hit %d times; 1 and %d on an ordinary server", g.Shots, g.Hits, want.Hits)
	}
	// Movement is not warped: each tick ran the command that arrived for
	// it, issued late ticks before; under time warp it holds the command
	// issued at it.
	for _, run := range []struct {
		name string
		sc   *warpScene
		want uint32
	}{{"hitscan only", sc, 115 - late}, {"time warp", fullRun, 115}} {
		e, ok := run.sc.s.warp.entry(115)
		if cmds := e.Cmds(s); !ok || len(cmds) != 1 || cmds[0].Tick != run.want {
			t.Errorf("%s: tick 115 holds commands %+v of S; want one, issued at %d", run.name, cmds, run.want)
		}
	}
}

// TestTimeWarpHitscanOnlyNeedsTimeWarp: hitscan-only time warp without a
// window is refused.
func TestTimeWarpHitscanOnlyNeedsTimeWarp(t *testing.T) {
	cfg := warpConfig()
	cfg.TimeWarp, cfg.TimeWarpHitscanOnly = 0, true
	cfg.Map = worldtest.Open(t)
	if _, err := New(armed(cfg)); err == nil || !strings.Contains(err.Error(), "needs a time warp window") {
		t.Fatalf("New: %v, want an error about the missing window", err)
	}
}

package server

// The tests of time warp as the time warp study describes it
// ([timewarp]), and of the bound lagkit sets itself on its cost: each
// quotes the claim it checks. The rules of scheduling, the committed
// facts and bad input are tested in timewarp_test.go.

import "testing"

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

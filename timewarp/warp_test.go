package timewarp

import (
	"math"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// lineGame is a Host for the tests, a game on a line: a command moves
// its player by Forward/1270 m along X and, with fire, shoots the other
// player, hitting it for 10 when it stands within 0.25 m of the point
// the command aims at (Yaw/100 m). It runs its own live ticks through a
// Warp, as a server does.
type lineGame struct {
	w       *Warp[*linePlayer, lineLists]
	players []*linePlayer
	tick    uint32
	// What Host saw, to check it was called as documented.
	steps, ticks, warps int

	// the tick being re-run
	e   *Tick[*linePlayer, lineLists]
	out lineLists
}

type linePlayer struct {
	st   game.PlayerState
	hits int // hits taken
}

// lineLists are what a tick's shots did, in order: each shot's shooter,
// aim and victim (-1: a miss).
type lineLists struct{ shots []lineShot }

type lineShot struct {
	shooter int
	aim     float64
	victim  int
}

func newLineGame(window int) *lineGame {
	g := &lineGame{players: []*linePlayer{{}, {}}}
	for _, p := range g.players {
		p.st.Health = game.MaxHealth
	}
	g.w = NewWarp[*linePlayer, lineLists](g, Rules{Window: window, Slack: 2}, len(g.players), 64, weapon.Layout)
	return g
}

func (g *lineGame) act(i int, st game.PlayerState, cmd game.UserCmd, shots *[]lineShot) game.PlayerState {
	st.Pos.X += float64(cmd.Forward) / 1270
	if cmd.Buttons&game.BtnFire != 0 {
		*shots = append(*shots, lineShot{shooter: i, aim: float64(cmd.Yaw) / 100, victim: -1})
	}
	return st
}

// judge resolves shots against state, dealing each hit through hit.
func judge(shots []lineShot, state func(int) *game.PlayerState) {
	for k := range shots {
		sh := &shots[k]
		v := 1 - sh.shooter
		if math.Abs(state(v).Pos.X-sh.aim) < 0.25 {
			sh.victim = v
		}
	}
}

// step runs the next live tick: late commands inserted and re-run, then
// each player's due commands, its shots, and the record.
func (g *lineGame) step() {
	from := uint32(math.MaxUint32)
	for i, p := range g.players {
		for {
			_, t, ok := g.w.InsertLate(i, p, g.tick)
			if !ok {
				break
			}
			from = min(from, t)
		}
	}
	if from <= g.tick {
		g.w.Run(from, g.tick)
	}
	e := g.w.Prepare(g.tick + 1)
	e.Lists.shots = e.Lists.shots[:0]
	g.tick++
	for i, p := range g.players {
		for {
			cmd, ok := g.w.Next(i, p, g.tick)
			if !ok {
				break
			}
			p.st = g.act(i, p.st, cmd, &e.Lists.shots)
		}
		e.Moved[i] = p.st
	}
	judge(e.Lists.shots, func(i int) *game.PlayerState { return &g.players[i].st })
	for _, sh := range e.Lists.shots {
		if sh.victim >= 0 {
			g.players[sh.victim].st.Health -= 10
			g.players[sh.victim].hits++
		}
	}
	for i, p := range g.players {
		e.State[i] = p.st
	}
}

func (g *lineGame) Player(i int) (*linePlayer, *game.PlayerState) {
	return g.players[i], &g.players[i].st
}

func (g *lineGame) Bound(st *game.PlayerState) (geom.Vec3, float64) { return st.Pos, 0.25 }

func (g *lineGame) BeginWarp() { g.warps++ }

func (g *lineGame) BeginTick(t uint32, e *Tick[*linePlayer, lineLists]) {
	g.ticks++
	g.e = e
	g.out.shots = g.out.shots[:0]
}

// Step fires again the shots of the players stepped; those of the
// others stand as recorded (Resolve adds them).
func (g *lineGame) Step(i int, st game.PlayerState, cmds []game.UserCmd) game.PlayerState {
	g.steps++
	for _, cmd := range cmds {
		st = g.act(i, st, cmd, &g.out.shots)
	}
	return st
}

// Resolve judges the tick's shots against the re-run states. A victim
// whose hits differ from the record's joins the affected set, and an
// affected victim takes its hits on its re-simulated state (an
// unaffected one's recorded state after the tick holds them).
func (g *lineGame) Resolve() {
	for _, sh := range g.e.Lists.shots {
		if !g.w.Stepped(sh.shooter) {
			g.out.shots = append(g.out.shots, sh)
		}
	}
	judge(g.out.shots, func(i int) *game.PlayerState { return g.w.State(i) })
	for v, p := range g.players {
		if count(g.out.shots, v) != count(g.e.Lists.shots, v) {
			p.hits += count(g.out.shots, v) - count(g.e.Lists.shots, v)
			g.w.Join(v)
		}
	}
	for _, sh := range g.out.shots {
		if sh.victim >= 0 && g.w.Span.Affected(sh.victim) {
			g.w.Own(sh.victim).Health -= 10
		}
	}
}

func count(shots []lineShot, victim int) int {
	n := 0
	for _, sh := range shots {
		if sh.victim == victim {
			n++
		}
	}
	return n
}

func (g *lineGame) EndPlayer(int, *game.PlayerState) {}
func (g *lineGame) Killed(int, int)                  {}

func (g *lineGame) EndTick() {
	g.e.Lists.shots, g.out.shots = g.out.shots, g.e.Lists.shots
}

func (g *lineGame) EndWarp() {}

// playLine plays 80 ticks of the line game: player 0 walks and, every
// 10th tick, fires at where player 1 stands then; player 1 walks the
// other way, 0.1 m a tick. Player 0's commands reach the game late ticks
// after it issued them, and the game takes them to have been issued late
// ticks before they arrived. After tick 30 the game edits player 0's
// ammunition (Change).
func playLine(t *testing.T, late uint32) *lineGame {
	t.Helper()
	g := newLineGame(16)
	cmd := func(i int, n uint32) game.UserCmd {
		if i == 1 {
			return game.UserCmd{Tick: n, Forward: 127}
		}
		c := game.UserCmd{Tick: n, Forward: -64}
		if n%10 == 0 {
			c.Buttons, c.Yaw = game.BtnFire, uint16(10*n)
		}
		return c
	}
	for g.tick < 80 {
		next := g.tick + 1
		g.w.Receive(1, g.players[1], cmd(1, next), g.tick, 0)
		if next > late {
			g.w.Receive(0, g.players[0], cmd(0, next-late), g.tick, late)
		}
		g.step()
		if g.tick == 30 {
			before := g.players[0].st
			weapon.ArmsOf(&g.players[0].st).Ammo = 7
			g.w.Change(0, g.players[0], g.tick, Change{Edit: Diff(&before, &g.players[0].st, weapon.Layout)}, g.players[0].st)
		}
	}
	// The last commands, still on their way, arrive.
	for n := uint32(81 - late); n <= 80; n++ {
		g.w.Receive(0, g.players[0], cmd(0, n), g.tick, g.tick+1-n)
	}
	g.step()
	return g
}

// TestWarpLateCommandsRunAtTheirTicks: "a late command runs at its issue
// tick; the world is re-simulated from there" for any host: player 0's
// commands, 6 ticks late, move it and hit player 1 as the same commands
// on time do (every shot at its tick, a hit: on arrival each would miss
// by 0.6 m), and the game's edit stands on the re-simulated state.
func TestWarpLateCommandsRunAtTheirTicks(t *testing.T) {
	onTime, late := playLine(t, 0), playLine(t, 6)
	if onTime.w.Stats.Warps != 0 || late.w.Stats.Warps == 0 || late.w.Stats.Late == 0 {
		t.Fatalf("warps on time %+v, late %+v: want none and some", onTime.w.Stats, late.w.Stats)
	}
	if late.warps != late.w.Stats.Warps || late.ticks != late.w.Stats.Resimulated || late.steps == 0 {
		t.Errorf("Host saw %d warps, %d ticks, %d steps; the stats %+v", late.warps, late.ticks, late.steps, late.w.Stats)
	}
	for i := range onTime.players {
		a, b := onTime.players[i], late.players[i]
		if a.st != b.st || a.hits != b.hits {
			t.Errorf("player %d late: %+v, %d hits; on time %+v, %d hits", i, b.st.Pos, b.hits, a.st.Pos, a.hits)
		}
	}
	if h := onTime.players[1].hits; h != 8 {
		t.Fatalf("player 1 took %d hits on time, want 8", h)
	}
	if weapon.ArmsOf(&late.players[0].st).Ammo != 7 || late.w.Stats.Replayed == 0 {
		t.Errorf("player 0's ammunition %d after warps that replayed %d changes: the edit was lost", weapon.ArmsOf(&late.players[0].st).Ammo, late.w.Stats.Replayed)
	}
}

// TestWarpResimulateReproduces: re-running the window with the commands
// it ran with changes nothing, from any depth.
func TestWarpResimulateReproduces(t *testing.T) {
	g := playLine(t, 6)
	want := [2]game.PlayerState{g.players[0].st, g.players[1].st}
	for _, depth := range []int{1, 5, 16, 40} {
		if n := g.w.Resimulate(0, g.players[0], g.tick, depth); n != min(depth, 16) {
			t.Fatalf("Resimulate(%d) re-ran %d ticks", depth, n)
		}
		if got := [2]game.PlayerState{g.players[0].st, g.players[1].st}; got != want {
			t.Fatalf("after re-running %d ticks: %+v, want %+v", depth, got, want)
		}
	}
	g.w.Restart(g.tick)
	if n := g.w.Resimulate(0, g.players[0], g.tick, 5); n != 0 {
		t.Fatalf("Resimulate re-ran %d ticks before the restart", n)
	}
}

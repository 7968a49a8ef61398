package server

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world/worldtest"
)

// equivRun is what one run of a random scene produced, tick by tick.
type equivRun struct {
	hash    string
	records []ShotRecord
	log     []LogEntry
	out     [][]byte // every datagram sent, in order
	kills   int
	weapons map[uint8]bool // weapons that fired
}

// runRandomScene plays seed's random scene: 3 to 6 players close
// together on the open map, each with every shipped weapon, walking,
// turning towards a random enemy, switching weapons and firing at random,
// one command a tick, each arriving just before its tick. timeWarp 0 runs
// an ordinary server.
func runRandomScene(t *testing.T, seed uint64, timeWarp time.Duration) equivRun {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	n := 3 + rng.IntN(4)
	kind := mode.FFA
	if rng.IntN(2) == 0 {
		kind = mode.TDM
	}
	cfg := Config{
		Map: worldtest.Open(t), MaxClients: n, Seed: seed, TimeWarp: timeWarp,
		Policy: lagcomp.Config{Name: "none"}, Rules: modeRules(mode.Config{Mode: kind}),
		// The players acknowledge no snapshot; they stay all the same.
		Limits: Limits{AckTimeout: time.Minute},
	}
	s, err := New(armed(cfg, weapon.Defaults()...))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	ids := make([]int, n)
	for i := range n {
		ids[i] = join(t, s, 0, Peer(i))
		s.Place(ids[i], geom.V(rng.Float64()*16-8, rng.Float64()*16-8, 0), rng.Float64()*2*math.Pi)
	}
	run := equivRun{weapons: map[uint8]bool{}}
	cmds := make([]game.UserCmd, n)
	target := make([]int, n)
	for i := range cmds {
		cmds[i].Weapon = uint8(rng.IntN(len(weapon.Defaults())))
	}
	for tick := uint32(1); tick <= 960; tick++ {
		now := s.NextTick()
		for i := range n {
			cmd := sceneCmd(rng, s, ids, i, &cmds[i], target)
			cmd.Tick, cmd.Duration = tick, s.TickDuration()
			sendCmds(t, s, now-time.Microsecond, Peer(i), []game.UserCmd{cmd})
		}
		run.collect(s.Advance(now))
	}
	run.hash = s.StateHash()
	return run
}

// sceneCmd draws player i's next command in a random scene: now and
// then it changes its walk, its weapon (of those s has) and its target
// (slot target[i]); it fires a third of the time, jumps now and then,
// and aims at its target, a little off. c holds its previous command.
func sceneCmd(rng *rand.Rand, s *Server, ids []int, i int, c *game.UserCmd, target []int) game.UserCmd {
	if rng.IntN(16) == 0 {
		c.Forward, c.Side = int8(rng.IntN(3)-1)*127, int8(rng.IntN(3)-1)*127
	}
	if rng.IntN(200) == 0 {
		c.Weapon = uint8(rng.IntN(len(weapon.Defaults())))
	}
	if rng.IntN(30) == 0 {
		target[i] = rng.IntN(len(ids))
	}
	c.Buttons = 0
	if rng.IntN(3) == 0 {
		c.Buttons |= game.BtnFire
	}
	if rng.IntN(50) == 0 {
		c.Buttons |= game.BtnJump
	}
	me, _ := s.Client(ids[i])
	them, _ := s.Client(ids[target[i]])
	d := them.State.Pos.Sub(me.State.Pos)
	c.Yaw = game.YawUnits(math.Atan2(d.Y, d.X) + (rng.Float64()-0.5)*0.1)
	c.Pitch = game.PitchUnits(math.Atan2(d.Z, math.Hypot(d.X, d.Y)) + (rng.Float64()-0.5)*0.1)
	return *c
}

// collect adds what the server sent, recorded and logged, as its
// handover r says.
func (run *equivRun) collect(r *Ready) {
	for _, d := range r.Messages {
		run.out = append(run.out, append([]byte{byte(d.To)}, d.Data...))
	}
	for _, rec := range r.Shots {
		run.records = append(run.records, rec)
		run.weapons[rec.Weapon] = true
	}
	for _, e := range r.Log {
		run.log = append(run.log, e)
		if e.Kind == "kill" {
			run.kills++
		}
	}
}

// TestTimeWarpOnTimeIsOrdinary: a time warp server whose commands all
// arrive on time is an ordinary server with policy none: random scenes
// with several players, every weapon and kills give the same state
// digest, shot records, logged events and datagrams, bit for bit.
func TestTimeWarpOnTimeIsOrdinary(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	weapons, kills := map[uint8]bool{}, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		plain := runRandomScene(t, seed, 0)
		warped := runRandomScene(t, seed, 300*time.Millisecond)
		for w := range plain.weapons {
			weapons[w] = true
		}
		kills += plain.kills
		sameRuns(t, fmt.Sprintf("seed %d", seed), "plain", "warp", plain, warped)
	}
	if len(weapons) != len(weapon.Defaults()) || kills == 0 {
		t.Fatalf("the scenes fired weapons %v and made %d kills: want every weapon and kills", weapons, kills)
	}
}

// sameRuns reports where run b differs from run a (named as and bs):
// state digest, logged events, shot records and datagrams.
func sameRuns(t *testing.T, what, as, bs string, a, b equivRun) {
	t.Helper()
	if a.hash != b.hash {
		t.Errorf("%s: state digest %s, %s %s", what, a.hash, bs, b.hash)
	}
	if !reflect.DeepEqual(a.log, b.log) {
		t.Errorf("%s: logs differ:\n %6s %+v\n %6s %+v", what, as, a.log, bs, b.log)
	}
	if i := firstDiff(len(a.records), len(b.records), func(i int) bool { return a.records[i] == b.records[i] }); i >= 0 {
		t.Errorf("%s: shot record %d of %d/%d differs:\n %6s %s\n %6s %s", what, i, len(a.records), len(b.records), as, at(a.records, i), bs, at(b.records, i))
	}
	if i := firstDiff(len(a.out), len(b.out), func(i int) bool { return bytes.Equal(a.out[i], b.out[i]) }); i >= 0 {
		t.Errorf("%s: datagram %d of %d/%d differs", what, i, len(a.out), len(b.out))
	}
}

// firstDiff returns the first index below the shorter length where same
// fails, the shorter length if the lengths differ, else -1.
func firstDiff(a, b int, same func(int) bool) int {
	for i := range min(a, b) {
		if !same(i) {
			return i
		}
	}
	if a != b {
		return min(a, b)
	}
	return -1
}

func at(recs []ShotRecord, i int) string {
	if i < len(recs) {
		return fmt.Sprintf("%+v", recs[i])
	}
	return "(none)"
}

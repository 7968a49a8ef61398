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
	"github.com/lagkit/lagkit/mode"
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
		Policy: lagcomp.Config{Name: "none"}, Mode: mode.Config{Mode: kind},
		Weapons: game.DefaultWeapons(),
		// The players acknowledge no snapshot; they stay all the same.
		Limits: Limits{AckTimeout: time.Minute},
	}
	s, err := New(cfg)
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
		cmds[i].Weapon = uint8(rng.IntN(len(cfg.Weapons)))
	}
	for tick := uint32(1); tick <= 960; tick++ {
		now := s.NextTick()
		for i := range n {
			c := &cmds[i]
			if rng.IntN(16) == 0 {
				c.Forward, c.Side = int8(rng.IntN(3)-1)*127, int8(rng.IntN(3)-1)*127
			}
			if rng.IntN(200) == 0 {
				c.Weapon = uint8(rng.IntN(len(cfg.Weapons)))
			}
			if rng.IntN(30) == 0 {
				target[i] = rng.IntN(n)
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
			cmd := *c
			cmd.Tick, cmd.Duration = tick, s.TickDuration()
			sendCmds(t, s, now-time.Microsecond, Peer(i), []game.UserCmd{cmd})
		}
		s.Advance(now)
		for _, d := range s.Outbox() {
			run.out = append(run.out, append([]byte{byte(d.To)}, d.Data...))
		}
		for _, r := range s.ShotRecords() {
			run.records = append(run.records, r)
			run.weapons[r.Weapon] = true
		}
		for _, e := range s.Log() {
			run.log = append(run.log, e)
			if e.Kind == "kill" {
				run.kills++
			}
		}
	}
	run.hash = s.StateHash()
	return run
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
		if plain.hash != warped.hash {
			t.Errorf("seed %d: state digest %s, time warp %s", seed, plain.hash, warped.hash)
		}
		if !reflect.DeepEqual(plain.log, warped.log) {
			t.Errorf("seed %d: logs differ:\n plain %+v\n  warp %+v", seed, plain.log, warped.log)
		}
		if i := firstDiff(len(plain.records), len(warped.records), func(i int) bool { return plain.records[i] == warped.records[i] }); i >= 0 {
			t.Errorf("seed %d: shot record %d of %d/%d differs:\n plain %s\n  warp %s", seed, i, len(plain.records), len(warped.records), at(plain.records, i), at(warped.records, i))
		}
		if i := firstDiff(len(plain.out), len(warped.out), func(i int) bool { return bytes.Equal(plain.out[i], warped.out[i]) }); i >= 0 {
			t.Errorf("seed %d: datagram %d of %d/%d differs", seed, i, len(plain.out), len(warped.out))
		}
	}
	if len(weapons) != len(game.DefaultWeapons()) || kills == 0 {
		t.Fatalf("the scenes fired weapons %v and made %d kills: want every weapon and kills", weapons, kills)
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

package match

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
)

// verdicts counts a match's hitscan shots by the shooter's client's
// verdict and the server's (damage registered), each shot once however
// many pellets it had and however often a time warp judged it.
type verdicts struct {
	agree, refused, granted, unknown int // refused: client hit, server not; granted: the reverse
}

func countVerdicts(res *Result) verdicts {
	type key struct {
		shooter int
		tick    uint32
	}
	type shot struct {
		client     game.Shown
		registered bool
	}
	shots := map[key]*shot{}
	var order []key
	for _, s := range res.Shots {
		if s.Projectile {
			continue
		}
		k := key{s.Shooter, s.ShotTick}
		sh := shots[k]
		if sh == nil {
			sh = &shot{}
			shots[k] = sh
			order = append(order, k)
		}
		sh.client = s.ClientShown
		sh.registered = sh.registered || s.Registered
	}
	var v verdicts
	for _, k := range order {
		sh := shots[k]
		switch {
		case sh.client == game.ShownUnknown:
			v.unknown++
		case (sh.client == game.ShownHit) == sh.registered:
			v.agree++
		case sh.client == game.ShownHit:
			v.refused++
		default:
			v.granted++
		}
	}
	return v
}

// TestClientVerdicts: bots fire through the real client core, which
// sends its own verdict on each shot. With a 150 ms round trip, time
// lag compensation rewinds to what the shooter drew, so client and
// server mostly agree; without compensation the server tests the
// present, and refuses many hits the client showed, far more than it
// grants shots the client showed missing.
func TestClientVerdicts(t *testing.T) {
	run := func(policy string, seed uint64) verdicts {
		res, err := Run(Config{Map: "metro", Mode: mode.TDM, Bots: 8, Duration: 60 * time.Second, Seed: seed,
			Policy: lagcomp.Config{Name: policy}, BaseRTTms: 150}, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := countVerdicts(res)
		t.Logf("%s: %+v", policy, v)
		if v.agree+v.refused+v.granted < 50 {
			t.Fatalf("%s: %+v: too few judged shots to compare", policy, v)
		}
		if v.unknown*10 > v.agree+v.refused+v.granted {
			t.Errorf("%s: %d of the shots without a client verdict", policy, v.unknown)
		}
		return v
	}
	tlc, none := run("tlc", 5), run("none", 5)
	if share := float64(tlc.agree) / float64(tlc.agree+tlc.refused+tlc.granted); share < 0.9 {
		t.Errorf("tlc: client and server agree on %.2f of shots, want most", share)
	}
	if none.refused <= none.granted || none.refused <= 3*tlc.refused {
		t.Errorf("none refuses %d client hits (grants %d client misses); tlc refuses %d: want none to refuse many more",
			none.refused, none.granted, tlc.refused)
	}
}

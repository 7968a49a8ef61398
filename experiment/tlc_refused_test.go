package experiment

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
)

// TestTLCRefusedHitsFollowAKill accounts for the hits a shooter's client
// showed that the server refused under tlc, where client and server
// judge the same view time: for every one of them an enemy was killed
// on the server between the shot's view time and its arrival. The
// client drew that enemy alive, as it was at the view time; by the time
// the shot arrived another shooter had killed it, and the server damages
// no dead player (Server.hittable), so the hit is refused. It is not a
// clamped view time (no refused shot was tested at another time than it
// claimed), not a hit the server found and then dropped (none), and not
// the two sides interpolating differently (that would leave refusals
// with no kill before them). Among the hits both agreed on, an enemy
// died in the same window far less often.
func TestTLCRefusedHitsFollowAKill(t *testing.T) {
	var clientHits, refused, refusedAfterKill, agreed, agreedAfterKill int
	for seed := range uint64(4) {
		res, err := match.Run(match.Config{Map: "metro", Mode: mode.TDM, Bots: 8, Duration: 60 * time.Second, Seed: seed + 1,
			Policy: lagcomp.Config{Name: "tlc"}, BaseRTTms: 150}, nil)
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			shooter int
			tick    uint32
		}
		type shot struct {
			shown             game.Shown
			hit, reg, clamped bool
			view, at          time.Duration
		}
		shots := map[key]*shot{}
		var order []key
		type kill struct {
			at      time.Duration
			shooter int
		}
		var kills []kill
		for _, s := range res.Shots {
			if s.Kill && s.Registered {
				kills = append(kills, kill{s.Time, s.Shooter})
			}
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
			sh.shown, sh.view, sh.at = s.ClientShown, s.ViewTime, s.Time
			sh.hit, sh.reg = sh.hit || s.Hit, sh.reg || s.Registered
			sh.clamped = sh.clamped || s.Rewound && s.Tested != s.ViewTime
		}
		// killIn reports whether another shot killed an enemy between the
		// shot's view time and its arrival.
		killIn := func(k key, sh *shot) bool {
			for _, kl := range kills {
				if kl.at > sh.view && kl.at <= sh.at && !(kl.shooter == k.shooter && kl.at == sh.at) {
					return true
				}
			}
			return false
		}
		for _, k := range order {
			sh := shots[k]
			if sh.shown != game.ShownHit {
				continue
			}
			clientHits++
			if sh.reg {
				agreed++
				if killIn(k, sh) {
					agreedAfterKill++
				}
				continue
			}
			refused++
			if sh.clamped || sh.hit {
				t.Errorf("seed %d: a refused shot with clamped view time %v, server hit %v", seed+1, sh.clamped, sh.hit)
			}
			if killIn(k, sh) {
				refusedAfterKill++
			}
		}
	}
	t.Logf("client hits %d, refused %d, of which %d after a kill in the window; agreed %d, of which %d after a kill",
		clientHits, refused, refusedAfterKill, agreed, agreedAfterKill)
	if refused == 0 || refusedAfterKill != refused {
		t.Errorf("%d refused client hits, %d of them after an enemy's kill between view time and arrival: want all", refused, refusedAfterKill)
	}
	if agreedAfterKill*4 > agreed {
		t.Errorf("%d of %d agreed hits after a kill in the window: want far fewer than among the refused", agreedAfterKill, agreed)
	}
}

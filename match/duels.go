package match

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/peek"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// aimCone is how far (radians) a shot's aim may lie from an enemy's torso
// as the shooter's client draws it to count as a shot at that enemy.
const aimCone = 10 * math.Pi / 180

// duelObserver feeds a peek.Tracker from what each client draws and
// fires and what the server registers: the match's duels.
type duelObserver struct {
	tracker peek.Tracker
	grid    *geom.Grid
	params  *game.Params
	ids     []int
	// records and log count the server's records already fed.
	records, log int
}

// observe looks at what player p's client draws at now: every enemy in
// its view with a clear line of sight is a sighting, and a shot fired
// this tick is a shot at the drawn enemy nearest its aim.
func (o *duelObserver) observe(now time.Duration, p *sim.Player) {
	c := p.Client
	if c.Phase() != client.Connected {
		return
	}
	st := c.Predicted()
	if st.Has(game.FlagDead) {
		return
	}
	settings, _ := c.Settings()
	ffa := settings.Mode == "ffa"
	fov := float64(max(settings.FOVDeg, 60)) * math.Pi / 180
	eye := game.EyePos(st, o.params)
	yaw, pitch := game.AngleToRad(int32(st.Yaw)), game.AngleToRad(int32(st.Pitch))
	vt := c.ViewTime(now)
	fired := c.Fired()
	target, best := -1, aimCone
	o.ids = c.RemoteIDs(o.ids[:0])
	for _, id := range o.ids {
		if !ffa {
			if t := c.TeamOf(id); t < 0 || t == c.Team() {
				continue
			}
		}
		rs, ok := c.Remote(id, vt)
		if !ok || !peek.Drawn(o.grid, eye, yaw, fov, rs, o.params) {
			continue
		}
		o.tracker.Sight(now, c.ID(), id)
		if fired {
			if a := peek.AimedAt(eye, yaw, pitch, rs, o.params); a <= best {
				target, best = id, a
			}
		}
	}
	if target >= 0 {
		o.tracker.Shot(now, c.ID(), target)
	}
}

// server feeds the server's registered hits and deaths since the last
// call, then closes the duels nobody has drawn for a while.
func (o *duelObserver) server(now time.Duration, records []server.ShotRecord, log []server.LogEntry) {
	for _, r := range records[o.records:] {
		if r.Registered && r.Victim >= 0 {
			o.tracker.Hit(r.Time, r.Shooter, r.Victim)
		}
	}
	o.records = len(records)
	for _, e := range log[o.log:] {
		if e.Kind == "kill" {
			o.tracker.Killed(e.Time, e.Other, e.Player)
		}
	}
	o.log = len(log)
	o.tracker.Expire(now)
}

// Duel is one duel of a match: the two clients' first sightings, shots
// and first hit (peek.Duel), who saw first and by how much, and what
// Riot's account predicts.
type Duel struct {
	peek.Duel
	// First is the player whose client drew the other first (A on a
	// tie), when both did (Both); AdvantageMS is First's advantage.
	Both        bool    `json:"both"`
	First       int     `json:"first"`
	AdvantageMS float64 `json:"advantage_ms"`
	// ExpectedMS is the advantage Riot's account predicts with First as
	// the peeker: a client frame and a server frame of one tick each,
	// the two players' one-way latencies (half their round trips) and
	// the other's interpolation delay.
	ExpectedMS float64 `json:"expected_ms"`
}

// DuelSummary sums up a match's duels.
type DuelSummary struct {
	// Count is the number of duels, BothSaw those in which both clients
	// drew the other.
	Count   int `json:"count"`
	BothSaw int `json:"both_saw"`
	// AdvantageMeanMS is the mean advantage of the player who saw first
	// over the duels both saw, ExpectedMeanMS the mean of Riot's
	// prediction over the same duels.
	AdvantageMeanMS float64 `json:"advantage_mean_ms"`
	ExpectedMeanMS  float64 `json:"expected_mean_ms"`
	// FirstHitShare is the share of the duels both saw with a hit in
	// which the player who saw first hit first, and FirstWinShare the
	// share of those with a kill in which it killed.
	FirstHitShare float64 `json:"first_hit_share"`
	FirstWinShare float64 `json:"first_win_share"`
}

// duels completes the tracker's duels with who saw first and Riot's
// prediction, from each player's round trip and the clients'
// interpolation delay.
func duels(ds []peek.Duel, players []PlayerResult, cfg Config, tick time.Duration) []Duel {
	rtt := map[int]float64{}
	for _, p := range players {
		rtt[p.ID] = p.RTTms
	}
	interp := cfg.InterpDelay
	if interp == 0 {
		interp = 100 * time.Millisecond
	}
	out := make([]Duel, len(ds))
	for i, d := range ds {
		out[i] = Duel{Duel: d, First: d.A}
		adv, ok := d.Advantage()
		if !ok {
			continue
		}
		out[i].Both = true
		if adv < 0 {
			out[i].First, adv = d.B, -adv
		}
		other := d.A + d.B - out[i].First
		out[i].AdvantageMS = msOf(adv)
		out[i].ExpectedMS = msOf(peek.Expected(peek.Path{
			PeekerFrame: tick, PeekerOneWay: msDur(rtt[out[i].First] / 2), ServerFrame: tick,
			DefenderOneWay: msDur(rtt[other] / 2), DefenderInterp: interp,
		}))
	}
	return out
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// summariseDuels sums up ds.
func summariseDuels(ds []Duel) DuelSummary {
	s := DuelSummary{Count: len(ds)}
	var adv, exp float64
	var hits, firstHits, kills, firstKills int
	for _, d := range ds {
		if !d.Both {
			continue
		}
		s.BothSaw++
		adv += d.AdvantageMS
		exp += d.ExpectedMS
		if d.FirstHit >= 0 {
			hits++
			if d.FirstHit == d.First {
				firstHits++
			}
		}
		if d.Killer >= 0 {
			kills++
			if d.Killer == d.First {
				firstKills++
			}
		}
	}
	if s.BothSaw > 0 {
		s.AdvantageMeanMS, s.ExpectedMeanMS = adv/float64(s.BothSaw), exp/float64(s.BothSaw)
	}
	if hits > 0 {
		s.FirstHitShare = float64(firstHits) / float64(hits)
	}
	if kills > 0 {
		s.FirstWinShare = float64(firstKills) / float64(kills)
	}
	return s
}

package match

import (
	"time"

	"github.com/lagkit/lagkit/peek"
)

// Duel is one duel of a match: the two clients' first sightings, shots
// and first hit (peek.Duel), who saw first and by how much, and what
// Riot's account predicts.
type Duel struct {
	peek.Duel
	// First is the player whose client drew the other first (A on a
	// tie) when both did (Both), else -1; AdvantageMS is First's
	// advantage.
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
		out[i] = Duel{Duel: d, First: -1}
		adv, ok := d.Advantage()
		if !ok {
			continue
		}
		out[i].Both, out[i].First = true, d.A
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

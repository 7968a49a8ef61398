package study

import (
	"fmt"
	"strings"

	"github.com/lagkit/lagkit/record"
)

// DuelFigures sums up a set of duels (the peeker's advantage): how many,
// in how many both clients drew the other, the mean advantage of the one
// that drew first and the mean Riot's account predicts, and how often the
// one that drew first hit first and won.
type DuelFigures struct {
	Duels           int     `json:"duels"`
	BothSaw         int     `json:"both_saw"`
	AdvantageMeanMS float64 `json:"advantage_mean_ms"`
	ExpectedMeanMS  float64 `json:"expected_mean_ms"`
	// FirstHitShare is the share of the duels both saw with a hit in
	// which the first to draw hit first; FirstWinShare the share of
	// those with a kill in which it killed.
	FirstHitShare float64 `json:"first_hit_share"`
	FirstWinShare float64 `json:"first_win_share"`

	advSum, expSum    float64
	hits, firstHits   int
	kills, firstKills int
}

// add tallies one duel.
func (f *DuelFigures) add(d record.Duel) {
	f.Duels++
	if !d.Both {
		return
	}
	f.BothSaw++
	f.advSum += d.AdvantageMS
	f.expSum += d.ExpectedMS
	if d.FirstHit >= 0 {
		f.hits++
		if d.FirstHit == d.First {
			f.firstHits++
		}
	}
	if d.Killer >= 0 {
		f.kills++
		if d.Killer == d.First {
			f.firstKills++
		}
	}
	f.done()
}

// merge adds o's duels to f's.
func (f *DuelFigures) merge(o *DuelFigures) {
	f.Duels += o.Duels
	f.BothSaw += o.BothSaw
	f.advSum += o.advSum
	f.expSum += o.expSum
	f.hits += o.hits
	f.firstHits += o.firstHits
	f.kills += o.kills
	f.firstKills += o.firstKills
	f.done()
}

func (f *DuelFigures) done() {
	f.AdvantageMeanMS = ratioF(f.advSum, f.BothSaw)
	f.ExpectedMeanMS = ratioF(f.expSum, f.BothSaw)
	f.FirstHitShare = ratio(f.firstHits, f.hits)
	f.FirstWinShare = ratio(f.firstKills, f.kills)
}

func ratioF(a float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return a / float64(n)
}

// markdownDuels writes a technique's duels as a sentence.
func markdownDuels(b *strings.Builder, f *DuelFigures) {
	if f.Duels == 0 {
		b.WriteString("\nDuels: none recorded (a live study's clients do not report what they draw; simulated rounds record them).\n")
		return
	}
	fmt.Fprintf(b, "\nDuels (the peeker's advantage): %d, in %d of which both clients drew the other; the first to draw was ahead by "+
		"%.1f ms on average, where Riot's account predicts %.1f ms; it hit first in %.2f and won %.2f of those duels.\n",
		f.Duels, f.BothSaw, f.AdvantageMeanMS, f.ExpectedMeanMS, f.FirstHitShare, f.FirstWinShare)
}

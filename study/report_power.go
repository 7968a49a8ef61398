package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/lagkit/lagkit/stats"
)

// The power of the primary test, planned from a pilot: the paired
// differences of the main outcome that this study's participants gave
// estimate their standard deviation, and a difference d between two
// techniques is then an effect size dz = d / SD. The participants a
// paired t-test needs to detect dz with power 1 − β at two-sided α are
//
//	n = ((z(1−α/2) + z(1−β)) / dz)² + z(1−α/2)² / 2,
//
// the normal approximation with Guenther's correction for the t
// distribution (Guenther 1981, "Sample size formulas for normal theory T
// tests", The American Statistician 35(4)), within one participant of
// the noncentral t's exact n for dz from 0.2 to 1.5. The primary test is
// Wilcoxon's signed-rank test, whose asymptotic relative efficiency to
// the t-test is 3/π = 0.955 when the differences are normal and at least
// 0.864 whatever their distribution (Hodges and Lehmann 1956, "The
// efficiency of some nonparametric competitors of the t-test", Annals of
// Mathematical Statistics 27(2)): it needs n / 0.955, and never more than
// n / 0.864.
const (
	powerAlpha  = 0.05
	powerTarget = 0.80
	zAlpha      = 1.959963984540054  // z(0.975)
	zPower      = 0.8416212335729143 // z(0.80)
	areNormal   = 3 / math.Pi
	areLeast    = 108.0 / 125.0
)

// PowerDifferences are the differences in the main outcome (SBC per hit,
// B − A) the plan gives participants for, beside the pilot's own.
var PowerDifferences = []float64{0.02, 0.05, 0.10}

// Power is the primary test's plan from this study as a pilot.
type Power struct {
	// Pairs is how many participants' differences estimated SD; Mean
	// and SD are their mean and standard deviation.
	Pairs int        `json:"pairs"`
	Mean  float64    `json:"mean_difference"`
	SD    float64    `json:"sd_difference"`
	Rows  []PowerRow `json:"rows"`
}

// PowerRow is the participants needed to detect one difference.
type PowerRow struct {
	// Difference is B − A in SBC per hit, Observed whether it is the
	// pilot's own mean, DZ the effect size.
	Difference float64 `json:"difference"`
	Observed   bool    `json:"observed"`
	DZ         float64 `json:"dz"`
	// T is the participants a paired t-test needs; Wilcoxon those the
	// signed-rank test needs if the differences are normal, WilcoxonAny
	// at most whatever their distribution.
	T           int `json:"t"`
	Wilcoxon    int `json:"wilcoxon"`
	WilcoxonAny int `json:"wilcoxon_any"`
}

// PairedN returns the participants a two-sided paired t-test at α = .05
// needs for power .80 at effect size dz (Guenther's formula, above); 0
// for no effect.
func PairedN(dz float64) int {
	dz = math.Abs(dz)
	if dz == 0 || math.IsNaN(dz) || math.IsInf(dz, 0) {
		return 0
	}
	n := math.Pow((zAlpha+zPower)/dz, 2) + zAlpha*zAlpha/2
	return int(math.Ceil(n))
}

// planPower plans the primary test from the pairs' differences: nil
// under two pairs or with no spread (no SD to plan from).
func planPower(xa, xb []float64) *Power {
	if len(xa) < 2 {
		return nil
	}
	d := make([]float64, len(xa))
	for i := range xa {
		d[i] = xb[i] - xa[i]
	}
	p := &Power{Pairs: len(d), Mean: stats.Mean(d), SD: stats.SD(d)}
	if !(p.SD > 1e-9) { // no spread, up to rounding
		return nil
	}
	row := func(diff float64, observed bool) PowerRow {
		dz := diff / p.SD
		n := PairedN(dz)
		return PowerRow{Difference: diff, Observed: observed, DZ: dz, T: n,
			Wilcoxon: int(math.Ceil(float64(n) / areNormal)), WilcoxonAny: int(math.Ceil(float64(n) / areLeast))}
	}
	if p.Mean != 0 {
		p.Rows = append(p.Rows, row(math.Abs(p.Mean), true))
	}
	for _, diff := range PowerDifferences {
		p.Rows = append(p.Rows, row(diff, false))
	}
	return p
}

// markdownPower writes the power section: per pair of techniques, how
// many participants the primary test needs for each difference.
func (r *Report) markdownPower(b *strings.Builder) {
	if r.Main == nil {
		return
	}
	var planned []OutcomePair
	for _, p := range r.Main.Pairs {
		if p.Power != nil {
			planned = append(planned, p)
		}
	}
	if len(planned) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Power: participants the primary test needs\n\nThis study as a pilot: the standard deviation of its %s' paired differences in SBC per hit (B − A) "+
		"turns a difference into an effect size dz = difference / SD, and a two-sided test at α = %.2f with power %.2f needs the participants below: "+
		"a paired t-test by Guenther's formula n = ((z(1−α/2) + z(1−β)) / dz)² + z(1−α/2)²/2, and the primary test, Wilcoxon's signed-rank test, "+
		"that n over its efficiency relative to the t-test, 0.955 for normal differences and at least 0.864 for any (Hodges and Lehmann). "+
		"An SD from a handful of participants is itself uncertain: plan with the larger figures.\n\n",
		r.Subjects, powerAlpha, powerTarget)
	b.WriteString("| A | B | pairs | SD of B − A | difference | dz | paired t | Wilcoxon (normal) | Wilcoxon (any) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range planned {
		for _, row := range p.Power.Rows {
			diff := fmt.Sprintf("%.3f", row.Difference)
			if row.Observed {
				diff += " (observed)"
			}
			fmt.Fprintf(b, "| %s | %s | %d | %.3f | %s | %.2f | %d | %d | %d |\n", p.A, p.B, p.Power.Pairs, p.Power.SD, diff, row.DZ, row.T, row.Wilcoxon, row.WilcoxonAny)
		}
	}
}

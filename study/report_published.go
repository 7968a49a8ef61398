package study

import (
	"github.com/lagkit/lagkit/experiment"
)

// PeakRollbackMetric names the metric of the rollback band where people
// reported the largest share of their hits as behind cover.
const PeakRollbackMetric = "sbc_reports_peak_rollback_m"

// peopleWhy says why a study played by people can differ from the alc
// study's figures (the experiments' reasons speak of bots).
const peopleWhy = "The study's figures come from 12 people in 10-minute matches on its own metro map; " +
	"ours from this study's participants, rounds and lagkit's rebuilding of that map, so they differ with the players, " +
	"the rounds' length and the number of hits behind each figure."

// published returns the figures the study a preset recreates published,
// for a study named after the preset (alc, atd, timewarp), each to set
// beside ours, and the findings it published without a figure to
// compare; nothing for other studies. The reasons given for a
// disagreement are those of bots for a simulated study, of people
// otherwise.
func published(study string, simulated bool) ([]experiment.Reference, []string) {
	switch study {
	case "alc":
		var refs []experiment.Reference
		if e, err := experiment.Get("alc"); err == nil {
			refs = append(refs, e.Published...)
		}
		// The rollback experiment's reference is of one round trip and
		// speed; the study measured it under tlc.
		if e, err := experiment.Get("rollback"); err == nil {
			for _, ref := range e.Published {
				if ref.Metric == "rollback_mean_m" {
					ref.Condition = "tlc"
					refs = append(refs, ref)
				}
			}
		}
		refs = append(refs, experiment.Reference{Metric: PeakRollbackMetric, Condition: "tlc", Value: 0.245, Tolerance: 0.25, Source: "alc",
			Detail: "perceived shots behind cover rose with rollback distance up to about 0.23-0.26 m (0.245 m ± 25% here); " +
				"ours is the middle of the 5 cm band of rollback where participants reported the largest share of the hits they received",
			Why: "the share of a band rests on the few hits it holds and on what people noticed; bots report nothing, so a simulated study has no such figure."})
		for i := range refs {
			refs[i].Citation = experiment.Cite(refs[i].Source)
			if !simulated {
				refs[i].Why = peopleWhy
			}
		}
		return refs, nil
	case "atd":
		return nil, []string{
			"At 150 ms round trip, adaptive time delay kept fairness and improved perceived responsiveness [atd].",
			"Instant adaptation (0 s) was worse than no compensation; an adaptation time of 1 s was best [atd].",
			"These are findings on the questionnaire (fairness, responsiveness), without figures to set beside ours: " +
				"compare the techniques' medians and the paired tests of the questions below. " + experiment.Cite("atd"),
		}
	case "timewarp":
		return nil, []string{
			"The time warp study measured the cost of time warp on its server, growing as rewind × entities² and saturating near 45 bots [timewarp]; " +
				"that is a figure of the server, which lagkit experiment run timewarp measures, not of the players a study records. " + experiment.Cite("timewarp"),
		}
	}
	return nil, nil
}

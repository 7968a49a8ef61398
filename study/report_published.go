package study

import (
	"github.com/lagkit/lagkit/experiment"
)

// PeakRollbackMetric names the metric of the rollback band where people
// reported the largest share of their hits as behind cover.
const PeakRollbackMetric = "sbc_reports_peak_rollback_m"

// peopleWhy says why a study played by people can differ from the alc
// study's figures (the experiments' reasons speak of bots).
const peopleWhy = "The thesis's figures come from 12 people, in two sets of six, in 10-minute matches on its own metro map; " +
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
				if ref.Metric == "rollback_mean_m" && ref.Test == "" {
					ref.Condition = "tlc"
					refs = append(refs, ref)
				}
			}
		}
		refs = append(refs, experiment.Reference{Metric: PeakRollbackMetric, Condition: "tlc", Value: 0.245, Tolerance: 0.25, Source: "lee-thesis",
			Location: "sections 6.2.2.2 and 6.2.2.3 (Figures 6.8 and 6.10)", Printed: "around 0.23m to 0.26m", Unit: "m", Check: experiment.Verified,
			Detail: "perceived SBC frequency plateaued at a grand average rollback of about 0.23 m and perceived fairness was lowest at 0.26 m " +
				"(0.245 m ± 25% here); ours is the middle of the 5 cm band of rollback where participants reported the largest share of the hits they received",
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
			"With 150 ms added to the other player, adaptive time delay brought the low-latency player's accuracy near the other's " +
				"and lowered the latency that player perceived (sections 4.3 and 4.4, Figures 19c and 20c) [atd].",
			"With 0 s adaptation the low-latency player's accuracy fell significantly and the latency perceived rose above the other " +
				"player's; players rated 1 s fairer than 0 s and 2 s (sections 4.3 to 4.5, Figures 19d, 20d and 21d) [atd].",
			"These are findings on the questionnaire (fairness, responsiveness), without figures to set beside ours: " +
				"compare the techniques' medians and the paired tests of the questions below. " + experiment.Cite("atd"),
		}
	case "timewarp":
		return nil, []string{
			"The time warp study measured the cost of time warp on its server, its duration growing as rewind × entities² (section 4.2.2) " +
				"and its CPU load, with a warp per AI per second, stopping at 45 AI (section 4.2.1) [timewarp]; " +
				"that is a figure of the server, which lagkit experiment run timewarp measures, not of the players a study records. " + experiment.Cite("timewarp"),
		}
	}
	return nil, nil
}

package experiment

// Sources holds the full references of the studies the experiments
// rerun, keyed as docs/references.md cites them ([alc], [atd], ...), so
// every report prints the same reference for a key. Parts that could not
// be checked against the publication are marked as such.
var Sources = map[string]string{
	"alc": "Steven W. K. Lee and R. Chang. 2018. Enhancing the experience of multiplayer shooter games " +
		"via advanced lag compensation. In Proceedings of the 9th ACM Multimedia Systems Conference " +
		"(MMSys '18). ACM. https://doi.org/10.1145/3204949.3204971. (LAGCOM, capture the flag on a " +
		"metro station map, 12 players, tlc against alc; page numbers not verified.)",
	"atd": "The adaptive time delay study: Color Clash, one-on-one deathmatch, time delay and adaptive " +
		"time delay with 0, 1 and 2 s adaptation. (Authors, venue, year and pages not verified here; " +
		"see docs/references.md.)",
	"timewarp": "The time warp study: Six Shooter, a JavaScript game, four players, time warp cost " +
		"against rewind and entities. (Authors, venue, year and pages not verified here; see " +
		"docs/references.md.)",
	"led": "The led reckoning study: dead reckoning with thresholds moved by trend maps of recorded " +
		"play. (Authors, venue, year and pages not verified here; see docs/references.md.)",
	"taxonomy": "Shengmei Liu, Xiaokun Xu and Mark Claypool. 2022. A Survey and Taxonomy of Latency " +
		"Compensation Techniques for Network Computer Games. ACM Computing Surveys 54(11s), " +
		"Article 243. https://doi.org/10.1145/3519023.",
}

// Cite returns the full reference of key, or a note that lagkit has none.
func Cite(key string) string {
	if s, ok := Sources[key]; ok {
		return s
	}
	return "no reference under [" + key + "] in lagkit's sources"
}

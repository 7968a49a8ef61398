package experiment

// Sources holds the full references of the studies the experiments
// rerun, keyed as docs/references.md cites them ([alc], [lee-thesis],
// [atd], ...), so every report prints the same reference for a key.
// Parts that could not be checked against the source's own text are
// marked as such.
var Sources = map[string]string{
	"alc": "Steven W. K. Lee and Rocky K. C. Chang. 2018. Enhancing the experience of multiplayer shooter games " +
		"via advanced lag compensation. In Proceedings of the 9th ACM Multimedia Systems Conference " +
		"(MMSys '18). ACM. https://doi.org/10.1145/3204949.3204971. (Pages 284-293 as the [timewarp] report " +
		"cites it; the paper's own text was not checked: lagkit's figures of its study are read in [lee-thesis], " +
		"chapter 7, which reports the same experiment.)",
	"lee-thesis": "Lee Wai Kiu (Steven W. K. Lee). 2018. Lag Compensation in First-Person Shooter Games. MPhil " +
		"thesis, Department of Computing, The Hong Kong Polytechnic University (submitted April 2018; library " +
		"copy dated 2019). Chapter 4: a CS:GO experiment on TLC; section 6.2: rollback against round trip " +
		"and speed; chapter 7: ALC in LAGCOM.",
	"atd": "Benjamin Gelinas, Andrew Hariyanto, Trevor Ng and Sophia Silkaitis. Exploring Adaptive Time Delay " +
		"as a Latency Compensation Technique in First Person Shooter Games. Major Qualifying Project (undergraduate " +
		"project report), Worcester Polytechnic Institute, advised by Mark Claypool. (Year not printed in the " +
		"text lagkit has; not peer reviewed.)",
	"timewarp": "Ben Hetherington and Alex Osler. 2020. Time Warp and Prediction Analysis in a Top-Down Shooter " +
		"Game. Major Qualifying Project (undergraduate project report), Worcester Polytechnic Institute, " +
		"6 March 2020, advised by Mark Claypool. (Not peer reviewed.)",
	"led": "Richard Steele. Improving Client-Side Prediction Methods in Networked Multiplayer First-Person " +
		"Shooter Games with Experiential Data. (Year, venue and pages not printed in the text lagkit has.)",
	"tokey-peek": "Samin Shahriar Tokey, Mark Claypool and others (WPI, with NVIDIA). 2024. A study of the peeker's " +
		"advantage in first-person shooters. In Proceedings of the Foundations of Digital Games conference (FDG '24). " +
		"(Title, authors and pages not checked: the paper is not among lagkit's source texts; lagkit sets beside it only " +
		"the direction of its findings as the project's issue reports them.)",
	"carlson-scaling": "Carlson et al. (WPI). 2021. Attribute scaling for latency compensation in a first-person " +
		"shooter. In Proceedings of the ACM Games Systems workshop (GameSys '21). (Title, authors and pages not " +
		"checked: the paper is not among lagkit's source texts; lagkit sets beside it only what the project's issue " +
		"reports of it: a model of accuracy against latency and scale with R² 0.95.)",
	"lee-target": "Injung Lee, Sunjun Kim and Byungjoo Lee. 2019. Geometrically compensating effect of end-to-end " +
		"latency in moving-target selection games. In Proceedings of the CHI Conference on Human Factors in " +
		"Computing Systems (CHI '19). (Not checked: the paper is not among lagkit's source texts.)",
	"vicencio-assist": "Rodrigo Vicencio-Moreira, Regan L. Mandryk and Carl Gutwin. 2014. The effectiveness (or lack " +
		"thereof) of aim-assist techniques in first-person shooter games. In Proceedings of the SIGCHI Conference on " +
		"Human Factors in Computing Systems (CHI '14). (Not checked: the paper is not among lagkit's source texts.)",
	"halbhuber-quiet": "David Halbhuber and others. 2022. Better be quiet about it! The effects of phantom latency on " +
		"experienced first-person shooter players. In Proceedings of the CHI Conference on Human Factors in Computing " +
		"Systems (CHI '22). (Authors and pages not checked: the paper is not among lagkit's source texts.)",
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

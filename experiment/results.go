package experiment

// Results is what an experiment run produces: results.json holds it, and
// the report, CSV tables and plots are drawn from it. Its field names are
// a contract with other tools: results.json is read by programs.
type Results struct {
	Experiment string `json:"experiment"`
	Seed       uint64 `json:"seed"`
	Quick      bool   `json:"quick"`
	// Title and Design describe the study and how this run mirrors it, in
	// a sentence or a few (plain text).
	Title  string `json:"title"`
	Design string `json:"design"`
	// Shard is "k/n" when the run holds only part of the cells.
	Shard      string      `json:"shard,omitempty"`
	Conditions []Condition `json:"conditions"`
	Tests      []Test      `json:"tests"`
	// Tables are the report's tables; each is also written as a CSV file.
	Tables []Table `json:"tables"`
	// Plots are drawn from the tables.
	Plots []Plot `json:"plots"`
	// Published are the study's own figures, shown beside ours.
	Published []Reference `json:"published,omitempty"`
	WallS     float64     `json:"wall_s"`
	// Provenance says which lagkit build and command wrote the results.
	Provenance Provenance `json:"provenance"`
}

// Condition is one cell of the design, with its metrics aggregated over
// its runs.
type Condition struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
	// Metrics are snake_case with units in the name (hit_accuracy,
	// sbc_per_hit, rollback_mean_m, ...).
	Metrics map[string]float64 `json:"metrics"`
	// N is the sample size behind the metrics (runs, players or shots:
	// NUnit says which).
	N     int    `json:"n"`
	NUnit string `json:"n_unit"`
}

// Test is one statistical comparison.
type Test struct {
	// Name names the metric and the comparison in the direction of the
	// difference: "sbc_per_hit_low: alc − tlc" is alc minus tlc.
	Name string `json:"name"`
	// Kind is paired_t, wilcoxon, pearson, or another test's name.
	Kind   string `json:"kind"`
	Metric string `json:"metric"`
	// A and B name the conditions compared, the difference being B − A
	// (for pearson: the two variables).
	A         string  `json:"a"`
	B         string  `json:"b"`
	N         int     `json:"n"`
	Statistic float64 `json:"statistic"`
	P         float64 `json:"p"`
	// PHolm is P adjusted by Holm's method over the run's tests of the
	// same kind (HolmFamily of them).
	PHolm      float64 `json:"p_holm"`
	HolmFamily int     `json:"holm_family"`
	// Effect is the effect size, of the measure EffectMeasure names:
	// Cohen's d_z for paired t, the matched-pairs rank-biserial
	// correlation for Wilcoxon, r for Pearson.
	Effect        float64 `json:"effect"`
	EffectMeasure string  `json:"effect_measure"`
	// MeanDiff is the test's estimate of B − A, of the kind Centre names
	// (a mean difference for paired t, the median of the differences for
	// Wilcoxon; empty for Pearson, which estimates no difference), with
	// its 95% confidence interval (for Pearson, the interval of r).
	MeanDiff float64    `json:"mean_diff"`
	Centre   string     `json:"centre,omitempty"`
	CI95     [2]float64 `json:"ci95"`
	Note     string     `json:"note,omitempty"`
}

// Effect measures and centres of the tests the experiments run.
const (
	EffectCohenDz      = "Cohen's d_z"
	EffectRankBiserial = "rank-biserial r"
	EffectPearsonR     = "Pearson's r"
	CentreMean         = "mean difference"
	CentreMedian       = "median difference"
)

// Table is a titled table of values.
type Table struct {
	// Name is the CSV file's base name (snake_case, no extension).
	Name    string     `json:"name"`
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Plot is a chart drawn from a table's columns.
type Plot struct {
	// Name is the image file's base name.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Kind is "bar" (one bar per row of Y, labelled by X) or "line" (Y
	// against numeric X, one line per distinct Series value).
	Kind   string `json:"kind"`
	Table  string `json:"table"`
	X      string `json:"x"`
	Y      string `json:"y"`
	Series string `json:"series,omitempty"`
	// YErr names a column of half-widths for error bars (optional).
	YErr   string `json:"y_err,omitempty"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
}

// Reference is a figure a study published, to set beside ours.
type Reference struct {
	// Metric and Condition name the figure of ours it compares with.
	Metric    string `json:"metric"`
	Condition string `json:"condition"`
	// Test, when set, names one of the run's tests (by Test.Name, of kind
	// paired_t): Value is then the study's p-value for that comparison,
	// compared with the test's p.
	Test  string  `json:"test,omitempty"`
	Value float64 `json:"value"`
	// Source is the study's key in Sources ("alc"), cited as [alc] in
	// docs/references.md; Citation is its full reference, filled from
	// Sources.
	Source   string `json:"source"`
	Citation string `json:"citation,omitempty"`
	// Detail says what the study measured and where it reports it.
	Detail string `json:"detail,omitempty"`
	// Tolerance is the relative difference within which ours counts as
	// agreeing with Value (0: DefaultTolerance). Unused for p-values,
	// which agree when both or neither are below 0.05.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Why explains why ours can differ from the study's, for the report
	// to print where they disagree.
	Why string `json:"why,omitempty"`
}

// DefaultTolerance is the relative difference within which a figure of
// ours agrees with a published one: bots are not people, and a quarter
// either way is as close as a rerun with bots can claim.
const DefaultTolerance = 0.25

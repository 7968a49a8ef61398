package experiment

// Results is what an experiment run produces: results.json holds it, and
// the report, CSV tables and plots are drawn from it (SPEC section 12).
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
	Name string `json:"name"`
	// Kind is paired_t, wilcoxon, pearson, or another test's name.
	Kind   string `json:"kind"`
	Metric string `json:"metric"`
	// A and B name the conditions compared (for pearson: the two
	// variables).
	A         string  `json:"a"`
	B         string  `json:"b"`
	N         int     `json:"n"`
	Statistic float64 `json:"statistic"`
	P         float64 `json:"p"`
	// Effect is the effect size (Cohen's d for t-tests, r for pearson),
	// MeanDiff the mean difference B - A with its 95% confidence interval.
	Effect   float64    `json:"effect"`
	MeanDiff float64    `json:"mean_diff"`
	CI95     [2]float64 `json:"ci95"`
	Note     string     `json:"note,omitempty"`
}

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

// Reference is a figure the study published, to set beside ours.
type Reference struct {
	Metric    string  `json:"metric"`
	Condition string  `json:"condition"`
	Value     float64 `json:"value"`
	Source    string  `json:"source"`
}

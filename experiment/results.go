package experiment

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

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
	// Family, when set, names the tests corrected together apart from
	// the others of their kind: "primary" for a study's main outcome.
	Family string `json:"family,omitempty"`
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
	YErr string `json:"y_err,omitempty"`
	// YLo and YHi name columns of an interval's lower and upper bounds,
	// for error bars that need not be symmetric (a Wilson or bootstrap
	// interval); both or neither, and not with YErr.
	YLo    string `json:"y_lo,omitempty"`
	YHi    string `json:"y_hi,omitempty"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	// Caption says what the plot shows, for the figure's caption: what
	// the bars or points are, what the error bars bound, and over what.
	Caption string `json:"caption,omitempty"`
}

// Reference is a figure a study published, to set beside ours.
type Reference struct {
	// Metric and Condition name the figure of ours it compares with.
	Metric    string `json:"metric"`
	Condition string `json:"condition"`
	// Test, when set, names one of the run's tests (by Test.Name, of kind
	// TestKind, paired_t when empty): Value is then the study's p-value
	// for that comparison, compared with the test's p, or, when Statistic
	// is set, the study's statistic (a correlation's r), compared with the
	// test's.
	Test      string  `json:"test,omitempty"`
	TestKind  string  `json:"test_kind,omitempty"`
	Statistic bool    `json:"statistic,omitempty"`
	Value     float64 `json:"value"`
	// Source is the study's key in Sources ("alc"), cited as [alc] in
	// docs/references.md; Citation is its full reference, filled from
	// Sources.
	Source   string `json:"source"`
	Citation string `json:"citation,omitempty"`
	// Location is where the source prints the figure: its chapter or
	// section and table or figure ("chapter 4, Table 4.2").
	Location string `json:"location"`
	// Printed is the figure as the source prints it, with its unit
	// ("21.6%", "around 0.61m", "r = -0.45"); Value is the same figure in
	// Unit, the unit of lagkit's metric it is set beside.
	Printed string `json:"printed"`
	Unit    string `json:"unit"`
	// Check says whether Location, Printed and Unit were checked against
	// the source's text (Verified) or are as lagkit's design took them
	// (Unverified); reports mark unverified figures.
	Check Check `json:"check"`
	// Detail says what the study measured, in lagkit's words.
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

// Check says whether a published figure was checked against its
// source's text.
type Check string

// The checks a published figure can have.
const (
	// Verified: the figure, its unit and its location were read in the
	// source's text (docs/references.md says which text).
	Verified Check = "verified"
	// Unverified: the figure is as lagkit's design took it and was not
	// found in the source's text; reports mark it.
	Unverified Check = "unverified"
)

// TestKindOf returns the kind of test a published p-value or statistic
// compares with: ref.TestKind, or paired_t when it is empty.
func (ref Reference) TestKindOf() string {
	if ref.TestKind == "" {
		return "paired_t"
	}
	return ref.TestKind
}

// Problems lists what ref lacks to be cited: a source in Sources, where
// the source prints it (a chapter, section, table or figure, with its
// number), the figure as printed, the unit it is compared in, whether it
// was checked against the source's text, what it is and why ours may
// differ; and, compared with a test, a kind of test the experiments run.
func (ref Reference) Problems() []string {
	var out []string
	if _, ok := Sources[ref.Source]; !ok {
		out = append(out, fmt.Sprintf("source %q is not in Sources", ref.Source))
	}
	if !locationRE.MatchString(ref.Location) || strings.HasPrefix(strings.ToLower(ref.Location), "abstract") && ref.Check == Verified {
		out = append(out, fmt.Sprintf("location %q names no numbered chapter, section, table or figure", ref.Location))
	}
	if !figureRE.MatchString(ref.Printed) {
		// A finding without a number (a ranking, a direction) is no
		// figure to set ours beside: a number standing in for it would
		// give a verdict against a figure no study printed.
		out = append(out, fmt.Sprintf("printed %q holds no figure (no number as the source prints it)", ref.Printed))
	}
	if ref.Tolerance >= 1 {
		out = append(out, fmt.Sprintf("tolerance %v: a relative tolerance of 100%% or more lets any figure of the same sign agree", ref.Tolerance))
	}
	if ref.Unit == "" {
		out = append(out, "no unit")
	}
	if ref.Check != Verified && ref.Check != Unverified {
		out = append(out, fmt.Sprintf("check %q: want %q or %q", ref.Check, Verified, Unverified))
	}
	if ref.Detail == "" || ref.Why == "" {
		out = append(out, "no detail or no explanation for a disagreement")
	}
	if ref.Test != "" && !slices.Contains([]string{"paired_t", "wilcoxon", "pearson"}, ref.TestKindOf()) {
		out = append(out, fmt.Sprintf("test kind %q is not one the experiments run", ref.TestKindOf()))
	}
	if ref.Statistic && ref.Test == "" {
		out = append(out, "a statistic compared with no test")
	}
	return out
}

// figureRE matches a printed figure: a number.
var figureRE = regexp.MustCompile(`[0-9]`)

// locationRE matches a numbered chapter, section, table or figure, in
// Arabic or Roman numerals: "Table 4.2", "section VIII-A"; or the
// abstract, for an unverified finding known only from it.
var locationRE = regexp.MustCompile(`(?i)\b(chapters?|sections?|tables?|figures?)\s+([0-9]+|[IVXLC]+\b)|^abstract\b`)

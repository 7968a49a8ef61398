package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
)

//go:embed report.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"num":    formatNumber,
	"p":      formatP,
	"params": formatParams,
	"isnum": func(cell string) bool {
		_, ok := number(cell)
		return ok
	},
	// cell prints a table cell: numbers, which tables hold at full
	// precision, rounded for reading; text as it is.
	"cell": func(cell string) string {
		if v, ok := number(cell); ok {
			return formatNumber(v)
		}
		return cell
	},
	"breakable": breakable,
}).Parse(pageSource))

// maxColumns is the most columns a table of the report has: wider tables
// are transposed or split (see layout), so the page never scrolls
// sideways and prints whole.
const maxColumns = 8

// page is what the report template is drawn from.
type page struct {
	R           *experiment.Results
	Title       string
	Conditions  []grid
	Tests       []testRow
	TestSummary string
	Figures     []figure
	Published   []published
	References  []reference
	Tables      []table
}

// grid is one table of the page, at most maxColumns wide: Head across the
// top, and each row's first cell a row heading.
type grid struct {
	Head []string
	Rows [][]string
}

type table struct {
	Name, Title string
	Parts       []grid
}

type figure struct {
	Name, Title, Caption string
	SVG                  template.HTML
}

// testRow is a test as the page shows it, each figure labelled with what
// it measures.
type testRow struct {
	experiment.Test
	KindLabel, Statistic, Effect, Difference string
}

type published struct {
	experiment.Reference
	// Figure names what was measured; Ours is this run's value, or "–"
	// when the run has none; Verdict says whether the two agree and, if
	// not, why they may differ.
	Figure, Published, Ours, Verdict string
	// Unverified marks a figure not checked against its source's text
	// (or whose check is missing).
	Unverified bool
}

type reference struct{ Key, Text string }

// renderHTML draws the report page around the plots' SVG documents, which
// are inlined so the page needs no other file.
func renderHTML(r *experiment.Results, svgs [][]byte) ([]byte, error) {
	pg := page{R: r, Title: cmp.Or(r.Title, r.Experiment, "Experiment report")}
	pg.Conditions = conditionGrids(r.Conditions)
	pg.Tests, pg.TestSummary = testRows(r.Tests)
	for i, p := range r.Plots {
		// The SVG comes from gonum/plot, which escapes every text it
		// draws; only the XML prolog and comment before <svg> are dropped,
		// as HTML has no place for them.
		svg := svgs[i][bytes.Index(svgs[i], []byte("<svg")):]
		pg.Figures = append(pg.Figures, figure{Name: p.Name, Title: p.Title, Caption: p.Caption, SVG: template.HTML(svg)})
	}
	pg.Published, pg.References = publishedRows(r)
	for _, t := range r.Tables {
		pg.Tables = append(pg.Tables, table{Name: t.Name, Title: t.Title, Parts: layout(t.Columns, t.Rows)})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// conditionGrids lays out the conditions with their parameters, sample
// size and every metric any condition has.
func conditionGrids(conds []experiment.Condition) []grid {
	if len(conds) == 0 {
		return nil
	}
	seen := make(map[string]bool)
	for _, c := range conds {
		for m := range c.Metrics {
			seen[m] = true
		}
	}
	metrics := slices.Sorted(maps.Keys(seen))
	head := append([]string{"condition", "parameters", "n"}, metrics...)
	var rows [][]string
	for _, c := range conds {
		row := []string{c.Name, formatParams(c.Params), fmt.Sprintf("%d %s", c.N, c.NUnit)}
		for _, m := range metrics {
			v, ok := c.Metrics[m]
			if !ok {
				row = append(row, "–")
				continue
			}
			row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
		}
		rows = append(rows, row)
	}
	return layout(head, rows)
}

// layout fits a table into grids of at most maxColumns columns: as it is
// when narrow enough; transposed (a row per column) when it has few rows;
// otherwise split into column groups, each repeating the first column.
func layout(head []string, rows [][]string) []grid {
	if len(head) <= maxColumns {
		return []grid{{Head: head, Rows: rows}}
	}
	if len(rows)+1 <= maxColumns {
		t := grid{Head: []string{head[0]}}
		for _, row := range rows {
			t.Head = append(t.Head, row[0])
		}
		for j := 1; j < len(head); j++ {
			out := []string{head[j]}
			for _, row := range rows {
				out = append(out, row[j])
			}
			t.Rows = append(t.Rows, out)
		}
		return []grid{t}
	}
	var parts []grid
	for lo := 1; lo < len(head); lo += maxColumns - 1 {
		hi := min(lo+maxColumns-1, len(head))
		g := grid{Head: append([]string{head[0]}, head[lo:hi]...)}
		for _, row := range rows {
			g.Rows = append(g.Rows, append([]string{row[0]}, row[lo:hi]...))
		}
		parts = append(parts, g)
	}
	return parts
}

// testKinds labels each kind of test, its statistic and its centre.
var testKinds = map[string]struct{ label, statistic string }{
	"paired_t": {"paired t", "t"},
	"wilcoxon": {"Wilcoxon signed-rank", "W+"},
	"pearson":  {"Pearson correlation", "r"},
}

// testRows labels each test's figures, and says how p was corrected.
func testRows(tests []experiment.Test) ([]testRow, string) {
	var rows []testRow
	families := map[string]int{}
	for _, t := range tests {
		k, ok := testKinds[t.Kind]
		if !ok {
			k.label, k.statistic = t.Kind, "statistic"
		}
		row := testRow{Test: t, KindLabel: k.label, Statistic: k.statistic + " = " + formatNumber(t.Statistic)}
		ci := "[" + formatBound(t.CI95[0]) + ", " + formatBound(t.CI95[1]) + "]"
		measure := cmp.Or(t.EffectMeasure, "effect")
		row.Effect = measure + " = " + formatNumber(t.Effect)
		if t.Centre == "" {
			// A correlation estimates no difference; its interval is r's.
			row.Effect += " " + ci
			row.Difference = "–"
		} else {
			row.Difference = t.Centre + " " + formatNumber(t.MeanDiff) + " " + ci
		}
		rows = append(rows, row)
		label := k.label
		if t.Family != "" {
			label = t.Family + " " + label
		}
		families[label] = t.HolmFamily
	}
	if len(rows) == 0 {
		return nil, ""
	}
	var parts []string
	for _, label := range slices.Sorted(maps.Keys(families)) {
		parts = append(parts, fmt.Sprintf("%d %s", families[label], label))
	}
	return rows, "p (Holm) is p adjusted for multiple comparisons by Holm's step-down method (Holm 1979, " +
		"Scandinavian Journal of Statistics 6(2):65-70), each kind of test a family: " + strings.Join(parts, ", ") +
		" test(s). A comparison named \"metric: B − A\" estimates B minus A. Effect sizes: Cohen's d_z is the mean " +
		"difference over the standard deviation of the differences (Lakens 2013); the rank-biserial r is " +
		"(W+ − W−)/(W+ + W−) (Kerby 2014), from −1 to 1."
}

// publishedRows sets each published figure beside this run's and says
// whether they agree; references lists the studies cited.
func publishedRows(r *experiment.Results) ([]published, []reference) {
	var rows []published
	keys := map[string]string{}
	for _, ref := range r.Published {
		row := published{Reference: ref, Ours: "–"}
		if ref.Citation != "" {
			keys[ref.Source] = ref.Citation
		}
		switch {
		case ref.Test != "" && ref.Statistic:
			label := testKinds[ref.TestKindOf()].statistic
			if label == "" {
				label = "statistic"
			}
			row.Figure = label + " of " + ref.Test
			row.Published = label + " = " + formatNumber(ref.Value)
			for _, t := range r.Tests {
				if t.Name == ref.Test && t.Kind == ref.TestKindOf() {
					row.Ours = label + " = " + formatNumber(t.Statistic)
					row.Verdict = statisticVerdict(ref, t)
					break
				}
			}
		case ref.Test != "":
			row.Figure = "p of " + ref.Test + " (" + testLabel(ref.TestKindOf()) + ")"
			row.Published = "p = " + formatP(ref.Value)
			for _, t := range r.Tests {
				if t.Name == ref.Test && t.Kind == ref.TestKindOf() {
					row.Ours = "p = " + formatP(t.P)
					row.Verdict = pVerdict(ref, t)
					break
				}
			}
		default:
			row.Figure = ref.Metric + " under " + ref.Condition
			row.Published = formatNumber(ref.Value)
			for _, c := range r.Conditions {
				if c.Name != ref.Condition {
					continue
				}
				if v, ok := c.Metrics[ref.Metric]; ok {
					row.Ours = formatNumber(v)
					row.Verdict = valueVerdict(ref, v)
				}
				break
			}
		}
		if row.Verdict == "" {
			row.Verdict = "This run has no such figure to compare."
		}
		row.Unverified = ref.Check != experiment.Verified
		rows = append(rows, row)
	}
	var refs []reference
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		refs = append(refs, reference{k, keys[k]})
	}
	return rows, refs
}

// valueVerdict compares our value v with a published one.
func valueVerdict(ref experiment.Reference, v float64) string {
	tol := ref.Tolerance
	if tol <= 0 {
		tol = experiment.DefaultTolerance
	}
	pub := ref.Value
	if pub != 0 && v != 0 && math.Signbit(v) != math.Signbit(pub) {
		return strings.TrimSpace(fmt.Sprintf("Disagrees in direction: ours is %s where the study's is %s. %s", formatNumber(v), formatNumber(pub), ref.Why))
	}
	if math.Abs(v-pub) <= tol*math.Abs(pub) {
		return fmt.Sprintf("Agrees: ours is within %s of the published figure.", formatPercent(tol))
	}
	var how string
	switch {
	case pub == 0 || v == 0:
		how = fmt.Sprintf("ours is %s where the study's is %s", formatNumber(v), formatNumber(pub))
	case v/pub >= 2 || v/pub <= 0.5:
		how = fmt.Sprintf("ours is %s times the study's", formatNumber(v/pub))
	case v > pub:
		how = fmt.Sprintf("ours is %s higher than the study's", formatPercent(v/pub-1))
	default:
		how = fmt.Sprintf("ours is %s lower than the study's", formatPercent(1-v/pub))
	}
	return strings.TrimSpace(fmt.Sprintf("Disagrees: %s, beyond the %s counted as agreement. %s", how, formatPercent(tol), ref.Why))
}

// testLabel names a kind of test for reading.
func testLabel(kind string) string {
	if k, ok := testKinds[kind]; ok {
		return k.label
	}
	return kind
}

// statisticVerdict compares our statistic with a published one. A
// correlation agrees when the two have the same sign and are within the
// tolerance of each other (as a difference of r, 0.25 unless set);
// other statistics as values.
func statisticVerdict(ref experiment.Reference, t experiment.Test) string {
	if t.Kind != "pearson" {
		return valueVerdict(ref, t.Statistic)
	}
	tol := ref.Tolerance
	if tol <= 0 {
		tol = experiment.DefaultTolerance
	}
	ours, pub := t.Statistic, ref.Value
	switch {
	case math.Signbit(ours) != math.Signbit(pub):
		return strings.TrimSpace(fmt.Sprintf("Disagrees: ours is r = %s (n = %d, 95%% interval [%s, %s]), of the opposite sign to the study's. %s",
			formatNumber(ours), t.N, formatBound(t.CI95[0]), formatBound(t.CI95[1]), ref.Why))
	case math.Abs(ours-pub) <= tol:
		return fmt.Sprintf("Agrees: the same sign, and ours is within %s of the study's r.", formatNumber(tol))
	}
	return strings.TrimSpace(fmt.Sprintf("Disagrees in size: the same sign, but ours differs from the study's r by %s, beyond the %s counted as agreement. %s",
		formatNumber(math.Abs(ours-pub)), formatNumber(tol), ref.Why))
}

// pVerdict sets our test beside a study's p-value. Equal or similar
// p-values are not agreement: p depends on the sample's size and kind (a
// run's seeds of bots, the study's people), and "neither significant"
// means only that neither detected a difference, not that the two found
// the same thing. So the verdict never says "agrees": it says what each
// concluded at the 5% level and gives our estimate with its interval,
// which is what a reader can set beside the study's figures.
func pVerdict(ref experiment.Reference, t experiment.Test) string {
	ours, theirs := t.P < 0.05, ref.Value < 0.05
	est := fmt.Sprintf("ours estimates %s at %s (95%% interval [%s, %s]) over n = %d", t.Centre, formatNumber(t.MeanDiff),
		formatBound(t.CI95[0]), formatBound(t.CI95[1]), t.N)
	if t.Centre == "" {
		est = fmt.Sprintf("ours has n = %d", t.N)
	}
	caveat := "p depends on the sample's size and kind, so the two p-values are not compared as figures"
	switch {
	case ours && theirs:
		return fmt.Sprintf("Both find a difference at the 5%% level; %s. Whether they agree rests on the direction and size of the difference, not on p; %s.", est, caveat)
	case !ours && !theirs:
		return fmt.Sprintf("Not evidence of agreement: neither finds a difference at the 5%% level, which shows no difference in either, not that the two match; %s. Read the interval: a difference inside it is not ruled out; %s.", est, caveat)
	case ours:
		return strings.TrimSpace(fmt.Sprintf("Differs in conclusion: ours finds a difference at the 5%% level where the study found none; %s. %s", est, ref.Why))
	}
	return strings.TrimSpace(fmt.Sprintf("Differs in conclusion: the study found a difference at the 5%% level where ours finds none; %s. %s", est, ref.Why))
}

// formatPercent prints a fraction as a percentage for reading.
func formatPercent(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 3, 64) + "%"
}

// breakable escapes s for HTML and lets the browser break a snake_case
// name after its underscores, and key=value after the "=", so a narrow
// column's text wraps rather than widening the table.
func breakable(s string) template.HTML {
	return template.HTML(breakPoints.Replace(html.EscapeString(s)))
}

var breakPoints = strings.NewReplacer("_", "_<wbr>", "=", "=<wbr>")

// formatNumber prints v for a reader: whole numbers in full, others to
// four significant figures (one decimal place between 100 and a million,
// where more digits are noise).
func formatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100 && a < 1e6:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// formatBound prints an interval's bound, the largest float64 (which
// results.json holds for an unbounded side, as JSON has no infinity)
// as ∞.
func formatBound(v float64) string {
	switch v {
	case math.MaxFloat64:
		return "∞"
	case -math.MaxFloat64:
		return "−∞"
	}
	return formatNumber(v)
}

// formatP prints a p-value the way APA style does: three decimals, and
// "< 0.001" below that.
func formatP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// formatParams prints a condition's parameters as "key=value" pairs in
// key order.
func formatParams(params map[string]any) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(params)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%v", k, params[k])
	}
	return b.String()
}

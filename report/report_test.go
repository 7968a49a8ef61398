package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/experiment"
)

// sample is a small but complete Results: two conditions, a test, two
// tables, a bar and a line plot, and a published reference.
func sample() *experiment.Results {
	return &experiment.Results{
		Experiment: "tlc-accuracy",
		Seed:       42,
		Quick:      true,
		Title:      "Does rewinding help?",
		Design:     "Eight bots per match on metro at 150 ms RTT, <none> & tlc alternating.",
		Shard:      "1/2",
		Conditions: []experiment.Condition{
			{Name: "none", Params: map[string]any{"policy": "none", "rtt_ms": 150}, Metrics: map[string]float64{"hit_accuracy": 0.2134, "shots": 5120}, N: 12, NUnit: "matches"},
			{Name: "tlc", Params: map[string]any{"policy": "tlc", "rtt_ms": 150}, Metrics: map[string]float64{"hit_accuracy": 0.3391, "shots": 5088, "sbc_per_hit": 0.041}, N: 12, NUnit: "matches"},
		},
		Tests: []experiment.Test{{
			Name: "hit_accuracy: tlc − none", Kind: "paired_t", Metric: "hit_accuracy", A: "none", B: "tlc", N: 12,
			Statistic: 7.31, P: 0.00002, PHolm: 0.00004, HolmFamily: 2, Effect: 2.11, EffectMeasure: experiment.EffectCohenDz,
			MeanDiff: 0.1257, Centre: experiment.CentreMean, CI95: [2]float64{0.0878, 0.1636}, Note: "pairs share seeds",
		}, {
			Name: "hit_accuracy: tlc − none", Kind: "wilcoxon", Metric: "hit_accuracy", A: "none", B: "tlc", N: 12,
			Statistic: 78, P: 0.0005, PHolm: 0.0005, HolmFamily: 1, Effect: 1, EffectMeasure: experiment.EffectRankBiserial,
			MeanDiff: 0.12, Centre: experiment.CentreMedian, CI95: [2]float64{0.09, 0.15},
		}, {
			Name: "shots: tlc − none", Kind: "paired_t", Metric: "shots", A: "none", B: "tlc", N: 12,
			Statistic: -0.4, P: 0.7, PHolm: 0.7, HolmFamily: 2, Effect: -0.1, EffectMeasure: experiment.EffectCohenDz,
			MeanDiff: -32, Centre: experiment.CentreMean, CI95: [2]float64{-200, 140},
		}},
		Tables: []experiment.Table{
			{Name: "accuracy", Title: "Hit accuracy by policy", Columns: []string{"condition", "hit_accuracy", "ci95_half"},
				Rows: [][]string{{"none", "0.2134", "0.021"}, {"tlc", "0.3391", "0.018"}, {"alc", "n/a", ""}}},
			{Name: "accuracy_by_rtt", Title: "Hit accuracy against RTT", Columns: []string{"policy", "rtt_ms", "hit_accuracy"},
				Rows: [][]string{
					{"none", "150", "0.21"}, {"none", "0", "0.35"}, {"none", "50", "0.30"},
					{"tlc", "0", "0.35"}, {"tlc", "50", "0.34"}, {"tlc", "150", "0.34"}, {"tlc", "250", "-"},
				}},
			wideTable("wide", 3), wideTable("long", 10),
		},
		Plots: []experiment.Plot{
			{Name: "accuracy", Title: "Hit accuracy at 150 ms", Kind: "bar", Table: "accuracy", X: "condition", Y: "hit_accuracy", YErr: "ci95_half", XLabel: "policy", YLabel: "hit accuracy"},
			{Name: "accuracy_by_rtt", Title: "Hit accuracy against RTT", Kind: "line", Table: "accuracy_by_rtt", X: "rtt_ms", Y: "hit_accuracy", Series: "policy", XLabel: "RTT (ms)", YLabel: "hit accuracy"},
		},
		Published: []experiment.Reference{
			{Metric: "hit_accuracy", Condition: "tlc", Value: 0.36, Source: "sample", Citation: "A. Sample. 2020. A sample study.",
				Location: "Table 2", Printed: "36%", Unit: "fraction of shots", Check: experiment.Verified,
				Detail: "mean accuracy with tlc", Why: "Bots aim better."},
			{Metric: "hit_accuracy", Condition: "none", Value: 0.30, Source: "sample", Citation: "A. Sample. 2020. A sample study.",
				Location: "Table 3", Printed: "30%", Unit: "fraction of shots", Check: experiment.Unverified,
				Detail: "mean accuracy without", Why: "Bots aim worse without help."},
			{Metric: "shots", Condition: "tlc", Test: "shots: tlc − none", Value: 0.4, Source: "sample", Citation: "A. Sample. 2020. A sample study.",
				Detail: "section 5"},
		},
		WallS: 12.5,
		Provenance: experiment.Provenance{Version: "v0.3.0", Revision: "0123abcd", GoVersion: "go1.26.8", OS: "linux", Arch: "amd64",
			Command: []string{"lagkit", "experiment", "run", "tlc-accuracy", "--seed", "42"}},
	}
}

// wideTable is a table of 13 columns with long snake_case names and rows
// rows, too wide for one table of the page.
func wideTable(name string, rows int) experiment.Table {
	t := experiment.Table{Name: name, Title: "A wide table: " + name, Columns: []string{"condition"}}
	for j := range 12 {
		t.Columns = append(t.Columns, fmt.Sprintf("a_long_metric_name_in_snake_case_%d", j))
	}
	for i := range rows {
		row := []string{fmt.Sprintf("condition_%d", i)}
		for j := range 12 {
			row = append(row, strconv.FormatFloat(float64(i*12+j)/7, 'f', -1, 64))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func TestVerdicts(t *testing.T) {
	ref := experiment.Reference{Value: 0.0758, Why: "Bots differ."}
	cases := []struct {
		v    float64
		want string
	}{
		{0.08, "Agrees: ours is within 25% of the published figure."},
		{0.11, "Disagrees: ours is 45.1% higher than the study's, beyond the 25% counted as agreement. Bots differ."},
		{0.03, "Disagrees: ours is 0.3958 times the study's, beyond the 25% counted as agreement. Bots differ."},
		{0, "Disagrees: ours is 0 where the study's is 0.0758, beyond the 25% counted as agreement. Bots differ."},
		{-0.08, "Disagrees in direction: ours is -0.08 where the study's is 0.0758. Bots differ."},
	}
	for _, tc := range cases {
		if got := valueVerdict(ref, tc.v); got != tc.want {
			t.Errorf("ours %v: %q, want %q", tc.v, got, tc.want)
		}
	}
	// A p-value like the study's is not agreement: the verdict never
	// says so, and gives our estimate and its interval.
	ref = experiment.Reference{Value: 0.158, Why: "Seeds pair closely."}
	test := experiment.Test{P: 0.148, N: 8, MeanDiff: -0.004, Centre: experiment.CentreMedian, CI95: [2]float64{-0.011, 0.002}}
	got := pVerdict(ref, test)
	if strings.Contains(got, "Agrees") || !strings.HasPrefix(got, "Not evidence of agreement: neither finds a difference") ||
		!strings.Contains(got, "median difference at -0.004 (95% interval [-0.011, 0.002]) over n = 8") {
		t.Errorf("pVerdict, neither significant = %q", got)
	}
	test.P = 0.01
	if got, want := pVerdict(ref, test), "Differs in conclusion: ours finds a difference at the 5% level where the study found none; "+
		"ours estimates median difference at -0.004 (95% interval [-0.011, 0.002]) over n = 8. Seeds pair closely."; got != want {
		t.Errorf("pVerdict = %q, want %q", got, want)
	}
	ref.Value = 0.01
	if got := pVerdict(ref, test); strings.Contains(got, "Agrees") || !strings.HasPrefix(got, "Both find a difference at the 5% level") {
		t.Errorf("pVerdict, both significant = %q", got)
	}
}

func TestLayout(t *testing.T) {
	narrow := layout([]string{"a", "b"}, [][]string{{"x", "1"}})
	if len(narrow) != 1 || len(narrow[0].Head) != 2 {
		t.Errorf("narrow table laid out as %+v", narrow)
	}
	w := wideTable("w", 3)
	tr := layout(w.Columns, w.Rows)
	if len(tr) != 1 || !slices.Equal(tr[0].Head, []string{"condition", "condition_0", "condition_1", "condition_2"}) ||
		len(tr[0].Rows) != 12 || tr[0].Rows[0][0] != w.Columns[1] || tr[0].Rows[0][2] != w.Rows[1][1] {
		t.Errorf("few rows: want the table transposed, got %+v", tr)
	}
	l := wideTable("l", 10)
	parts := layout(l.Columns, l.Rows)
	var cols []string
	for _, p := range parts {
		if len(p.Head) > maxColumns || p.Head[0] != "condition" || len(p.Rows) != 10 || p.Rows[9][0] != "condition_9" {
			t.Errorf("part %v: want at most %d columns led by the condition, 10 rows", p.Head, maxColumns)
		}
		cols = append(cols, p.Head[1:]...)
	}
	if !slices.Equal(cols, l.Columns[1:]) {
		t.Errorf("parts hold columns %v, want every column once in order", cols)
	}
}

func TestWrite(t *testing.T) {
	r := sample()
	dir := filepath.Join(t.TempDir(), "out", "tlc")
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.json", "accuracy.csv", "accuracy_by_rtt.csv", "accuracy.svg", "accuracy_by_rtt.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}

	for _, tab := range r.Tables {
		f, err := os.Open(filepath.Join(dir, tab.Name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s.csv: %v", tab.Name, err)
		}
		if want := append([][]string{tab.Columns}, tab.Rows...); !slices.EqualFunc(records, want, slices.Equal) {
			t.Errorf("%s.csv = %q, want %q", tab.Name, records, want)
		}
	}

	for _, p := range r.Plots {
		b, err := os.ReadFile(filepath.Join(dir, p.Name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if root, err := xmlRoot(b); err != nil || root != "svg" {
			t.Errorf("%s.svg: root element %q, error %v; want well-formed <svg>", p.Name, root, err)
		}
		if !bytes.Contains(b, []byte(p.Title)) {
			t.Errorf("%s.svg does not show its title %q", p.Name, p.Title)
		}
	}

	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"<!DOCTYPE html>",
		"<title>Does rewinding help?</title>",
		"<code>tlc-accuracy</code>", "<code>42</code>", "1/2", "12.5 s",
		"<th>none</th>", "<th>tlc</th>", "policy=<wbr>tlc, rtt_<wbr>ms=<wbr>150", "12 matches",
		"<th>hit_<wbr>accuracy</th>", "<th>sbc_<wbr>per_<wbr>hit</th>", "<th>shots</th>",
		"0.3391", "5088",
		"<th>hit_<wbr>accuracy: tlc − none<br><small>pairs share seeds</small></th><td>paired t</td>",
		"<td>Wilcoxon signed-rank</td>", "W&#43; = 78", "t = 7.31",
		"<th>p (Holm)</th>", "&lt; 0.001", "Holm&#39;s step-down method", "1 Wilcoxon signed-rank, 2 paired t test(s)",
		"Cohen&#39;s d_z = 2.11", "rank-biserial r = 1",
		"mean difference 0.1257 [0.0878, 0.1636]", "median difference 0.12 [0.09, 0.15]",
		"<tr><td>hit_<wbr>accuracy under tlc</td><td class=\"n\">0.36</td><td class=\"n\">0.3391</td><td>Agrees: ours is within 25% of the published figure.</td><td>[sample], Table 2: printed as “36%” (compared in fraction of shots). mean accuracy with tlc.</td>",
		"<tr class=\"unverified\"><td>hit_<wbr>accuracy under none</td>",
		"Table 3: printed as “30%” (compared in fraction of shots). mean accuracy without. <strong class=\"unverified\">Not verified against the source's text.</strong>",
		"Disagrees: ours is 28.9% lower than the study&#39;s, beyond the 25% counted as agreement. Bots aim worse without help.",
		"<td class=\"n\">p = 0.700</td><td>Not evidence of agreement: neither finds a difference at the 5% level",
		`<li id="ref-sample">[sample] A. Sample. 2020. A sample study.</li>`,
		"<th>condition_<wbr>0</th>", "A wide table: long",
		"<code>v0.3.0</code>, revision <code>0123abcd</code>", "go1.26.8 linux/amd64", "<code>lagkit experiment run tlc-accuracy --seed 42</code>",
		"Hit accuracy by policy", "Hit accuracy against RTT",
		"&lt;none&gt; &amp; tlc",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, p := range r.Plots {
		fig := regexp.MustCompile(`(?s)<figure class="plot" id="` + p.Name + `">\s*<svg .*?</svg>.*?</figure>`).FindString(page)
		if fig == "" {
			t.Errorf("report.html has no figure.plot#%s holding an <svg>", p.Name)
		} else if !strings.Contains(fig, p.Title) {
			t.Errorf("figure %s lacks its title %q", p.Name, p.Title)
		}
	}
	if strings.Contains(page, "<?xml") {
		t.Error("report.html contains an XML prolog")
	}
	// A self-contained page names no network address; SVG namespace
	// names are identifiers, never fetched.
	for _, u := range regexp.MustCompile(`https?://[^"'\s<>)]*`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("report.html refers to %s", u)
		}
	}
}

// xmlRoot returns the name of the document's root element after checking
// the whole document is well-formed.
func xmlRoot(b []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var root string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return root, nil
		}
		if err != nil {
			return root, err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}

func TestReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, sample()); err != nil {
		t.Fatal(err)
	}
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), file) {
		t.Errorf("Read then encode differs from results.json:\n%s\nwant\n%s", again, file)
	}
	if r.Experiment != "tlc-accuracy" || r.Seed != 42 || len(r.Conditions) != 2 || r.Conditions[1].Metrics["hit_accuracy"] != 0.3391 {
		t.Errorf("Read = %+v", r)
	}
}

func TestWriteUnwritableDir(t *testing.T) {
	regular := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(regular, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(regular, "out")
	err := Write(dir, sample())
	if err == nil || !strings.Contains(err.Error(), regular) {
		t.Errorf("Write(%s) = %v, want an error naming the path", dir, err)
	}
}

func TestWriteRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *experiment.Results)
		want   string
	}{
		{"table name with separator", func(r *experiment.Results) { r.Tables[0].Name = "../accuracy" }, `table 0: name "../accuracy"`},
		{"hidden table name", func(r *experiment.Results) { r.Tables[0].Name = ".accuracy" }, `table 0: name ".accuracy"`},
		{"table name twice", func(r *experiment.Results) { r.Tables[1].Name = "accuracy" }, "table accuracy: name used twice"},
		{"table without columns", func(r *experiment.Results) { r.Tables[0].Columns = nil }, "table accuracy: no columns"},
		{"ragged row", func(r *experiment.Results) { r.Tables[1].Rows[2] = []string{"none", "50"} }, "table accuracy_by_rtt: row 3 has 2 cells for 3 columns"},
		{"plot name with slash", func(r *experiment.Results) { r.Plots[1].Name = "a/b" }, `plot 1: name "a/b"`},
		{"plot name twice", func(r *experiment.Results) { r.Plots[1].Name = "accuracy" }, "plot accuracy: name used twice"},
		{"plot of missing table", func(r *experiment.Results) { r.Plots[0].Table = "rollback" }, `plot accuracy: no table "rollback"`},
		{"plot of missing column", func(r *experiment.Results) { r.Plots[1].Y = "sbc" }, `plot accuracy_by_rtt: y column "sbc" is not in table accuracy_by_rtt`},
		{"missing error column", func(r *experiment.Results) { r.Plots[0].YErr = "sd" }, `plot accuracy: y_err column "sd"`},
		{"unknown kind", func(r *experiment.Results) { r.Plots[0].Kind = "pie" }, `plot accuracy: kind "pie" is neither bar nor line`},
		{"series on a bar plot", func(r *experiment.Results) { r.Plots[0].Series = "condition" }, "plot accuracy: series applies to line plots only"},
		{"NaN metric", func(r *experiment.Results) { r.Conditions[0].Metrics["sbc_per_hit"] = math.NaN() }, `condition "none": metric sbc_per_hit is NaN`},
		{"infinite p", func(r *experiment.Results) { r.Tests[0].P = math.Inf(1) }, `test "hit_accuracy: tlc − none": p is +Inf`},
		{"NaN reference", func(r *experiment.Results) { r.Published[0].Value = math.NaN() }, `published hit_accuracy for "tlc" is NaN`},
		{"NaN wall time", func(r *experiment.Results) { r.WallS = math.NaN() }, "wall_s is NaN"},
		{"unencodable parameter", func(r *experiment.Results) { r.Conditions[0].Params["f"] = func() {} }, "encode results.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sample()
			tt.change(r)
			dir := filepath.Join(t.TempDir(), "out")
			err := Write(dir, r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write = %v, want an error containing %q", err, tt.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Write created %s for results it rejected", dir)
			}
		})
	}
	if err := Write(t.TempDir(), nil); err == nil {
		t.Error("Write(nil) succeeded")
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"missing", "", "no such file"},
		{"not JSON", "{\"experiment\": ", "unexpected end of JSON input"},
		{"wrong type", `{"quick": "yes"}`, "results.json: json: cannot unmarshal string"},
		{"bad seed", `{"seed": "forty-two"}`, `results.json: seed "forty-two": want a whole number`},
		{"ragged table", `{"tables": [{"name": "t", "columns": ["a", "b"], "rows": [["1"]]}]}`, "table t: row 1 has 1 cells for 2 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Read(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("Read = %+v, %v; want an error naming %s and containing %q", r, err, dir, tt.want)
			}
		})
	}
}

func TestBarPoints(t *testing.T) {
	tab := experiment.Table{Columns: []string{"c", "y", "e"}, Rows: [][]string{
		{"a", "1.5", "0.2"}, {"b", "n/a", "0.1"}, {"c", " 3 ", "-"}, {"d", "NaN", ""}, {"e", "-2", "-0.5"}, {"f", "Inf", "1"},
	}}
	labels, pts := barPoints(experiment.Plot{X: "c", Y: "y", YErr: "e"}, tab, map[string]int{"c": 0, "y": 1, "e": 2})
	if want := []string{"a", "c", "e"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
	if want := []point{{0, 1.5, 0.2, 0.2}, {1, 3, 0, 0}, {2, -2, 0.5, 0.5}}; !slices.Equal(pts, want) {
		t.Errorf("points = %v, want %v", pts, want)
	}
}

func TestLinePoints(t *testing.T) {
	r := sample()
	p := r.Plots[1]
	names, series := linePoints(p, r.Tables[1], map[string]int{"policy": 0, "rtt_ms": 1, "hit_accuracy": 2})
	if want := []string{"none", "tlc"}; !slices.Equal(names, want) {
		t.Errorf("series = %q, want %q", names, want)
	}
	want := map[string][]point{
		"none": {{0, 0.35, 0, 0}, {50, 0.30, 0, 0}, {150, 0.21, 0, 0}},
		"tlc":  {{0, 0.35, 0, 0}, {50, 0.34, 0, 0}, {150, 0.34, 0, 0}},
	}
	for name, pts := range want {
		if !slices.Equal(series[name], pts) {
			t.Errorf("series %s = %v, want %v", name, series[name], pts)
		}
	}

	p.Series = ""
	names, series = linePoints(p, r.Tables[1], map[string]int{"policy": 0, "rtt_ms": 1, "hit_accuracy": 2})
	if len(names) != 1 || len(series[""]) != 6 {
		t.Errorf("without series: %q, %v; want one line of 6 points", names, series)
	}
}

// TestDrawPlotEdges checks that plots of awkward tables still draw (axes
// and title) rather than fail or panic.
func TestDrawPlotEdges(t *testing.T) {
	tests := []struct {
		name string
		rows [][]string
	}{
		{"no numbers", [][]string{{"a", "b"}, {"", ""}}},
		{"no rows", nil},
		{"one point beyond 2^53", [][]string{{"1e17", "1e17"}}},
		{"one huge negative point", [][]string{{"-1e100", "-1e100"}}},
		{"widest plotted span", [][]string{{"-1e100", "-1e100"}, {"1e100", "1e100"}}},
		{"span beyond float64", [][]string{{"-1e308", "-1e308"}, {"1e308", "1e308"}, {"0", "1"}}},
		{"subnormal span", [][]string{{"5e-324", "0"}, {"1e-323", "5e-324"}}},
	}
	for _, tt := range tests {
		for _, kind := range []string{"bar", "line"} {
			tab := experiment.Table{Name: "t", Columns: []string{"x", "y"}, Rows: tt.rows}
			svg, err := drawPlot(experiment.Plot{Name: "p", Title: "Edge case", Kind: kind, Table: "t", X: "x", Y: "y"}, tab, nil)
			if err != nil {
				t.Errorf("%s, %s: %v", tt.name, kind, err)
				continue
			}
			if root, err := xmlRoot(svg); err != nil || root != "svg" || !bytes.Contains(svg, []byte("Edge case")) {
				t.Errorf("%s, %s: root %q, error %v; want a titled <svg>", tt.name, kind, root, err)
			}
		}
	}
}

func TestFormat(t *testing.T) {
	numbers := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {5120, "5120"}, {-3, "-3"}, {0.2134, "0.2134"}, {0.123456, "0.1235"},
		{12.5, "12.5"}, {99.99, "99.99"}, {123.456, "123.5"}, {2500000.5, "2.5e+06"}, {0.00001234, "1.234e-05"},
	}
	for _, tt := range numbers {
		if got := formatNumber(tt.v); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	ps := []struct {
		p    float64
		want string
	}{{0, "< 0.001"}, {0.0009, "< 0.001"}, {0.001, "0.001"}, {0.0449, "0.045"}, {0.5, "0.500"}, {1, "1.000"}}
	for _, tt := range ps {
		if got := formatP(tt.p); got != tt.want {
			t.Errorf("formatP(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
	if got, want := formatParams(map[string]any{"speed": 6.5, "policy": "alc", "rtt_ms": 250}), "policy=alc, rtt_ms=250, speed=6.5"; got != want {
		t.Errorf("formatParams = %q, want %q", got, want)
	}
}

// FuzzRead checks that no results.json makes Read panic, and that what
// Read accepts Write can write: plotting, CSV and HTML never fail on
// checked Results.
func FuzzRead(f *testing.F) {
	js, err := json.Marshal(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"tables":[{"name":"t","columns":["x","y"],"rows":[["1e308","-1e308"],["-1e308","1e308"]]}],"plots":[{"name":"p","kind":"line","table":"t","x":"x","y":"y"}]}`))
	f.Add([]byte(`{"tables":[{"name":"t","columns":["x","y"],"rows":[["1e17","1e17"]]}],"plots":[{"name":"p","kind":"line","table":"t","x":"x","y":"y"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Read(dir)
		if err != nil {
			return
		}
		if err := Write(filepath.Join(dir, "out"), r); err != nil {
			t.Fatalf("Write of Read results: %v", err)
		}
	})
}

// TestUnboundedInterval: an interval results.json holds as ±MaxFloat64
// (unbounded, too few pairs) reads as ∞ on the page.
func TestUnboundedInterval(t *testing.T) {
	rows, _ := testRows([]experiment.Test{{Name: "q: b − a", Kind: "wilcoxon", Centre: experiment.CentreMedian, MeanDiff: 1,
		CI95: [2]float64{-math.MaxFloat64, math.MaxFloat64}}})
	if len(rows) != 1 || rows[0].Difference != "median difference 1 [−∞, ∞]" {
		t.Errorf("difference %q", rows[0].Difference)
	}
}

// TestPublishedLocationsAndChecks: the report gives every experiment's
// published figures with their location in the source and the figure as
// printed, and marks those not verified against the source's text (and
// only those).
func TestPublishedLocationsAndChecks(t *testing.T) {
	for _, e := range experiment.List() {
		if len(e.Published) == 0 {
			continue
		}
		for _, flip := range []bool{false, true} {
			r := &experiment.Results{Experiment: e.Name, Title: e.Title, Published: slices.Clone(e.Published)}
			if flip {
				r.Published[0].Check = experiment.Unverified
			}
			unverified := 0
			for i := range r.Published {
				r.Published[i].Citation = experiment.Cite(r.Published[i].Source)
				if r.Published[i].Check != experiment.Verified {
					unverified++
				}
			}
			dir := t.TempDir()
			if err := Write(dir, r); err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			b, err := os.ReadFile(filepath.Join(dir, HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, ref := range r.Published {
				for _, want := range []string{html.EscapeString(ref.Location), html.EscapeString(ref.Printed)} {
					if !strings.Contains(page, want) {
						t.Errorf("%s: the report lacks %q of %s under %s", e.Name, want, ref.Metric, ref.Condition)
					}
				}
			}
			if got := strings.Count(page, `<tr class="unverified">`); got != unverified {
				t.Errorf("%s (first figure unverified: %v): %d rows marked unverified, want %d", e.Name, flip, got, unverified)
			}
			if got := strings.Count(page, "Not verified against the source's text."); got != unverified {
				t.Errorf("%s (first figure unverified: %v): %d figures say they are not verified, want %d", e.Name, flip, got, unverified)
			}
		}
	}
}

// TestPlotAxes checks the axes a paper can print: a bar chart's value
// axis starts at zero, an axis of zeros is 0 to 1 rather than -1 to 1,
// a single rollback distance does not put the axis below zero, and the
// highest bar or error bar stays clear of the frame.
func TestPlotAxes(t *testing.T) {
	tab := func(rows ...[]string) experiment.Table {
		return experiment.Table{Name: "t", Columns: []string{"x", "y", "lo", "hi"}, Rows: rows}
	}
	tests := []struct {
		name               string
		kind               string
		t                  experiment.Table
		xMin, yMin         float64 // the least each axis may start at
		yAbove             float64 // the axis must reach beyond this
		wantXMin, wantYMin float64
	}{
		{"zeros, bars", "bar", tab([]string{"a", "0", "0", "0"}, []string{"b", "0", "", ""}), -0.5, 0, 0, -0.5, 0},
		{"zeros, lines", "line", tab([]string{"0.1", "0", "0", "0"}, []string{"0.2", "0", "0", "0"}), 0, 0, 0, 0.097, 0},
		{"one rollback band", "line", tab([]string{"0.225", "0.5", "0.2", "0.8"}), 0, 0, 0.8, 0, 0.2},
		{"bars with intervals", "bar", tab([]string{"a", "0.17", "0.13", "0.22"}, []string{"b", "0.15", "0.11", "0.2"}), -0.5, 0, 0.22, -0.5, 0},
	}
	for _, tt := range tests {
		p := experiment.Plot{Name: "p", Title: "t", Kind: tt.kind, Table: "t", X: "x", Y: "y", YLo: "lo", YHi: "hi"}
		pl, err := newPlot(p, tt.t, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if pl.X.Min < tt.xMin || pl.Y.Min < tt.yMin {
			t.Errorf("%s: axes start at x %v, y %v; want at least %v, %v", tt.name, pl.X.Min, pl.Y.Min, tt.xMin, tt.yMin)
		}
		if math.Abs(pl.X.Min-tt.wantXMin) > 1e-12 || pl.Y.Min != tt.wantYMin {
			t.Errorf("%s: axes start at x %v, y %v; want %v, %v", tt.name, pl.X.Min, pl.Y.Min, tt.wantXMin, tt.wantYMin)
		}
		if top := tt.yAbove; pl.Y.Max <= top+0.03*(top-pl.Y.Min) {
			t.Errorf("%s: the y axis ends at %v, touching the highest value %v", tt.name, pl.Y.Max, top)
		}
		if tt.name == "zeros, bars" && pl.Y.Max > 1.1 {
			t.Errorf("%s: the y axis ends at %v, want about 1", tt.name, pl.Y.Max)
		}
	}
}

// TestIntervalErrorBars checks that y_lo and y_hi draw error bars from
// an interval's bounds, not symmetric about the value.
func TestIntervalErrorBars(t *testing.T) {
	tab := experiment.Table{Name: "t", Columns: []string{"x", "y", "lo", "hi"},
		Rows: [][]string{{"a", "0.1", "0.05", "0.3"}, {"b", "0", "0", "0.2"}, {"c", "0.5", "", ""}}}
	p := experiment.Plot{Name: "p", Kind: "bar", Table: "t", X: "x", Y: "y", YLo: "lo", YHi: "hi"}
	_, pts := barPoints(p, tab, map[string]int{"x": 0, "y": 1, "lo": 2, "hi": 3})
	want := []point{{0, 0.1, 0.05, 0.19999999999999998}, {1, 0, 0, 0.2}, {2, 0.5, 0, 0}}
	if !slices.Equal(pts, want) {
		t.Errorf("points = %v, want %v", pts, want)
	}
	eb := errorBars(pts, color.Black)
	if eb == nil || len(eb.XYs) != 2 {
		t.Fatalf("error bars %v, want two", eb)
	}
	r := &experiment.Results{Tables: []experiment.Table{tab}, Plots: []experiment.Plot{p}}
	r.Plots[0].YErr = "lo"
	if err := check(r); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("y_err with y_lo and y_hi: %v", err)
	}
	r.Plots[0].YErr, r.Plots[0].YHi = "", ""
	if err := check(r); err == nil || !strings.Contains(err.Error(), "both or neither") {
		t.Errorf("y_lo without y_hi: %v", err)
	}
}

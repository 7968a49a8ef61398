package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/lagkit/lagkit/experiment"
)

// ResultsFile and HTMLFile are the names of the files Write puts beside
// the tables (<table>.csv) and plots (<plot>.svg).
const (
	ResultsFile = "results.json"
	HTMLFile    = "report.html"
)

// Write writes r into dir, creating dir if needed: results.json, a CSV
// file per table, an SVG image per plot and report.html, which embeds the
// plots so it can be read offline. It checks r first and writes nothing
// when a table, plot or value cannot be written.
func Write(dir string, r *experiment.Results) error {
	if r == nil {
		return errors.New("report: nil results")
	}
	if err := check(r); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode %s: %w", ResultsFile, err)
	}
	files := []file{{ResultsFile, append(js, '\n')}}
	tables := make(map[string]experiment.Table, len(r.Tables))
	for _, t := range r.Tables {
		tables[t.Name] = t
		b, err := tableCSV(t)
		if err != nil {
			return fmt.Errorf("report: table %s: %w", t.Name, err)
		}
		files = append(files, file{t.Name + ".csv", b})
	}
	svgs := make([][]byte, len(r.Plots))
	for i, p := range r.Plots {
		svg, err := drawPlot(p, tables[p.Table], r.Published)
		if err != nil {
			return fmt.Errorf("report: plot %s: %w", p.Name, err)
		}
		svgs[i] = svg
		files = append(files, file{p.Name + ".svg", svg})
	}
	page, err := renderHTML(r, svgs)
	if err != nil {
		return fmt.Errorf("report: %s: %w", HTMLFile, err)
	}
	files = append(files, file{HTMLFile, page})

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// Read loads the results.json that Write put in dir. It applies the same
// checks as Write, so what Read returns can be written again.
func Read(dir string) (*experiment.Results, error) {
	path := filepath.Join(dir, ResultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r := new(experiment.Results)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if err := check(r); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return r, nil
}

// file is one output of Write, built in memory before anything is written.
type file struct {
	name string
	data []byte
}

func tableCSV(t experiment.Table) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(t.Columns); err != nil {
		return nil, err
	}
	if err := w.WriteAll(t.Rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// check rejects what Write could not turn into files a reader can trust:
// names that are not plain file names, ragged tables, plots of missing
// columns, and numbers JSON cannot hold.
func check(r *experiment.Results) error {
	if !finite(r.WallS) {
		return fmt.Errorf("report: wall_s is %v", r.WallS)
	}
	for _, c := range r.Conditions {
		for m, v := range c.Metrics {
			if !finite(v) {
				return fmt.Errorf("report: condition %q: metric %s is %v", c.Name, m, v)
			}
		}
	}
	for _, t := range r.Tests {
		for _, f := range []struct {
			name string
			v    float64
		}{{"statistic", t.Statistic}, {"p", t.P}, {"p_holm", t.PHolm}, {"effect", t.Effect}, {"mean_diff", t.MeanDiff}, {"ci95 low", t.CI95[0]}, {"ci95 high", t.CI95[1]}} {
			if !finite(f.v) {
				return fmt.Errorf("report: test %q: %s is %v", t.Name, f.name, f.v)
			}
		}
	}
	for _, ref := range r.Published {
		if !finite(ref.Value) {
			return fmt.Errorf("report: published %s for %q is %v", ref.Metric, ref.Condition, ref.Value)
		}
	}

	tables := make(map[string][]string, len(r.Tables))
	for i, t := range r.Tables {
		if !fileName(t.Name) {
			return fmt.Errorf("report: table %d: name %q is not a plain file name (letters, digits, _ - .)", i, t.Name)
		}
		if _, dup := tables[t.Name]; dup {
			return fmt.Errorf("report: table %s: name used twice", t.Name)
		}
		if len(t.Columns) == 0 {
			return fmt.Errorf("report: table %s: no columns", t.Name)
		}
		for j, row := range t.Rows {
			if len(row) != len(t.Columns) {
				return fmt.Errorf("report: table %s: row %d has %d cells for %d columns", t.Name, j+1, len(row), len(t.Columns))
			}
		}
		tables[t.Name] = t.Columns
	}

	plots := make(map[string]bool, len(r.Plots))
	for i, p := range r.Plots {
		if !fileName(p.Name) {
			return fmt.Errorf("report: plot %d: name %q is not a plain file name (letters, digits, _ - .)", i, p.Name)
		}
		if plots[p.Name] {
			return fmt.Errorf("report: plot %s: name used twice", p.Name)
		}
		plots[p.Name] = true
		if err := checkPlot(p, tables); err != nil {
			return fmt.Errorf("report: plot %s: %w", p.Name, err)
		}
	}
	return nil
}

func checkPlot(p experiment.Plot, tables map[string][]string) error {
	switch p.Kind {
	case "bar":
		if p.Series != "" {
			return errors.New("series applies to line plots only")
		}
	case "line":
	default:
		return fmt.Errorf("kind %q is neither bar nor line", p.Kind)
	}
	switch {
	case (p.YLo == "") != (p.YHi == ""):
		return errors.New("y_lo and y_hi name an interval's bounds: give both or neither")
	case p.YLo != "" && p.YErr != "":
		return errors.New("y_err and y_lo/y_hi both give error bars: give one")
	}
	cols, ok := tables[p.Table]
	if !ok {
		return fmt.Errorf("no table %q", p.Table)
	}
	for _, c := range []struct {
		field, name string
		optional    bool
	}{{"x", p.X, false}, {"y", p.Y, false}, {"series", p.Series, true}, {"y_err", p.YErr, true}, {"y_lo", p.YLo, true}, {"y_hi", p.YHi, true}} {
		if c.optional && c.name == "" {
			continue
		}
		if !slices.Contains(cols, c.name) {
			return fmt.Errorf("%s column %q is not in table %s", c.field, c.name, p.Table)
		}
	}
	return nil
}

// fileName reports whether s can be used as a file's base name in the
// output directory: no separators, no leading dot, nothing a shell or
// browser would treat specially.
func fileName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

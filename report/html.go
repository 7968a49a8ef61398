package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
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
	"metric": func(c experiment.Condition, name string) string {
		v, ok := c.Metrics[name]
		if !ok {
			return "–"
		}
		return formatNumber(v)
	},
}).Parse(pageSource))

// page is what the report template is drawn from.
type page struct {
	R     *experiment.Results
	Title string
	// Metrics are the names of every condition's metrics, sorted: the
	// conditions table has a column for each.
	Metrics   []string
	Figures   []figure
	Published []published
}

type figure struct {
	Name, Title string
	SVG         template.HTML
}

type published struct {
	experiment.Reference
	// Ours is this run's value of the metric in the named condition, or
	// "–" when the run has no such condition or metric.
	Ours string
}

// renderHTML draws the report page around the plots' SVG documents, which
// are inlined so the page needs no other file.
func renderHTML(r *experiment.Results, svgs [][]byte) ([]byte, error) {
	pg := page{R: r, Title: cmp.Or(r.Title, r.Experiment, "Experiment report")}
	seen := make(map[string]bool)
	for _, c := range r.Conditions {
		for m := range c.Metrics {
			seen[m] = true
		}
	}
	pg.Metrics = slices.Sorted(maps.Keys(seen))
	for i, p := range r.Plots {
		// The SVG comes from gonum/plot, which escapes every text it
		// draws; only the XML prolog and comment before <svg> are dropped,
		// as HTML has no place for them.
		svg := svgs[i][bytes.Index(svgs[i], []byte("<svg")):]
		pg.Figures = append(pg.Figures, figure{Name: p.Name, Title: p.Title, SVG: template.HTML(svg)})
	}
	for _, ref := range r.Published {
		ours := "–"
		for _, c := range r.Conditions {
			if c.Name != ref.Condition {
				continue
			}
			if v, ok := c.Metrics[ref.Metric]; ok {
				ours = formatNumber(v)
			}
			break
		}
		pg.Published = append(pg.Published, published{ref, ours})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

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

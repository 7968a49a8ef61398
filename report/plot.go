package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lagkit/lagkit/experiment"
)

// Plot images are 6 x 4 inches: wide enough for a handful of labelled
// bars or a legend beside the lines, and 576 x 384 px in the report.
const (
	plotWidth  = 6 * vg.Inch
	plotHeight = 4 * vg.Inch
)

// point is one plotted value and how far its error bar reaches below
// and above it (both 0 for none).
type point struct{ x, y, lo, hi float64 }

// withError sets pt's error bar from row: a half-width (YErr), or an
// interval's bounds (YLo and YHi), which need not be symmetric. A bound
// on the wrong side of the value, or not a number, draws no bar.
func withError(pt point, p experiment.Plot, row []string, col map[string]int) point {
	switch {
	case p.YErr != "":
		e, _ := number(row[col[p.YErr]])
		pt.lo, pt.hi = math.Abs(e), math.Abs(e)
	case p.YLo != "" && p.YHi != "":
		lo, okl := number(row[col[p.YLo]])
		hi, okh := number(row[col[p.YHi]])
		if okl && okh && lo <= pt.y && pt.y <= hi {
			pt.lo, pt.hi = pt.y-lo, hi-pt.y
		}
	}
	return pt
}

// drawPlot draws p from table t as an SVG document. Cells that are not
// plottable numbers (see number) are left out. Published values of the
// plotted metric are marked on the bars of the conditions they name.
func drawPlot(p experiment.Plot, t experiment.Table, published []experiment.Reference) ([]byte, error) {
	pl, err := newPlot(p, t, published)
	if err != nil {
		return nil, err
	}
	c := vgsvg.New(plotWidth, plotHeight)
	pl.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newPlot lays p out from table t, its axes set, ready to draw.
func newPlot(p experiment.Plot, t experiment.Table, published []experiment.Reference) (*plot.Plot, error) {
	pl := plot.New()
	// Sans-serif text, to match the report page.
	for _, s := range []*text.Style{&pl.Title.TextStyle, &pl.X.Label.TextStyle, &pl.Y.Label.TextStyle, &pl.X.Tick.Label, &pl.Y.Tick.Label, &pl.Legend.TextStyle} {
		s.Font.Variant = "Sans"
	}
	pl.Title.Text = p.Title
	pl.X.Label.Text = cmp.Or(p.XLabel, p.X)
	pl.Y.Label.Text = cmp.Or(p.YLabel, p.Y)
	pl.Legend.Top = true
	// Clear of the frame's right edge, which would clip the swatches.
	pl.Legend.XOffs = -vg.Points(6)
	pl.Add(plotter.NewGrid())

	col := make(map[string]int, len(t.Columns))
	for i, c := range t.Columns {
		col[c] = i
	}
	var entries int
	var err error
	if p.Kind == "bar" {
		entries, err = addBars(pl, p, t, col, published)
	} else {
		entries, err = addLines(pl, p, t, col)
	}
	if err != nil {
		return nil, err
	}

	// An axis of values none below zero (counts, shares, distances)
	// stays at or above zero however it is widened; a bar chart's value
	// axis starts at zero, where its bars do.
	xPos := nonNegative(p, t, col, p.X)
	if p.Kind == "line" && pl.X.Max > pl.X.Min {
		// Room either side, so the first and last points and their error
		// bars stand clear of the frame.
		pad := 0.03 * (pl.X.Max - pl.X.Min)
		pl.X.Min, pl.X.Max = pl.X.Min-pad, pl.X.Max+pad
	}
	widen(&pl.X, xPos)
	yPos := nonNegative(p, t, col, p.Y)
	widen(&pl.Y, yPos)
	if p.Kind == "bar" && yPos {
		pl.Y.Min = 0
	}
	// Room above the highest bar, point or error bar, so none touches the
	// frame.
	pl.Y.Max += (pl.Y.Max - pl.Y.Min) * 0.06
	if entries > 0 {
		// gonum/plot draws the legend inside the data area: leave room
		// above the data, about 7% of the height per entry.
		pl.Y.Max += (pl.Y.Max - pl.Y.Min) * (0.03 + 0.07*float64(entries))
	}
	return pl, nil
}

// barPoints returns a bar per row with a numeric Y, at x = 0, 1, 2, ...,
// and its label, the row's X cell.
func barPoints(p experiment.Plot, t experiment.Table, col map[string]int) (labels []string, pts []point) {
	for _, row := range t.Rows {
		y, ok := number(row[col[p.Y]])
		if !ok {
			continue
		}
		pt := withError(point{x: float64(len(pts)), y: y}, p, row, col)
		labels = append(labels, row[col[p.X]])
		pts = append(pts, pt)
	}
	return labels, pts
}

// addBars draws the bars and any published values of the plotted metric
// for the conditions they label, and returns the number of legend entries.
func addBars(pl *plot.Plot, p experiment.Plot, t experiment.Table, col map[string]int, published []experiment.Reference) (int, error) {
	labels, pts := barPoints(p, t, col)
	if len(pts) == 0 {
		return 0, nil
	}
	heights := make(plotter.Values, len(pts))
	for i, pt := range pts {
		heights[i] = pt.y
	}
	// Bars take up to 70% of their slot in the data area, and at most
	// 40 pt so a two-bar chart does not look like a wall.
	width := min(vg.Points(40), 0.7*(plotWidth-vg.Inch)/vg.Length(len(pts)))
	bars, err := plotter.NewBarChart(heights, width)
	if err != nil {
		return 0, err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	pl.Add(bars)
	pl.NominalX(labels...)
	// Half a slot of room either side, or the outer bars are cut in half.
	pl.X.Min, pl.X.Max = -0.5, float64(len(pts))-0.5
	if len(labels) > 5 {
		pl.X.Tick.Label.Rotation = math.Pi / 6
		pl.X.Tick.Label.XAlign = draw.XRight
		pl.X.Tick.Label.YAlign = draw.YCenter
	}
	if eb := errorBars(pts, color.Black); eb != nil {
		pl.Add(eb)
	}

	var refs plotter.XYs
	for _, ref := range published {
		if ref.Metric != p.Y || !plottable(ref.Value) {
			continue
		}
		if i := slices.Index(labels, ref.Condition); i >= 0 {
			refs = append(refs, plotter.XY{X: float64(i), Y: ref.Value})
		}
	}
	if len(refs) == 0 {
		return 0, nil
	}
	marks, err := plotter.NewScatter(refs)
	if err != nil {
		return 0, err
	}
	marks.Shape = draw.CrossGlyph{}
	marks.Radius = vg.Points(5)
	marks.Color = color.Black
	pl.Add(marks)
	pl.Legend.Add("this run", bars)
	pl.Legend.Add("published", marks)
	return 2, nil
}

// linePoints returns the rows with a numeric X and Y grouped by their
// Series cell, the groups in order of first appearance and each sorted by
// X.
func linePoints(p experiment.Plot, t experiment.Table, col map[string]int) (names []string, series map[string][]point) {
	series = make(map[string][]point)
	for _, row := range t.Rows {
		x, okx := number(row[col[p.X]])
		y, oky := number(row[col[p.Y]])
		if !okx || !oky {
			continue
		}
		pt := withError(point{x: x, y: y}, p, row, col)
		var name string
		if p.Series != "" {
			name = row[col[p.Series]]
		}
		if _, seen := series[name]; !seen {
			names = append(names, name)
		}
		series[name] = append(series[name], pt)
	}
	for _, pts := range series {
		slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
	}
	return names, series
}

// addLines draws a line with points per series and returns the number of
// legend entries.
func addLines(pl *plot.Plot, p experiment.Plot, t experiment.Table, col map[string]int) (int, error) {
	names, series := linePoints(p, t, col)
	dodge := dodging(p, names, series)
	for i, name := range names {
		pts := series[name]
		xys := make(plotter.XYs, len(pts))
		for j := range pts {
			pts[j].x += dodge * (float64(i) - float64(len(names)-1)/2)
			xys[j] = plotter.XY{X: pts[j].x, Y: pts[j].y}
		}
		line, marks, err := plotter.NewLinePoints(xys)
		if err != nil {
			return 0, err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		marks.Color = plotutil.Color(i)
		marks.Shape = plotutil.Shape(i)
		pl.Add(line, marks)
		if eb := errorBars(pts, plotutil.Color(i)); eb != nil {
			pl.Add(eb)
		}
		if p.Series != "" {
			pl.Legend.Add(fmt.Sprintf("%s = %s", p.Series, name), line, marks)
		}
	}
	if p.Series == "" {
		return 0, nil
	}
	return len(names), nil
}

// dodging returns how far apart along x to set the series of a line plot
// with error bars, so that bars at the same x do not hide one another:
// 1.2% of the x span between neighbouring series; 0 for one series or no
// error bars.
func dodging(p experiment.Plot, names []string, series map[string][]point) float64 {
	if len(names) < 2 || p.YErr == "" && p.YLo == "" {
		return 0
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pts := range series {
		for _, pt := range pts {
			lo, hi = min(lo, pt.x), max(hi, pt.x)
		}
	}
	if !(hi > lo) {
		return 0
	}
	return 0.012 * (hi - lo)
}

// errorBars returns the error bars of the points that have one, or nil.
func errorBars(pts []point, c color.Color) *plotter.YErrorBars {
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, pt := range pts {
		if pt.lo > 0 || pt.hi > 0 {
			xys = append(xys, plotter.XY{X: pt.x, Y: pt.y})
			errs = append(errs, struct{ Low, High float64 }{pt.lo, pt.hi})
		}
	}
	if len(xys) == 0 {
		return nil
	}
	eb := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: plotter.DefaultLineStyle, CapWidth: plotter.DefaultCapWidth}
	eb.LineStyle.Color = c
	return eb
}

// widen gives an axis that holds a single value some room. gonum/plot
// widens it by ±1 itself, which rounds away beyond 2^53 and leaves an
// empty range that its tick search panics on, and which puts an axis of
// zeros (no shot behind cover) at -1 to 1. An axis of non-negative
// values (nonNeg) is not widened below zero: zeros get 0 to 1.
func widen(a *plot.Axis, nonNeg bool) {
	if a.Min == a.Max {
		d := max(1, math.Abs(a.Min)/10)
		a.Min, a.Max = a.Min-d, a.Max+d
	}
	if nonNeg && a.Min < 0 {
		a.Min = 0
	}
}

// nonNegative reports whether the plotted cells of column c are none of
// them negative, nor are the lower bounds of their error bars when c is
// the Y column; false for a column of labels (a bar chart's X).
func nonNegative(p experiment.Plot, t experiment.Table, col map[string]int, c string) bool {
	i, ok := col[c]
	if !ok || p.Kind == "bar" && c == p.X {
		return false
	}
	for _, row := range t.Rows {
		v, ok := number(row[i])
		if !ok {
			continue
		}
		if v < 0 {
			return false
		}
		if c == p.Y {
			if pt := withError(point{y: v}, p, row, col); v-pt.lo < 0 {
				return false
			}
		}
	}
	return true
}

// maxPlotted bounds the magnitude of plotted values. gonum/plot's tick
// search (Talbot, Lin and Hanrahan's labelling) never ends when an axis
// span overflows float64, as it does between -1e308 and 1e308; no lagkit
// measure comes near 1e100.
const maxPlotted = 1e100

// plottable reports whether v can be drawn on an axis.
func plottable(v float64) bool { return math.Abs(v) <= maxPlotted }

// number parses a table cell as a plottable number; empty cells, words,
// NaN, infinities and magnitudes beyond maxPlotted are left out.
func number(cell string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	if err != nil || !plottable(v) {
		return 0, false
	}
	return v, true
}

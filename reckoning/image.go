package reckoning

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/lagkit/lagkit/geom"
)

// svgWidth is the width of a trend map image in pixels.
const svgWidth = 1200.0

// WriteSVG draws m as an SVG image, seen from above with +Y up, for a
// person to check: each cell with a trend is filled with a colour for
// the angle of its axis (a hue wheel over 180 degrees, so a direction and
// its opposite share a colour; more samples, stronger colour) and
// crossed by a line along the axis. boxes, such as a map's boxes, are
// drawn faintly underneath.
func (m *TrendMap) WriteSVG(w io.Writer, boxes []geom.AABB) error {
	if err := m.checkGrid(); err != nil {
		return err
	}
	if len(m.Cells) != m.NX*m.NY {
		return fmt.Errorf("reckoning: trend map: %d cells, want %d x %d", len(m.Cells), m.NX, m.NY)
	}
	b := m.Bounds
	s := svgWidth / (b.Max.X - b.Min.X)
	height := (b.Max.Y - b.Min.Y) * s
	px := func(x float64) float64 { return (x - b.Min.X) * s }
	py := func(y float64) float64 { return (b.Max.Y - y) * s }
	bw := bufio.NewWriter(w)
	team := "every team"
	if m.Team >= 0 {
		team = fmt.Sprintf("team %d", m.Team)
	}
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 -24 %.1f %.1f" font-family="sans-serif">`+"\n",
		svgWidth, height+24, svgWidth, height+24)
	fmt.Fprintf(bw, `<text x="4" y="-7" font-size="14">%s, %s: axis of movement per cell (%d x %d); colour by angle</text>`+"\n",
		escape(m.Map), team, m.NX, m.NY)
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%.1f" height="%.1f" fill="white" stroke="black"/>`+"\n", svgWidth, height)
	for _, x := range boxes {
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#ddd" stroke="#bbb"/>`+"\n",
			px(x.Min.X), py(x.Max.Y), (x.Max.X-x.Min.X)*s, (x.Max.Y-x.Min.Y)*s)
	}
	cw, ch := (b.Max.X-b.Min.X)/float64(m.NX), (b.Max.Y-b.Min.Y)/float64(m.NY)
	maxN := 1
	for _, c := range m.Cells {
		maxN = max(maxN, c.N)
	}
	for k, c := range m.Cells {
		if c.N == 0 {
			continue
		}
		x0, y0 := b.Min.X+float64(k%m.NX)*cw, b.Min.Y+float64(k/m.NX)*ch
		hue := 2 * axisDegrees(c.Dir)
		opacity := 0.3 + 0.7*math.Log1p(float64(c.N))/math.Log1p(float64(maxN))
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.2f" height="%.2f" fill="hsl(%.0f,90%%,50%%)" fill-opacity="%.2f"/>`+"\n",
			px(x0), py(y0+ch), cw*s, ch*s, hue, opacity)
		// The line spans 90% of the cell along the axis.
		l := 0.45 / max(math.Abs(c.Dir.X)/cw, math.Abs(c.Dir.Y)/ch)
		cx, cy := x0+cw/2, y0+ch/2
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222" stroke-width="0.8"/>`+"\n",
			px(cx-c.Dir.X*l), py(cy-c.Dir.Y*l), px(cx+c.Dir.X*l), py(cy+c.Dir.Y*l))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// escape makes s safe inside SVG text.
func escape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			out = append(out, "&lt;"...)
		case '>':
			out = append(out, "&gt;"...)
		case '&':
			out = append(out, "&amp;"...)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

package chart

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// hexColor parses "#rrggbb" into a colour with the given opacity alpha
// (0–255).
func hexColor(s string, alpha uint8) color.Color {
	v, _ := strconv.ParseUint(s[1:], 16, 32) // Palette entries are valid.
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: alpha}
}

// ARCPlot draws accuracy-rejection curves as a static gonum/plot figure: the
// same content as ARC (a line per curve, a shaded band Mean ± SE), for
// papers. Save it with WritePlot or (*plot.Plot).Save.
func ARCPlot(title string, rejection []float64, curves ...Curve) (*plot.Plot, error) {
	if err := checkCurves("chart.ARCPlot", rejection, curves); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "rejected fraction"
	p.Y.Label.Text = "accuracy"
	// Curves rise from the lower left: the upper left corner stays free.
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for k, c := range curves {
		rgb := Palette[k%len(Palette)]
		if c.SE != nil {
			band := make(plotter.XYs, 0, 2*len(rejection))
			for i, x := range rejection {
				band = append(band, plotter.XY{X: x, Y: c.Mean[i] + c.SE[i]})
			}
			for i := len(rejection) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: rejection[i], Y: c.Mean[i] - c.SE[i]})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, fmt.Errorf("chart.ARCPlot: band of %q: %w", c.Name, err)
			}
			poly.Color = hexColor(rgb, 64)
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(rejection))
		for i, x := range rejection {
			pts[i] = plotter.XY{X: x, Y: c.Mean[i]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("chart.ARCPlot: curve %q: %w", c.Name, err)
		}
		l.Color = hexColor(rgb, 255)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(c.Name, l)
	}
	// Accuracy is at most 1, even where a band Mean + SE exceeds it.
	p.Y.Max = min(p.Y.Max, 1)
	return p, nil
}

// WritePlot writes p to w in the given format ("png", "svg", "pdf", "eps",
// "jpg", "tif") at the given size, e.g. 15*vg.Centimeter.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return fmt.Errorf("chart.WritePlot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("chart.WritePlot: writing %s: %w", format, err)
	}
	return nil
}

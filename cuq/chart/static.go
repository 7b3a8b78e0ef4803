package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ARCPlot draws accuracy-rejection curves as a static gonum/plot figure,
// for papers: the same content and styles as ARC (a line per curve in its
// colour and dash pattern, a shaded band Mean ± SE, coinciding curves
// named so). Save it with WritePlot or (*plot.Plot).Save.
func ARCPlot(title string, rejection []float64, curves ...Curve) (*plot.Plot, error) {
	if err := checkCurves("chart.ARCPlot", rejection, curves); err != nil {
		return nil, err
	}
	if len(curves) == 0 {
		return nil, fmt.Errorf("chart.ARCPlot %q: no curves", title)
	}
	return arcPlot(title, rejection, markCoinciding(colored(curves)), true)
}

// arcPlot draws one panel; legend says whether it carries a legend.
func arcPlot(title string, rejection []float64, curves []Curve, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "rejected fraction"
	p.Y.Label.Text = "accuracy"
	p.X.Min, p.X.Max = 0, rejection[len(rejection)-1]
	p.X.Tick.Marker = plot.ConstantTicks(ticks(0, 1, 0.2))
	// Curves rise towards the upper right: the lower right corner stays
	// free.
	p.Legend.Top, p.Legend.Left = false, false
	p.Add(plotter.NewGrid())
	if len(curves) == 0 {
		p.Title.Text += " (no curve)"
		p.Y.Min, p.Y.Max = 0, 1
		return p, nil
	}
	for _, c := range curves {
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
			poly.Color = hexColor(c.Color, 56)
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
		l.Color = hexColor(c.Color, 255)
		l.Width = vg.Points(1.5)
		l.Dashes = c.Dash.dashes()
		p.Add(l)
		if legend {
			p.Legend.Add(c.Name, l)
		}
	}
	lo := lowerBound(curves)
	step := tickInterval(lo)
	p.Y.Min, p.Y.Max = lo, 1
	p.Y.Tick.Marker = plot.ConstantTicks(ticks(lo, 1, step))
	return p, nil
}

// ticks returns labelled ticks from lo to hi (inclusive) every step,
// starting at the first multiple of step not below lo.
func ticks(lo, hi, step float64) []plot.Tick {
	var out []plot.Tick
	start := float64(int(lo/step+0.999999)) * step
	for v := start; v <= hi+1e-9; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)})
	}
	return out
}

// WriteARCGridPlot writes panels of accuracy-rejection curves as one static
// figure in rows of cols panels, in the given format ("png", "svg" or
// "pdf"), each panel 9 × 8 cm. Only the first panel carries a legend, so
// give a curve the same Color in every panel (panels on a row share no y
// range: each fits its curves).
func WriteARCGridPlot(w io.Writer, format string, rejection []float64, cols int, panels []Panel) error {
	if cols < 1 || len(panels) == 0 {
		return fmt.Errorf("chart.WriteARCGridPlot: %d panels in %d columns", len(panels), cols)
	}
	rows := (len(panels) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
		for c := range cols {
			k := r*cols + c
			if k >= len(panels) {
				plots[r][c] = plot.New()
				plots[r][c].HideAxes()
				continue
			}
			if err := checkCurves("chart.WriteARCGridPlot "+panels[k].Title, rejection, panels[k].Curves); err != nil {
				return err
			}
			p, err := arcPlot(panels[k].Title, rejection, colored(panels[k].Curves), k == 0)
			if err != nil {
				return err
			}
			plots[r][c] = p
		}
	}
	width, height := vg.Length(cols)*9*vg.Centimeter, vg.Length(rows)*8*vg.Centimeter
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	case "svg":
		canvas = vgsvg.New(width, height)
	case "pdf":
		canvas = vgpdf.New(width, height)
	default:
		return fmt.Errorf("chart.WriteARCGridPlot: unknown format %q (want png, svg or pdf)", format)
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Centimeter, PadY: vg.Centimeter,
		PadTop: 3 * vg.Millimeter, PadBottom: 3 * vg.Millimeter, PadLeft: 3 * vg.Millimeter, PadRight: 3 * vg.Millimeter}
	aligned := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c := range plots[r] {
			plots[r][c].Draw(aligned[r][c])
		}
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("chart.WriteARCGridPlot: %w", err)
	}
	return nil
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

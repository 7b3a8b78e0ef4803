package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Palette is the colour cycle of the charts' series (ECharts' default
// palette), shared by the interactive and the static figures.
var Palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// Curve is one accuracy-rejection curve: Mean[i] is the accuracy (in [0, 1])
// on the test nodes left after rejecting the fraction Rejection[i] of them
// with the highest uncertainty, averaged over runs; SE[i] is its standard
// error over runs (nil when there is a single run).
type Curve struct {
	Name string
	Mean []float64
	SE   []float64
}

// checkCurves validates the inputs of ARC and ARCPlot.
func checkCurves(op string, rejection []float64, curves []Curve) error {
	if len(rejection) < 2 {
		return fmt.Errorf("%s: %d rejection fractions, need at least 2", op, len(rejection))
	}
	for i, p := range rejection {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("%s: rejection fraction %d is %v, not in [0, 1]", op, i, p)
		}
		if i > 0 && p <= rejection[i-1] {
			return fmt.Errorf("%s: rejection fractions not increasing at %d (%v after %v)", op, i, p, rejection[i-1])
		}
	}
	if len(curves) == 0 {
		return fmt.Errorf("%s: no curves", op)
	}
	for _, c := range curves {
		if len(c.Mean) != len(rejection) {
			return fmt.Errorf("%s: curve %q has %d means for %d rejection fractions", op, c.Name, len(c.Mean), len(rejection))
		}
		if c.SE != nil && len(c.SE) != len(rejection) {
			return fmt.Errorf("%s: curve %q has %d standard errors for %d rejection fractions", op, c.Name, len(c.SE), len(rejection))
		}
		for i, m := range c.Mean {
			if math.IsNaN(m) || math.IsInf(m, 0) {
				return fmt.Errorf("%s: curve %q: mean %d is %v", op, c.Name, i, m)
			}
		}
		for i, s := range c.SE {
			if !(s >= 0) || math.IsInf(s, 0) {
				return fmt.Errorf("%s: curve %q: standard error %d is %v", op, c.Name, i, s)
			}
		}
	}
	return nil
}

// The JavaScript functions below use single quotes only: go-echarts
// embeds them as JSON strings, escaping double quotes.

// bandTooltip lists only the curves in the axis tooltip, not the two
// helper series that draw each band (their ids start with "cuq-band").
const bandTooltip = `function (ps) {
var s = 'rejected ' + ps[0].axisValue;
ps.forEach(function (p) {
if (String(p.seriesId).indexOf('cuq-band') === 0) { return; }
s += '<br/>' + p.marker + p.seriesName + ': ' + Number(p.value).toFixed(4);
});
return s;
}`

// ARC draws accuracy-rejection curves, one line per curve, each with a
// shaded band Mean ± SE. The x axis is the rejected fraction, the y axis the
// accuracy. A good uncertainty measure gives a curve that rises
// monotonically towards 1.
//
// The band is drawn as two stacked helper series (the lower bound, then the
// band width with a filled area) that share the curve's name, so the legend
// shows and hides a curve together with its band.
func ARC(title string, rejection []float64, curves ...Curve) (*Chart, error) {
	if err := checkCurves("chart.ARC", rejection, curves); err != nil {
		return nil, err
	}
	x := make([]string, len(rejection))
	for i, p := range rejection {
		x[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	lo := 1.0
	for _, c := range curves {
		for i, m := range c.Mean {
			if c.SE != nil {
				m -= c.SE[i]
			}
			lo = min(lo, m)
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: opts.FuncOpts(bandTooltip)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "30", Data: curveNames(curves)}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "60", Right: "30", Bottom: "50"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "rejected fraction", NameLocation: "middle", NameGap: 30, Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "accuracy", Type: "value", Min: math.Floor(lo*20) / 20, Max: 1}),
		charts.WithColorsOpts(opts.Colors(Palette)),
	)
	line.SetXAxis(x)
	for k, c := range curves {
		color := Palette[k%len(Palette)]
		if c.SE != nil {
			lower := make([]opts.LineData, len(c.Mean))
			width := make([]opts.LineData, len(c.Mean))
			for i := range c.Mean {
				lower[i] = opts.LineData{Value: c.Mean[i] - c.SE[i]}
				width[i] = opts.LineData{Value: 2 * c.SE[i]}
			}
			stack := fmt.Sprintf("cuq-band-%d", k)
			line.AddSeries(c.Name, lower,
				charts.WithSeriesId(stack+"-lower"),
				charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0), Color: color}),
			)
			line.AddSeries(c.Name, width,
				charts.WithSeriesId(stack+"-width"),
				charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0), Color: color}),
				charts.WithAreaStyleOpts(opts.AreaStyle{Color: color, Opacity: opts.Float(0.25)}),
			)
		}
		mean := make([]opts.LineData, len(c.Mean))
		for i, m := range c.Mean {
			mean[i] = opts.LineData{Value: m}
		}
		line.AddSeries(c.Name, mean,
			charts.WithSeriesId(fmt.Sprintf("cuq-curve-%d", k)),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 2, Color: color}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: color}),
		)
	}
	return newChart(title, 800, 480, line), nil
}

func curveNames(curves []Curve) []string {
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = c.Name
	}
	return names
}

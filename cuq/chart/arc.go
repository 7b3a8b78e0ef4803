package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Curve is one accuracy-rejection curve: Mean[i] is the accuracy (in [0, 1])
// on the test nodes left after rejecting the fraction rejection[i] of them
// with the highest uncertainty, averaged over runs; SE[i] is its standard
// error over runs (nil when there is a single run).
type Curve struct {
	Name string
	Mean []float64
	SE   []float64
	// Color is the curve's "#rrggbb" colour; empty takes the Palette
	// colour of the curve's position.
	Color string
	// Dash is the curve's line pattern.
	Dash Dash
}

// checkCurves validates the inputs of the accuracy-rejection charts.
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
	for _, c := range curves {
		if len(c.Mean) != len(rejection) {
			return fmt.Errorf("%s: curve %q has %d means for %d rejection fractions", op, c.Name, len(c.Mean), len(rejection))
		}
		if c.SE != nil && len(c.SE) != len(rejection) {
			return fmt.Errorf("%s: curve %q has %d standard errors for %d rejection fractions", op, c.Name, len(c.SE), len(rejection))
		}
		if c.Color != "" {
			if err := checkColor(c.Color); err != nil {
				return fmt.Errorf("%s: curve %q: %v", op, c.Name, err)
			}
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

// colored returns the curves with their colours filled in from the
// Palette by position.
func colored(curves []Curve) []Curve {
	out := make([]Curve, len(curves))
	for k, c := range curves {
		if c.Color == "" {
			c.Color = Palette[k%len(Palette)]
		}
		out[k] = c
	}
	return out
}

// markCoinciding returns the curves with the name of each curve that
// coincides with an earlier one marked, "EU_PC (= EU)": the later curve
// hides the earlier, and the legend says so.
func markCoinciding(curves []Curve) []Curve {
	out := make([]Curve, len(curves))
	for k, c := range curves {
		for _, e := range curves[:k] {
			if sameValues(c.Mean, e.Mean) {
				c.Name += " (= " + e.Name + ")"
				break
			}
		}
		out[k] = c
	}
	return out
}

// sameValues reports whether a and b agree to 1e-12 everywhere.
func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// The JavaScript functions below use single quotes only (see jsFunc).

// arcTooltip lists the curves in the axis tooltip with their ± SE, and not
// the helper series that draw the bands (their ids start with "band").
const arcTooltip = `function (ps) {
var s = 'rejected ' + ps[0].axisValue;
ps.forEach(function (p) {
if (String(p.seriesId).indexOf('band') === 0) { return; }
s += '<br/>' + p.marker + p.seriesName + ': ' + Number(p.value).toFixed(3);
});
return s;
}`

// onFifths shows a category label or tick only at the rejection fractions
// 0, 0.2, 0.4, … (ECharts calls it with the category's index and value).
const onFifths = `function (i, v) { var f = Number(v) * 5; return Math.abs(f - Math.round(f)) < 1e-9; }`

// arcAxes returns the x and y axes of one accuracy-rejection panel on grid
// k: a category axis of the rejection fractions labelled at 0, 0.2, …, and
// an accuracy axis from lo to 1 with ticks at round steps.
func arcAxes(k int, x []string, lo float64, names bool) (map[string]any, map[string]any) {
	xa := map[string]any{
		"type": "category", "data": x, "gridIndex": k, "boundaryGap": false,
		"axisLabel": map[string]any{"interval": jsFunc(onFifths)},
		"axisTick":  map[string]any{"interval": jsFunc(onFifths)},
	}
	interval := tickInterval(lo)
	lo = math.Floor(lo/interval+1e-9) * interval
	ya := map[string]any{
		"type": "value", "gridIndex": k, "min": lo, "max": 1, "interval": interval,
		"axisLabel": map[string]any{"formatter": jsFunc(`function (v) { return Number(v.toFixed(2)); }`)},
		"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}},
	}
	if names {
		xa["name"], xa["nameLocation"], xa["nameGap"] = "rejected fraction", "middle", 26
		ya["name"], ya["nameLocation"], ya["nameGap"] = "accuracy", "middle", 40
	}
	return xa, ya
}

// arcSeries returns the series of one curve on axes k: when it has an SE,
// a band Mean ± SE drawn as two stacked helper series (the lower bound,
// then the band's width with a filled area) that share the curve's name, so
// that the legend shows and hides curve and band together; then the mean.
func arcSeries(c Curve, id string, k int) []any {
	var out []any
	axes := func(m map[string]any) map[string]any {
		m["xAxisIndex"], m["yAxisIndex"] = k, k
		return m
	}
	if c.SE != nil {
		lower := make([]float64, len(c.Mean))
		width := make([]float64, len(c.Mean))
		for i := range c.Mean {
			lower[i], width[i] = c.Mean[i]-c.SE[i], 2*c.SE[i]
		}
		// The band stacks its width on its lower edge; stackStrategy
		// "all" stacks whatever the signs, where ECharts' default stacks
		// negative and positive values apart and so would draw a band
		// below zero from 0 instead.
		stack := "band-" + id
		out = append(out,
			axes(map[string]any{"type": "line", "id": stack + "-lower", "name": c.Name, "data": lower, "stack": stack,
				"stackStrategy": "all", "showSymbol": false, "silent": true, "lineStyle": map[string]any{"opacity": 0}, "color": c.Color}),
			axes(map[string]any{"type": "line", "id": stack + "-width", "name": c.Name, "data": width, "stack": stack,
				"stackStrategy": "all", "showSymbol": false, "silent": true, "lineStyle": map[string]any{"opacity": 0}, "color": c.Color,
				"areaStyle": map[string]any{"color": c.Color, "opacity": 0.2}}))
	}
	return append(out, axes(map[string]any{"type": "line", "id": "curve-" + id, "name": c.Name, "data": c.Mean,
		"showSymbol": false, "color": c.Color,
		"lineStyle": map[string]any{"width": 2, "color": c.Color, "type": c.Dash.echarts()}}))
}

// tickInterval returns the step of the accuracy axis from lo to 1: 0.05,
// 0.1 or 0.2, for four to six ticks.
func tickInterval(lo float64) float64 {
	switch {
	case 1-lo > 0.6:
		return 0.2
	case 1-lo > 0.3:
		return 0.1
	}
	return 0.05
}

// lowerBound returns the y-axis minimum for curves: the lowest Mean − SE
// rounded down to a multiple of 0.05.
func lowerBound(curves []Curve) float64 {
	lo := 1.0
	for _, c := range curves {
		for i, m := range c.Mean {
			if c.SE != nil {
				m -= c.SE[i]
			}
			lo = min(lo, m)
		}
	}
	return math.Max(0, math.Floor(lo*20)/20)
}

// rejectionLabels formats the rejection fractions for the category axis.
func rejectionLabels(rejection []float64) []string {
	x := make([]string, len(rejection))
	for i, p := range rejection {
		x[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	return x
}

// ARC draws accuracy-rejection curves, one line per curve in its colour and
// dash pattern, each with a shaded band Mean ± SE. The x axis is the
// rejected fraction, the y axis the accuracy; a good uncertainty measure
// gives a curve that rises monotonically towards 1. A curve equal to an
// earlier one is named so in the legend ("EU_PC (= EU)"). The legend sits
// to the right of the plot, where it covers no curve.
func ARC(title string, rejection []float64, curves ...Curve) (*Chart, error) {
	if err := checkCurves("chart.ARC", rejection, curves); err != nil {
		return nil, err
	}
	if len(curves) == 0 {
		return nil, fmt.Errorf("chart.ARC %q: no curves", title)
	}
	curves = markCoinciding(colored(curves))
	xa, ya := arcAxes(0, rejectionLabels(rejection), lowerBound(curves), true)
	var series []any
	names := make([]string, len(curves))
	for k, c := range curves {
		series = append(series, arcSeries(c, strconv.Itoa(k), 0)...)
		names[k] = c.Name
	}
	// A wide legend widens the chart, not the plot.
	right := rightLegendMargin(names, 8, 170)
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "axis", "formatter": jsFunc(arcTooltip)},
		"legend":    map[string]any{"data": names, "orient": "vertical", "right": 8, "top": 50, "type": "scroll"},
		"grid":      []any{map[string]any{"top": 50, "left": 60, "right": right, "bottom": 50}},
		"xAxis":     []any{xa},
		"yAxis":     []any{ya},
		"series":    series,
	}
	return newChart(title, 760+right-170, 420, opt), nil
}

// Panel is one panel of a figure of accuracy-rejection curves. A panel
// without curves is drawn empty, with a note.
type Panel struct {
	Title  string
	Curves []Curve
}

// The sizes of an ARCGrid panel, in pixels: the box of its plot and axes,
// its title above, the room for the axes' labels below and to the left of
// the first column, and the gap between columns.
const (
	arcPanelW, arcPanelH    = 215, 215
	arcGridLeft, arcGridGap = 50, 14
	arcTitleH, arcAxisH     = 26, 40
)

// ARCGrid draws panels of accuracy-rejection curves in rows of cols panels,
// as one chart: curves with the same name (a model, say) share one legend
// entry, which shows or hides them in every panel, so give a curve the same
// Color in every panel. Panels on the same row share their y range.
func ARCGrid(title string, rejection []float64, cols int, panels []Panel) (*Chart, error) {
	if cols < 1 {
		return nil, fmt.Errorf("chart.ARCGrid %q: %d columns", title, cols)
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("chart.ARCGrid %q: no panels", title)
	}
	for _, p := range panels {
		if err := checkCurves("chart.ARCGrid "+p.Title, rejection, p.Curves); err != nil {
			return nil, err
		}
	}
	rows := (len(panels) + cols - 1) / cols
	var names []string
	for _, p := range panels {
		for _, c := range p.Curves {
			names = appendNew(names, c.Name)
		}
	}
	// The panels start below the legend, however many rows it wraps to.
	top := max(60, 28+legendHeight(legendRows(names, arcGridLeft+cols*(arcPanelW+arcGridGap)-10))+6)
	f := arcGridFigure{x: rejectionLabels(rejection), top: top}
	for r := range rows {
		lo := rowLowerBound(panels, r, cols)
		for c := range cols {
			k := r*cols + c
			if k >= len(panels) {
				break
			}
			f.addPanel(k, r, c, panels[k], lo, r == rows-1 || k+cols >= len(panels))
		}
	}
	titles := append([]any{map[string]any{"text": title, "left": 10, "top": 0}}, f.titles...)
	opt := rawOption{
		"animation": false,
		"title":     titles,
		"tooltip":   map[string]any{"trigger": "axis", "formatter": jsFunc(arcTooltip)},
		"legend":    map[string]any{"data": names, "top": 28, "left": 10},
		"grid":      f.grids,
		"xAxis":     f.xAxes,
		"yAxis":     f.yAxes,
		"series":    f.series,
		"graphic":   f.graphics,
	}
	width := arcGridLeft + cols*(arcPanelW+arcGridGap)
	height := top + rows*(arcPanelH+arcTitleH+arcAxisH)
	return newChart(title, width, height, opt), nil
}

// rowLowerBound returns the lower bound of the accuracy axis that the
// panels of row r share.
func rowLowerBound(panels []Panel, r, cols int) float64 {
	var row []Curve
	for _, p := range panels[r*cols : min((r+1)*cols, len(panels))] {
		row = append(row, p.Curves...)
	}
	return lowerBound(row)
}

// arcGridFigure collects the elements of ARCGrid's panels.
type arcGridFigure struct {
	x   []string // the rejection fractions' labels
	top int      // where the first row starts

	grids, xAxes, yAxes, series, titles, graphics []any
}

// addPanel adds panel p, number k, at row r and column c, its accuracy
// axis from lo, its x axis named when names is set.
func (f *arcGridFigure) addPanel(k, r, c int, p Panel, lo float64, names bool) {
	gl, gt := arcGridLeft+c*(arcPanelW+arcGridGap), f.top+r*(arcPanelH+arcTitleH+arcAxisH)+arcTitleH
	f.grids = append(f.grids, map[string]any{"left": gl, "top": gt, "width": arcPanelW - 35, "height": arcPanelH - arcAxisH})
	xa, ya := arcAxes(k, f.x, lo, names)
	if c > 0 {
		delete(ya, "name")
	}
	f.xAxes, f.yAxes = append(f.xAxes, xa), append(f.yAxes, ya)
	f.titles = append(f.titles, map[string]any{"text": p.Title, "left": gl - 20, "top": gt - arcTitleH,
		"textStyle": map[string]any{"fontSize": 13}})
	if len(p.Curves) == 0 {
		f.graphics = append(f.graphics, map[string]any{"type": "text", "left": gl + 20, "top": gt + (arcPanelH-arcAxisH)/2 - 10,
			"style": map[string]any{"text": "no curve in this panel", "fill": "#888"}})
	}
	for j, cv := range colored(p.Curves) {
		f.series = append(f.series, arcSeries(cv, fmt.Sprintf("%d-%d", k, j), k)...)
	}
}

// Lines draws curves over labelled x positions (graph sizes, say), each
// with a band Mean ± SE where SE is set, in its colour and dash pattern,
// on a y axis that fits the data.
func Lines(title, xName, yName string, x []string, curves ...Curve) (*Chart, error) {
	if len(x) == 0 || len(curves) == 0 {
		return nil, fmt.Errorf("chart.Lines %q: %d x positions and %d curves", title, len(x), len(curves))
	}
	for _, c := range curves {
		if len(c.Mean) != len(x) || (c.SE != nil && len(c.SE) != len(x)) {
			return nil, fmt.Errorf("chart.Lines %q: curve %q has %d means and %d standard errors for %d x positions", title, c.Name, len(c.Mean), len(c.SE), len(x))
		}
		for i, m := range c.Mean {
			if math.IsNaN(m) || math.IsInf(m, 0) || (c.SE != nil && (!(c.SE[i] >= 0) || math.IsInf(c.SE[i], 0))) {
				return nil, fmt.Errorf("chart.Lines %q: curve %q is not finite at %s", title, c.Name, x[i])
			}
		}
		if c.Color != "" {
			if err := checkColor(c.Color); err != nil {
				return nil, fmt.Errorf("chart.Lines %q: curve %q: %v", title, c.Name, err)
			}
		}
	}
	curves = markCoinciding(colored(curves))
	var series []any
	names := make([]string, len(curves))
	for k, c := range curves {
		s := arcSeries(c, strconv.Itoa(k), 0)
		s[len(s)-1].(map[string]any)["showSymbol"] = true
		series = append(series, s...)
		names[k] = c.Name
	}
	right := rightLegendMargin(names, 8, 200)
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "axis", "formatter": jsFunc(strings.Replace(arcTooltip, "'rejected ' + ", "", 1))},
		"legend":    map[string]any{"data": names, "orient": "vertical", "right": 8, "top": 50, "type": "scroll"},
		"grid":      []any{map[string]any{"top": 50, "left": 70, "right": right, "bottom": 50}},
		"xAxis": []any{map[string]any{"type": "category", "data": x, "name": xName, "nameLocation": "middle", "nameGap": 28,
			"boundaryGap": false}},
		"yAxis": []any{map[string]any{"type": "value", "name": yName, "nameLocation": "middle", "nameGap": 48, "scale": true,
			"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}},
		"series": series,
	}
	return newChart(title, 760+right-200, 400, opt), nil
}

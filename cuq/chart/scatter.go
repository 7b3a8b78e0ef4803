package chart

import (
	"fmt"
	"math"
)

// Points is one series of a scatter chart: the points (X[i], Y[i]) in the
// colour Color, or ModelColor(Name) when Color is empty.
type Points struct {
	Name  string
	X, Y  []float64
	Color string
}

// Scatter draws one or more series of points on value axes named xName
// and yName, each series in its colour with its own symbol, half
// transparent so that overlapping clouds stay visible. The axes fit the
// data. Every coordinate must be finite and a series' X and Y of equal
// length.
func Scatter(title, xName, yName string, series ...Points) (*Chart, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("chart.Scatter %q: no series", title)
	}
	symbols := []string{"circle", "triangle", "diamond", "rect", "pin", "arrow"}
	var out []any
	names := make([]string, len(series))
	for k, s := range series {
		if err := checkPoints(s); err != nil {
			return nil, fmt.Errorf("chart.Scatter %q: %w", title, err)
		}
		names[k] = s.Name
		out = append(out, map[string]any{
			"name": s.Name, "type": "scatter", "data": s.data(), "symbol": symbols[k%len(symbols)], "symbolSize": 6,
			"itemStyle": map[string]any{"color": s.color(), "opacity": 0.55},
		})
	}
	right := rightLegendMargin(names, 8, 200)
	axis := func(name string, gap int) map[string]any {
		return map[string]any{"type": "value", "name": name, "nameLocation": "middle", "nameGap": gap, "scale": true,
			"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	}
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "item"},
		"legend":    map[string]any{"data": names, "orient": "vertical", "right": 8, "top": 50, "type": "scroll"},
		"grid":      []any{map[string]any{"top": 50, "left": 70, "right": right, "bottom": 50}},
		"xAxis":     []any{axis(xName, 28)},
		"yAxis":     []any{axis(yName, 48)},
		"series":    out,
	}
	return newChart(title, 560+right, 440, opt), nil
}

// checkPoints reports a series whose coordinates are unequal in number,
// not finite, or whose colour is malformed.
func checkPoints(s Points) error {
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
	}
	for i := range s.X {
		if math.IsNaN(s.X[i]) || math.IsInf(s.X[i], 0) || math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) {
			return fmt.Errorf("series %q: point %d (%v, %v) is not finite", s.Name, i, s.X[i], s.Y[i])
		}
	}
	if s.Color != "" {
		if err := checkColor(s.Color); err != nil {
			return fmt.Errorf("series %q: %v", s.Name, err)
		}
	}
	return nil
}

// ScatterPanels draws each series in a panel of its own, cols panels to a
// row, titled by the series' names, on axes shared by every panel (they
// span the extent of all the points; the first panel of a row names
// the y axis), so that clouds that would hide each other in one Scatter
// can be compared side by side.
func ScatterPanels(title, xName, yName string, cols int, series ...Points) (*Chart, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("chart.ScatterPanels %q: no series", title)
	}
	if cols < 1 {
		return nil, fmt.Errorf("chart.ScatterPanels %q: %d columns, want at least 1", title, cols)
	}
	ext, err := pointsExtent(series)
	if err != nil {
		return nil, fmt.Errorf("chart.ScatterPanels %q: %w", title, err)
	}
	cols = min(cols, len(series))
	f := scatterFigure{cols: cols, ext: ext, xName: xName, yName: yName}
	f.titles = append(f.titles, map[string]any{"text": title, "left": 10, "top": 0, "textStyle": map[string]any{"fontSize": 15}})
	for k, s := range series {
		f.add(k, s)
	}
	opt := rawOption{
		"animation": false,
		"title":     f.titles,
		"tooltip":   map[string]any{"trigger": "item"},
		"grid":      f.grids,
		"xAxis":     f.xAxes,
		"yAxis":     f.yAxes,
		"series":    f.series,
	}
	rows := (len(series) + cols - 1) / cols
	return newChart(title, panelsLeft+cols*(panelW+panelGap), panelsTop+rows*(panelH+panelTitleH+panelAxisH), opt), nil
}

// The layout of ScatterPanels, in pixels: each panel's plot area, the gap
// between panels, the margins left of and above the panels, and the room
// for a panel's title above it and its x axis below it.
const (
	panelW, panelH, panelGap, panelsLeft, panelsTop, panelTitleH, panelAxisH = 200, 200, 36, 60, 40, 26, 50
)

// scatterFigure collects the option parts of ScatterPanels, panel by panel.
type scatterFigure struct {
	cols                                int
	ext                                 extent
	xName, yName                        string
	grids, xAxes, yAxes, series, titles []any
}

// add lays out series s as panel k: its plot area, title, axes (the y axis
// named in a row's first panel only) and points.
func (f *scatterFigure) add(k int, s Points) {
	x0 := panelsLeft + (k%f.cols)*(panelW+panelGap)
	y0 := panelsTop + (k/f.cols)*(panelH+panelTitleH+panelAxisH) + panelTitleH
	f.grids = append(f.grids, map[string]any{"left": x0, "top": y0, "width": panelW, "height": panelH})
	f.titles = append(f.titles, map[string]any{"text": s.Name, "left": x0, "top": y0 - panelTitleH + 4,
		"textStyle": map[string]any{"fontSize": 12, "fontWeight": "normal"}})
	axis := func(name string, lo, hi float64, gap int) map[string]any {
		return map[string]any{"gridIndex": k, "type": "value", "name": name, "nameLocation": "middle", "nameGap": gap,
			"min": lo, "max": hi, "splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	}
	yLabel := f.yName
	if k%f.cols != 0 {
		yLabel = ""
	}
	f.xAxes = append(f.xAxes, axis(f.xName, f.ext.xlo, f.ext.xhi, 26))
	f.yAxes = append(f.yAxes, axis(yLabel, f.ext.ylo, f.ext.yhi, 36))
	f.series = append(f.series, map[string]any{"name": s.Name, "type": "scatter", "xAxisIndex": k, "yAxisIndex": k,
		"data": s.data(), "symbolSize": 5, "itemStyle": map[string]any{"color": s.color(), "opacity": 0.6}})
}

// pointsExtent checks every series and returns the range of all their
// points.
func pointsExtent(series []Points) (extent, error) {
	e := extent{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	for _, s := range series {
		if err := checkPoints(s); err != nil {
			return e, err
		}
		for i := range s.X {
			e.xlo, e.xhi = min(e.xlo, s.X[i]), max(e.xhi, s.X[i])
			e.ylo, e.yhi = min(e.ylo, s.Y[i]), max(e.yhi, s.Y[i])
		}
	}
	if math.IsInf(e.xlo, 1) {
		return e, fmt.Errorf("no points")
	}
	return e, nil
}

// data returns the points as ECharts' [x, y] pairs.
func (s Points) data() []any {
	data := make([]any, len(s.X))
	for i := range s.X {
		data[i] = []float64{s.X[i], s.Y[i]}
	}
	return data
}

// color returns the series' colour, ModelColor(Name) when none is set.
func (s Points) color() string {
	if s.Color != "" {
		return s.Color
	}
	return ModelColor(s.Name)
}

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
		color := s.Color
		if color == "" {
			color = ModelColor(s.Name)
		}
		data := make([]any, len(s.X))
		for i := range s.X {
			data[i] = []float64{s.X[i], s.Y[i]}
		}
		names[k] = s.Name
		out = append(out, map[string]any{
			"name": s.Name, "type": "scatter", "data": data, "symbol": symbols[k%len(symbols)], "symbolSize": 6,
			"itemStyle": map[string]any{"color": color, "opacity": 0.55},
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
// the y axis), so that clouds that would hide each
// other in one Scatter can be compared side by side.
func ScatterPanels(title, xName, yName string, cols int, series ...Points) (*Chart, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("chart.ScatterPanels %q: no series", title)
	}
	if cols < 1 {
		return nil, fmt.Errorf("chart.ScatterPanels %q: %d columns, want at least 1", title, cols)
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if err := checkPoints(s); err != nil {
			return nil, fmt.Errorf("chart.ScatterPanels %q: %w", title, err)
		}
		for i := range s.X {
			xlo, xhi = min(xlo, s.X[i]), max(xhi, s.X[i])
			ylo, yhi = min(ylo, s.Y[i]), max(yhi, s.Y[i])
		}
	}
	if math.IsInf(xlo, 1) {
		return nil, fmt.Errorf("chart.ScatterPanels %q: no points", title)
	}
	const panelW, panelH, gap, left, top, titleH, axisH = 200, 200, 36, 60, 40, 26, 50
	cols = min(cols, len(series))
	rows := (len(series) + cols - 1) / cols
	var grids, xAxes, yAxes, out, titles []any
	titles = append(titles, map[string]any{"text": title, "left": 10, "top": 0, "textStyle": map[string]any{"fontSize": 15}})
	for k, s := range series {
		x0 := left + (k%cols)*(panelW+gap)
		y0 := top + (k/cols)*(panelH+titleH+axisH) + titleH
		grids = append(grids, map[string]any{"left": x0, "top": y0, "width": panelW, "height": panelH})
		titles = append(titles, map[string]any{"text": s.Name, "left": x0, "top": y0 - titleH + 4,
			"textStyle": map[string]any{"fontSize": 12, "fontWeight": "normal"}})
		axis := func(name string, lo, hi float64, gap int) map[string]any {
			return map[string]any{"gridIndex": k, "type": "value", "name": name, "nameLocation": "middle", "nameGap": gap,
				"min": lo, "max": hi, "splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
		}
		xAxes = append(xAxes, axis(xName, xlo, xhi, 26))
		yLabel := yName
		if k%cols != 0 {
			yLabel = "" // the first panel of the row names the shared y axis
		}
		yAxes = append(yAxes, axis(yLabel, ylo, yhi, 36))
		color := s.Color
		if color == "" {
			color = ModelColor(s.Name)
		}
		data := make([]any, len(s.X))
		for i := range s.X {
			data[i] = []float64{s.X[i], s.Y[i]}
		}
		out = append(out, map[string]any{"name": s.Name, "type": "scatter", "xAxisIndex": k, "yAxisIndex": k, "data": data,
			"symbolSize": 5, "itemStyle": map[string]any{"color": color, "opacity": 0.6}})
	}
	opt := rawOption{
		"animation": false,
		"title":     titles,
		"tooltip":   map[string]any{"trigger": "item"},
		"grid":      grids,
		"xAxis":     xAxes,
		"yAxis":     yAxes,
		"series":    out,
	}
	return newChart(title, left+cols*(panelW+gap), top+rows*(panelH+titleH+axisH), opt), nil
}

package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Series is a named sequence of per-epoch values: Values[e] belongs to
// epoch e+1. NaN marks an epoch without a value (a metric evaluated every
// few epochs) and leaves a gap that the line bridges.
type Series struct {
	Name   string
	Values []float64
}

// Training draws training curves against the epoch: the losses on the left
// y axis, the validation metrics (accuracy and the like) on the right one.
// Either group may be empty, not both.
func Training(title string, losses []Series, metrics []Series) (*Chart, error) {
	epochs := 0
	for _, s := range append(append([]Series(nil), losses...), metrics...) {
		epochs = max(epochs, len(s.Values))
		for e, v := range s.Values {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("chart.Training: series %q is %v at epoch %d", s.Name, v, e+1)
			}
		}
	}
	if epochs == 0 {
		return nil, fmt.Errorf("chart.Training %q: no values", title)
	}
	x := make([]string, epochs)
	for e := range x {
		x[e] = strconv.Itoa(e + 1)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "30"}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "60", Right: "60", Bottom: "50"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "epoch", NameLocation: "middle", NameGap: 30, Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "loss", Type: "value", Scale: opts.Bool(true)}),
		charts.WithColorsOpts(opts.Colors(Palette)),
	)
	line.ExtendYAxis(opts.YAxis{Name: "metric", Type: "value", Scale: opts.Bool(true)})
	line.SetXAxis(x)
	add := func(s Series, axis int) {
		data := make([]opts.LineData, len(s.Values))
		for e, v := range s.Values {
			if math.IsNaN(v) {
				data[e] = opts.LineData{Value: "-"} // ECharts' missing value
			} else {
				data[e] = opts.LineData{Value: v}
			}
		}
		line.AddSeries(s.Name, data, charts.WithLineChartOpts(opts.LineChart{
			YAxisIndex: axis, ShowSymbol: opts.Bool(false), ConnectNulls: opts.Bool(true),
		}))
	}
	for _, s := range losses {
		add(s, 0)
	}
	for _, s := range metrics {
		add(s, 1)
	}
	return newChart(title, 800, 420, line), nil
}

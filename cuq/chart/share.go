package chart

import (
	"fmt"
	"math"
)

// yAxis returns the chart's only y axis, or nil when the chart has none,
// several, or an option not built as a map.
func (c *Chart) yAxis() map[string]any {
	if c == nil {
		return nil
	}
	o, ok := c.opt.(rawOption)
	if !ok {
		return nil
	}
	switch y := o["yAxis"].(type) {
	case map[string]any:
		return y
	case []any:
		if len(y) == 1 {
			m, _ := y[0].(map[string]any)
			return m
		}
	}
	return nil
}

// YAxisName returns the name of the chart's y axis (what it measures), ""
// when the chart has no single named y axis.
func (c *Chart) YAxisName() string {
	y := c.yAxis()
	if y == nil {
		return ""
	}
	name, _ := y["name"].(string)
	return name
}

// ShareY gives the charts one y range, so that charts shown side by side
// compare by height: each chart's range is its axis's min and max where
// they are set, else the range of its series' values, and every chart gets
// the smallest range holding them all (a tick interval set on the axes is
// kept only where all charts have the same). It returns an error, and
// changes nothing, when a chart has no single value or log y axis built by
// this package (the go-echarts charts of Training have none to share) or
// no values.
func ShareY(charts ...*Chart) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	var kind string
	var interval any
	sameInterval := true
	for k, c := range charts {
		y := c.yAxis()
		t, _ := y["type"].(string)
		if y == nil || (t != "value" && t != "log") || (kind != "" && t != kind) {
			return fmt.Errorf("chart.ShareY: chart %d has no y axis to share with the others", k)
		}
		kind = t
		l, h := c.yData()
		if v, ok := number(y["min"]); ok {
			l = v
		}
		if v, ok := number(y["max"]); ok {
			h = v
		}
		if !(l <= h) {
			return fmt.Errorf("chart.ShareY: chart %d has no values", k)
		}
		lo, hi = math.Min(lo, l), math.Max(hi, h)
		if k == 0 {
			interval = y["interval"]
		} else if y["interval"] != interval {
			sameInterval = false
		}
	}
	for _, c := range charts {
		y := c.yAxis()
		y["min"], y["max"] = lo, hi
		delete(y, "scale")
		if !sameInterval {
			delete(y, "interval")
		}
	}
	return nil
}

// number returns v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// yData returns the least and greatest y value of the chart's series that
// are not stacked: a number, a {value} item, or the second coordinate of
// an [x, y, …] point; NaN, NaN when there is none.
func (c *Chart) yData() (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	add := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	series, _ := c.opt.(rawOption)["series"].([]any)
	for _, s := range series {
		m, _ := s.(map[string]any)
		if m == nil || m["stack"] != nil {
			continue
		}
		each(m["data"], func(d any) {
			switch x := d.(type) {
			case map[string]any:
				if v, ok := number(x["value"]); ok {
					add(v)
				}
			case []float64:
				if len(x) > 1 {
					add(x[1])
				}
			case [2]float64:
				add(x[1])
			default:
				if v, ok := number(d); ok {
					add(v)
				}
			}
		})
	}
	return lo, hi
}

// each calls f on every element of the slice data (of any element type
// the charts use).
func each(data any, f func(any)) {
	switch d := data.(type) {
	case []any:
		for _, x := range d {
			f(x)
		}
	case []float64:
		for _, x := range d {
			f(x)
		}
	case [][2]float64:
		for _, x := range d {
			f(x)
		}
	}
}

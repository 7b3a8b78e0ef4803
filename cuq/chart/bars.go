package chart

import (
	"fmt"
	"math"
	"strconv"
)

// BarsChart builds a bar chart of named values, such as the number of
// nodes of each class (graph.Summary's ClassNames and ClassCounts). Start
// it with Bars, set options, then call Done. Each bar carries its value;
// when every value is non-negative the tooltip gives each bar's share of
// the total, v_k / Σ_j v_j, and the subtitle the total.
type BarsChart struct {
	title        string
	labels       []string
	values       []float64
	xName, yName string
}

// Bars starts the bar chart of values under title, bar k labelled
// labels[k]; nil labels name the bars 0, 1, ….
func Bars[T ~int | ~float64](title string, labels []string, values []T) *BarsChart {
	v := make([]float64, len(values))
	for i, x := range values {
		v[i] = float64(x)
	}
	return &BarsChart{title: title, labels: labels, values: v}
}

// XName names the x axis (what the bars are), YName the y axis, by
// default "count".
func (b *BarsChart) XName(name string) *BarsChart { b.xName = name; return b }

// YName names the y axis; see XName.
func (b *BarsChart) YName(name string) *BarsChart { b.yName = name; return b }

// barsTooltip shows a bar's label, value and, when set, share.
const barsTooltip = `function (p) {
var s = p.name + ': ' + p.data.value;
if (p.data.share !== undefined) { s += ' (' + (100 * p.data.share).toFixed(1) + '%)'; }
return s;
}`

// Done returns the chart, or an error for no values, labels that do not
// match the values one to one, or a NaN or infinite value.
func (b *BarsChart) Done() (*Chart, error) {
	if b == nil {
		return nil, fmt.Errorf("chart.Bars: nil builder")
	}
	fail := func(format string, args ...any) (*Chart, error) {
		return nil, fmt.Errorf("chart.Bars %q: %s", b.title, fmt.Sprintf(format, args...))
	}
	if len(b.values) == 0 {
		return fail("no values")
	}
	labels := b.labels
	if labels == nil {
		labels = make([]string, len(b.values))
		for k := range labels {
			labels[k] = strconv.Itoa(k)
		}
	}
	if len(labels) != len(b.values) {
		return fail("%d labels for %d values", len(labels), len(b.values))
	}
	total, signed := 0.0, false
	for k, v := range b.values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fail("value %d (%s) is %v", k, labels[k], v)
		}
		total += v
		signed = signed || v < 0
	}
	data := make([]any, len(b.values))
	for k, v := range b.values {
		d := map[string]any{"name": labels[k], "value": v}
		if !signed && total > 0 {
			d["share"] = v / total
		}
		data[k] = d
	}
	sub := ""
	if !signed {
		sub = "total " + strconv.FormatFloat(total, 'g', -1, 64)
	}
	yName := b.yName
	if yName == "" {
		yName = "count"
	}
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": b.title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "item", "formatter": jsFunc(barsTooltip)},
		"grid":      map[string]any{"top": 70, "left": 60, "right": 30, "bottom": 50},
		"xAxis": map[string]any{"type": "category", "data": labels, "name": b.xName, "nameLocation": "middle",
			"nameGap": 28, "axisLabel": map[string]any{"interval": 0}},
		"yAxis": map[string]any{"type": "value", "name": yName, "nameLocation": "middle", "nameGap": 40,
			"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}},
		"series": []any{map[string]any{"type": "bar", "name": b.title, "data": data,
			"itemStyle": map[string]any{"color": Palette[0]}, "label": map[string]any{"show": true, "position": "top"}}},
	}
	return newChart(b.title, min(680, 200+60*len(b.values)), 360, opt), nil
}

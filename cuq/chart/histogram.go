package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// maxDiscreteBins bounds the bars of a Discrete histogram.
const maxDiscreteBins = 500

// HistogramChart builds the histogram of a list of numbers, such as a
// per-node property of a graph (degrees, local homophily, feature
// density; see graph.Summary). Start it with Histogram, set options, then
// call Done.
//
// With k equal-width bins over [lo, hi], w = (hi − lo)/k, bin b counts the
// values in [lo + b·w, lo + (b+1)·w), the last bin [hi − w, hi]. A
// Discrete histogram has one bar per integer instead. The subtitle gives
// the number of values and their mean; the tooltip each bin's range and
// count.
type HistogramChart struct {
	title        string
	values       []float64
	xName, yName string
	bins         int
	lo, hi       float64
	ranged       bool
	discrete     bool
	skip         string // SkipNaN's description; "" counts NaN as an error
	marks        []histogramMark
}

// histogramMark is a vertical line at a value.
type histogramMark struct {
	name  string
	value float64
}

// Histogram starts the histogram of values under title. The values are
// copied when Done is called.
func Histogram[T ~int | ~float64](title string, values []T) *HistogramChart {
	v := make([]float64, len(values))
	for i, x := range values {
		v[i] = float64(x)
	}
	return &HistogramChart{title: title, values: v}
}

// Bins sets the number of equal-width bins over Range. Without Range it
// is a target: the bins get the smallest round width w (1, 2 or 5 times a
// power of ten) not below (max − min)/k, and run from the multiple of w at
// or below the smallest value past the largest, so their edges are round
// numbers. The default target is Sturges' rule, ⌈log₂ n⌉ + 1 bins for n
// values.
func (h *HistogramChart) Bins(k int) *HistogramChart { h.bins = k; return h }

// Range sets the interval the bins cover exactly, in the number of bins
// Bins gives. By default the bins cover [min, max] of the values in round
// steps (see Bins), or are the one bin [v − ½, v + ½] when every value is
// v. A value outside Range is an error.
func (h *HistogramChart) Range(lo, hi float64) *HistogramChart {
	h.lo, h.hi, h.ranged = lo, hi, true
	return h
}

// Discrete draws one bar per integer from the smallest value to the
// largest (or over the integers of Range), for counts such as degrees;
// every value must be an integer. Bins has no effect.
func (h *HistogramChart) Discrete() *HistogramChart { h.discrete = true; return h }

// XName names the x axis (the quantity), YName the y axis, by default
// "count".
func (h *HistogramChart) XName(name string) *HistogramChart { h.xName = name; return h }

// YName names the y axis; see XName.
func (h *HistogramChart) YName(name string) *HistogramChart { h.yName = name; return h }

// SkipNaN leaves NaN values out, for a property some values lack (the
// local homophily of an unlabelled node); the subtitle counts them as
// "k <what> left out". Without it a NaN value is an error.
func (h *HistogramChart) SkipNaN(what string) *HistogramChart {
	h.skip = what
	if what == "" {
		h.skip = "NaN values"
	}
	return h
}

// Mark draws a labelled vertical line at value, such as a mean or a
// summary of the whole graph (its edge homophily, its feature density).
func (h *HistogramChart) Mark(name string, value float64) *HistogramChart {
	h.marks = append(h.marks, histogramMark{name, value})
	return h
}

// histogramTooltip shows a bin's range (its name) and count.
const histogramTooltip = `function (p) { return p.name + ': ' + p.value[2]; }`

// integerLabel writes an axis label at an integer, none elsewhere.
const integerLabel = `function (v) { return v === Math.round(v) ? String(v) : ''; }`

// renderBin draws a bin [value 0, value 1] of height value 2 as a bar,
// leaving a pixel between neighbouring bars.
const renderBin = `function (params, api) {
var a = api.coord([api.value(0), api.value(2)]), b = api.coord([api.value(1), 0]);
var gap = Math.min(1, (b[0] - a[0]) / 4);
return {type: 'rect', shape: {x: a[0] + gap, y: a[1], width: b[0] - a[0] - 2 * gap, height: b[1] - a[1]},
style: api.style()};
}`

// Done returns the chart, or an error for no values, a NaN or infinite
// value (NaN allowed with SkipNaN), a value outside Range, a bad bin
// count or range, a non-integer value of a Discrete histogram or a mark
// that is not finite.
func (h *HistogramChart) Done() (*Chart, error) {
	if h == nil {
		return nil, fmt.Errorf("chart.Histogram: nil builder")
	}
	edges, names, vals, err := h.binned()
	if err != nil {
		return nil, fmt.Errorf("chart.Histogram %q: %v", h.title, err)
	}
	k := len(edges) - 1
	counts, sum := countBins(vals, edges)
	data := make([]any, k)
	for b := range k {
		data[b] = map[string]any{"name": names[b], "value": []any{edges[b], edges[b+1], counts[b]}}
	}
	sub := fmt.Sprintf("%d values · mean %s", len(vals), strconv.FormatFloat(sum/float64(len(vals)), 'g', 4, 64))
	if left := len(h.values) - len(vals); left > 0 {
		sub += fmt.Sprintf(" · %d %s left out", left, h.skip)
	}
	series := map[string]any{"type": "custom", "name": h.title, "data": data, "renderItem": jsFunc(renderBin),
		"encode": map[string]any{"x": []int{0, 1}, "y": 2}, "itemStyle": map[string]any{"color": Palette[0]}}
	if len(h.marks) > 0 {
		series["markLine"] = h.markLine()
	}
	return h.chart(series, sub, edges[0], edges[k]), nil
}

// binned checks the values and marks and returns the bins' edges (bin b is
// [edges[b], edges[b+1]]) and names, and the values counted.
func (h *HistogramChart) binned() (edges []float64, names []string, vals []float64, err error) {
	if vals, err = h.checkedValues(); err != nil {
		return nil, nil, nil, err
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if h.ranged {
		if err := h.checkRange(); err != nil {
			return nil, nil, nil, err
		}
		lo, hi = h.lo, h.hi
	}
	if h.discrete {
		edges, names, err = discreteBins(lo, hi)
	} else {
		edges, names, err = h.widthBins(lo, hi, len(vals))
	}
	return edges, names, vals, err
}

// checkedValues returns the values to count, NaN left out with SkipNaN,
// after checking them and the marks.
func (h *HistogramChart) checkedValues() ([]float64, error) {
	if len(h.values) == 0 {
		return nil, fmt.Errorf("no values")
	}
	vals := make([]float64, 0, len(h.values))
	for i, v := range h.values {
		switch {
		case math.IsNaN(v) && h.skip != "":
			continue
		case math.IsNaN(v):
			return nil, fmt.Errorf("value %d is NaN (SkipNaN leaves such values out)", i)
		case math.IsInf(v, 0):
			return nil, fmt.Errorf("value %d is %v", i, v)
		case h.discrete && v != math.Trunc(v):
			return nil, fmt.Errorf("value %d is %v, not an integer (Discrete counts integers)", i, v)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("all %d values are NaN", len(h.values))
	}
	for _, m := range h.marks {
		if math.IsNaN(m.value) || math.IsInf(m.value, 0) {
			return nil, fmt.Errorf("mark %q is %v", m.name, m.value)
		}
	}
	return vals, nil
}

// checkRange checks that Range is a finite interval holding every value.
func (h *HistogramChart) checkRange() error {
	if math.IsNaN(h.lo) || math.IsNaN(h.hi) || math.IsInf(h.lo, 0) || math.IsInf(h.hi, 0) || h.lo >= h.hi {
		return fmt.Errorf("range [%v, %v] is not a finite interval", h.lo, h.hi)
	}
	for i, v := range h.values {
		if v < h.lo || v > h.hi {
			return fmt.Errorf("value %d is %v, outside the range [%v, %v]", i, v, h.lo, h.hi)
		}
	}
	return nil
}

// discreteBins returns one bin [k − ½, k + ½] per integer k in [lo, hi],
// named k.
func discreteBins(lo, hi float64) (edges []float64, names []string, err error) {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last-first+1 > maxDiscreteBins {
		return nil, nil, fmt.Errorf("the values span %v integers, more than %d bars; use Bins without Discrete", last-first+1, maxDiscreteBins)
	}
	for k := first; k <= last; k++ {
		edges = append(edges, k-0.5)
		names = append(names, strconv.FormatFloat(k, 'f', -1, 64))
	}
	edges = append(edges, last+0.5)
	return edges, names, nil
}

// widthBins returns the equal-width bins over [lo, hi] for n values (see
// Bins and Range), named by their ranges.
func (h *HistogramChart) widthBins(lo, hi float64, n int) (edges []float64, names []string, err error) {
	k := h.bins
	if k == 0 {
		k = int(math.Ceil(math.Log2(float64(n)))) + 1
	}
	if k < 1 {
		return nil, nil, fmt.Errorf("%d bins, want at least 1", k)
	}
	switch {
	case lo == hi:
		edges = []float64{lo - 0.5, lo + 0.5}
	case h.ranged:
		// lo + (hi − lo)·b/k rather than lo + b·w: over [0, 1] in 10
		// bins, edge 6 is then 0.6, not 6 × 0.1 = 0.6000000000000001,
		// so that 3/5 falls in [0.6, 0.7).
		for b := range k + 1 {
			edges = append(edges, lo+(hi-lo)*float64(b)/float64(k))
		}
	default:
		edges = roundBins(lo, hi, k)
	}
	k = len(edges) - 1
	for b := range k {
		closing := ")"
		if b == k-1 {
			closing = "]"
		}
		names = append(names, "["+formatEdge(edges[b])+", "+formatEdge(edges[b+1])+closing)
	}
	return edges, names, nil
}

// countBins returns the number of values in each bin and the values' sum.
func countBins(vals, edges []float64) (counts []int, sum float64) {
	k := len(edges) - 1
	counts = make([]int, k)
	for _, v := range vals {
		b := min(max(int(math.Floor((v-edges[0])/(edges[k]-edges[0])*float64(k))), 0), k-1)
		// Rounding may put a value on an edge one bin off; the edges
		// decide.
		if b > 0 && v < edges[b] {
			b--
		} else if b < k-1 && v >= edges[b+1] {
			b++
		}
		counts[b]++
		sum += v
	}
	return counts, sum
}

// markLine draws the marks as dashed vertical lines with their labels.
func (h *HistogramChart) markLine() map[string]any {
	marks := make([]any, len(h.marks))
	for i, m := range h.marks {
		color := Palette[(i+1)%len(Palette)]
		marks[i] = map[string]any{"xAxis": m.value, "name": m.name,
			"lineStyle": map[string]any{"color": color, "type": Dashed.echarts(), "width": 2},
			"label":     map[string]any{"formatter": m.name + " " + strconv.FormatFloat(m.value, 'g', 3, 64), "color": color}}
	}
	return map[string]any{"symbol": "none", "silent": true, "data": marks}
}

// chart lays out the histogram's series with subtitle sub over an x axis
// from lo to hi.
func (h *HistogramChart) chart(series map[string]any, sub string, lo, hi float64) *Chart {
	yName := h.yName
	if yName == "" {
		yName = "count"
	}
	gridTop := 70
	if len(h.marks) > 0 {
		gridTop = 90 // room for the marks' labels above the plot
	}
	xAxis := map[string]any{"type": "value", "min": lo, "max": hi, "name": h.xName,
		"nameLocation": "middle", "nameGap": 28, "splitLine": map[string]any{"show": false}}
	if h.discrete {
		// The axis runs from half below the first integer; label integers only.
		xAxis["axisLabel"] = map[string]any{"formatter": jsFunc(integerLabel)}
	}
	// The axes cross at the plot's corner, not at zero.
	xAxis["axisLine"] = map[string]any{"onZero": false}
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": h.title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "item", "formatter": jsFunc(histogramTooltip)},
		"grid":      map[string]any{"top": gridTop, "left": 60, "right": 40, "bottom": 50},
		"xAxis":     xAxis,
		"yAxis": map[string]any{"type": "value", "min": 0, "minInterval": 1, "name": yName, "axisLine": map[string]any{"onZero": false},
			"nameLocation": "middle", "nameGap": 40, "splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}},
		"series": []any{series},
	}
	return newChart(h.title, 680, 300+gridTop, opt)
}

// roundBins returns the edges of bins of a round width w = f·10ᵉ, f ∈ {1,
// 2, 5}, the smallest not below (hi − lo)/k, that cover [lo, hi] from the
// multiple of w at or below lo, with hi inside the last bin: the edges
// (m + b)·w, b = 0, …, k′, for m = ⌊lo/w⌋ and k′ = ⌊(hi − m·w)/w⌋ + 1.
// Each edge is computed as an integer times 10ᵉ (or divided by 10⁻ᵉ), the
// double nearest the decimal number it names.
func roundBins(lo, hi float64, k int) []float64 {
	raw := (hi - lo) / float64(k)
	e := int(math.Floor(math.Log10(raw)))
	f := 10.0
	for _, c := range []float64{1, 2, 5} {
		if c*math.Pow10(e) >= raw {
			f = c
			break
		}
	}
	edge := func(n float64) float64 { // n·f·10ᵉ
		if e < 0 {
			return n * f / math.Pow10(-e)
		}
		return n * f * math.Pow10(e)
	}
	// m = ⌊lo/w⌋, with the quotient's rounding undone by the edges.
	m := math.Floor(lo / edge(1))
	for edge(m) > lo {
		m--
	}
	for edge(m+1) <= lo {
		m++
	}
	var edges []float64
	for b := m; ; b++ {
		edges = append(edges, edge(b))
		if edges[len(edges)-1] > hi {
			return edges
		}
	}
}

// formatEdge writes a bin edge with up to four significant digits.
func formatEdge(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

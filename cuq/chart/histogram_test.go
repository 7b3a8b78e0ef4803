package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// bins returns the histogram's bins as (name, lo, hi, count) from its
// decoded option.
func bins(t *testing.T, opt map[string]any) (names []string, edges [][2]float64, counts []float64) {
	t.Helper()
	s := series(t, opt)
	if len(s) != 1 || s[0]["type"] != "custom" {
		t.Fatalf("series %v, want one custom series", s)
	}
	for _, d := range s[0]["data"].([]any) {
		item := d.(map[string]any)
		v := item["value"].([]any)
		names = append(names, item["name"].(string))
		edges = append(edges, [2]float64{v[0].(float64), v[1].(float64)})
		counts = append(counts, v[2].(float64))
	}
	return names, edges, counts
}

func subtitle(opt map[string]any) any { return opt["title"].(map[string]any)["subtext"] }

// TestHistogramEqualWidth counts seven values in four bins of [0, 1] by
// hand: a value on an inner edge goes to the bin above it, 1 to the last.
func TestHistogramEqualWidth(t *testing.T) {
	c, opt := optionOf(t, Histogram("homophily", []float64{0, 0.1, 0.25, 0.5, 0.5, 0.99, 1}).Range(0, 1).Bins(4).XName("h").YName("nodes"))
	names, edges, counts := bins(t, opt)
	if fmt.Sprint(names) != "[[0, 0.25) [0.25, 0.5) [0.5, 0.75) [0.75, 1]]" ||
		fmt.Sprint(edges) != "[[0 0.25] [0.25 0.5] [0.5 0.75] [0.75 1]]" || fmt.Sprint(counts) != "[2 1 2 2]" {
		t.Errorf("bins %v %v %v", names, edges, counts)
	}
	x, y := opt["xAxis"].(map[string]any), opt["yAxis"].(map[string]any)
	if x["min"] != 0.0 || x["max"] != 1.0 || x["name"] != "h" || y["name"] != "nodes" {
		t.Errorf("axes %v %v", x, y)
	}
	if sub := subtitle(opt); sub != "7 values · mean 0.4771" {
		t.Errorf("subtitle %q", sub)
	}
	if c.Title != "homophily" || !strings.Contains(c.Option(), `"formatter":function (p)`) ||
		!strings.Contains(c.Option(), `"renderItem":function (params, api)`) {
		t.Errorf("title %q or functions not embedded as code:\n%s", c.Title, c.Option())
	}
}

// TestHistogramEdgesAreDecimal checks that values on decimal edges fall in
// the bin the edges name, with fixed and with round bins.
func TestHistogramEdgesAreDecimal(t *testing.T) {
	vals := []float64{3.0 / 10, 3.0 / 5, 7.0 / 10, 1}
	_, opt := optionOf(t, Histogram("h", vals).Range(0, 1).Bins(10))
	if _, _, counts := bins(t, opt); fmt.Sprint(counts) != "[0 0 0 1 0 0 1 1 0 1]" {
		t.Errorf("fixed bins: %v", counts)
	}
	_, opt = optionOf(t, Histogram("h", vals).Bins(7)) // width 0.1 from 0.3
	if names, _, counts := bins(t, opt); fmt.Sprint(names) != "[[0.3, 0.4) [0.4, 0.5) [0.5, 0.6) [0.6, 0.7) [0.7, 0.8) [0.8, 0.9) [0.9, 1) [1, 1.1]]" ||
		fmt.Sprint(counts) != "[1 0 0 1 1 0 0 1]" {
		t.Errorf("round bins: %v %v", names, counts)
	}
}

// TestHistogramDefaults checks Sturges' rule (7 values: ⌈log₂ 7⌉ + 1 = 4
// bins of at least (7 − 1)/4 = 1.5, so of width 2 from 0), a target of 10
// bins over [0.0625, 0.125] (width 0.01 from 0.06: 7 bins), and one unit
// bin around equal values.
func TestHistogramDefaults(t *testing.T) {
	_, opt := optionOf(t, Histogram("n", []int{1, 2, 3, 4, 5, 6, 7}))
	_, edges, counts := bins(t, opt)
	if fmt.Sprint(edges) != "[[0 2] [2 4] [4 6] [6 8]]" || fmt.Sprint(counts) != "[1 2 2 2]" {
		t.Errorf("default bins %v %v", edges, counts)
	}
	if y := opt["yAxis"].(map[string]any); y["name"] != "count" {
		t.Errorf("default y name %v", y["name"])
	}
	_, opt = optionOf(t, Histogram("density", []float64{0.0625, 0.078125, 0.09375, 0.1, 0.125}).Bins(10))
	names, _, counts := bins(t, opt)
	if fmt.Sprint(names) != "[[0.06, 0.07) [0.07, 0.08) [0.08, 0.09) [0.09, 0.1) [0.1, 0.11) [0.11, 0.12) [0.12, 0.13]]" ||
		fmt.Sprint(counts) != "[1 1 0 1 1 0 1]" {
		t.Errorf("round bins %v %v", names, counts)
	}
	_, opt = optionOf(t, Histogram("same", []float64{3, 3}))
	if _, edges, counts = bins(t, opt); fmt.Sprint(edges) != "[[2.5 3.5]]" || fmt.Sprint(counts) != "[2]" {
		t.Errorf("equal values: %v %v", edges, counts)
	}
}

// TestHistogramDiscrete checks one bar per integer, empty ones included.
func TestHistogramDiscrete(t *testing.T) {
	c, opt := optionOf(t, Histogram("degree", []int{0, 2, 2, 3, 5}).Discrete().Bins(2))
	names, edges, counts := bins(t, opt)
	if fmt.Sprint(names) != "[0 1 2 3 4 5]" || fmt.Sprint(counts) != "[1 0 2 1 0 1]" ||
		edges[0] != [2]float64{-0.5, 0.5} || edges[5] != [2]float64{4.5, 5.5} {
		t.Errorf("bars %v %v %v", names, edges, counts)
	}
	if sub := subtitle(opt); sub != "5 values · mean 2.4" {
		t.Errorf("subtitle %q", sub)
	}
	if !strings.Contains(c.Option(), `"axisLabel":{"formatter":function (v)`) {
		t.Errorf("integer labels missing:\n%s", c.Option())
	}
	// With a range, the bars cover its integers.
	_, opt = optionOf(t, Histogram("degree", []int{1, 2}).Discrete().Range(0, 3))
	if names, _, counts = bins(t, opt); fmt.Sprint(names) != "[0 1 2 3]" || fmt.Sprint(counts) != "[0 1 1 0]" {
		t.Errorf("ranged bars %v %v", names, counts)
	}
}

// TestHistogramSkipNaNAndMarks checks that SkipNaN leaves NaN out and says
// so, and that marks become labelled vertical lines.
func TestHistogramSkipNaNAndMarks(t *testing.T) {
	nan := math.NaN()
	_, opt := optionOf(t, Histogram("h", []float64{nan, 0, 1, nan, 0.5}).Range(0, 1).Bins(2).
		SkipNaN("nodes without labelled neighbours").Mark("edge homophily", 0.4).Mark("mean", 0.5))
	if _, _, counts := bins(t, opt); fmt.Sprint(counts) != "[1 2]" {
		t.Errorf("counts %v", counts)
	}
	if sub := subtitle(opt); sub != "3 values · mean 0.5 · 2 nodes without labelled neighbours left out" {
		t.Errorf("subtitle %q", sub)
	}
	ml := series(t, opt)[0]["markLine"].(map[string]any)["data"].([]any)
	if len(ml) != 2 {
		t.Fatalf("%d marks, want 2", len(ml))
	}
	for k, want := range []struct {
		x     float64
		label string
	}{{0.4, "edge homophily 0.4"}, {0.5, "mean 0.5"}} {
		m := ml[k].(map[string]any)
		label := m["label"].(map[string]any)
		if m["xAxis"] != want.x || label["formatter"] != want.label || label["color"] != Palette[k+1] {
			t.Errorf("mark %d: %v", k, m)
		}
	}
}

func TestHistogramErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		h    *HistogramChart
		want string
	}{
		{Histogram("e", []int{}), `chart.Histogram "e": no values`},
		{Histogram("e", []float64{1, nan}), `chart.Histogram "e": value 1 is NaN (SkipNaN leaves such values out)`},
		{Histogram("e", []float64{nan}).SkipNaN(""), `chart.Histogram "e": all 1 values are NaN`},
		{Histogram("e", []float64{-inf}).SkipNaN("x"), `chart.Histogram "e": value 0 is -Inf`},
		{Histogram("e", []float64{1, 1.5}).Discrete(), `chart.Histogram "e": value 1 is 1.5, not an integer (Discrete counts integers)`},
		{Histogram("e", []float64{0.5, 2}).Range(0, 1), `chart.Histogram "e": value 1 is 2, outside the range [0, 1]`},
		{Histogram("e", []float64{0.5}).Range(1, 1), `chart.Histogram "e": range [1, 1] is not a finite interval`},
		{Histogram("e", []float64{0.5}).Range(0, inf), `chart.Histogram "e": range [0, +Inf] is not a finite interval`},
		{Histogram("e", []float64{0.5}).Bins(-2), `chart.Histogram "e": -2 bins, want at least 1`},
		{Histogram("e", []float64{0.5}).Mark("m", nan), `chart.Histogram "e": mark "m" is NaN`},
		{Histogram("e", []int{0, 1000}).Discrete(), `chart.Histogram "e": the values span 1001 integers, more than 500 bars; use Bins without Discrete`},
		{nil, `chart.Histogram: nil builder`},
	} {
		if _, err := c.h.Done(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

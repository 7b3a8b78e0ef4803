package chart

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// GraphView is the input of GraphChart: a graph with N = len(Values) nodes,
// its edges, and one uncertainty value per node.
type GraphView struct {
	Title string
	// Measure names the values, e.g. "EU"; it labels the colour legend.
	Measure string
	// Values[i] is the uncertainty of node i; it sets the node's colour.
	Values []float64
	// Edges are node index pairs; an undirected edge may be given once or
	// in both directions.
	Edges [][2]int
	// Names optionally label the nodes in the tooltip (default "node i").
	Names []string
	// X and Y optionally fix the layout (both of length N); when nil the
	// nodes are placed by a force-directed layout in the browser.
	X, Y []float64
}

// graphNode is an ECharts graph node. It is written here rather than
// taken from go-echarts because opts.GraphNode omits a value, x or y of 0.
type graphNode struct {
	Name  string   `json:"name"`
	Value float64  `json:"value"`
	X     *float64 `json:"x,omitempty"`
	Y     *float64 `json:"y,omitempty"`
}

type graphLink struct {
	Source int `json:"source"`
	Target int `json:"target"`
}

// Ramp is the colour ramp of continuous visual maps, from low to high
// values (blue, yellow, red: low uncertainty cool, high uncertainty hot).
var Ramp = []string{"#313695", "#74add1", "#e0f3f8", "#fee090", "#f46d43", "#a50026"}

// visualRange returns the visual map's bounds for values in [lo, hi]. The
// bounds are float32 fields that go-echarts omits when 0, and ECharts then
// falls back to min 0 (right) and max 200 (wrong): a zero upper bound is
// replaced by the smallest positive float32, and a degenerate range widened.
func visualRange(lo, hi float64) (float32, float32) {
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	max := float32(hi)
	if max == 0 {
		max = math.SmallestNonzeroFloat32
	}
	return float32(lo), max
}

// GraphChart draws a graph whose nodes are coloured by an uncertainty
// measure, with a continuous colour legend (ECharts visual map) that can be
// dragged to highlight a range of values.
func GraphChart(v GraphView) (*Chart, error) {
	n := len(v.Values)
	if n == 0 {
		return nil, fmt.Errorf("chart.GraphChart %q: no nodes", v.Title)
	}
	if v.Names != nil && len(v.Names) != n {
		return nil, fmt.Errorf("chart.GraphChart %q: %d names for %d nodes", v.Title, len(v.Names), n)
	}
	if (v.X == nil) != (v.Y == nil) || (v.X != nil && (len(v.X) != n || len(v.Y) != n)) {
		return nil, fmt.Errorf("chart.GraphChart %q: layout has %d x and %d y coordinates for %d nodes", v.Title, len(v.X), len(v.Y), n)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	nodes := make([]graphNode, n)
	for i, u := range v.Values {
		if math.IsNaN(u) || math.IsInf(u, 0) {
			return nil, fmt.Errorf("chart.GraphChart %q: node %d has value %v", v.Title, i, u)
		}
		lo, hi = min(lo, u), max(hi, u)
		nodes[i] = graphNode{Name: fmt.Sprintf("node %d", i), Value: u}
		if v.Names != nil {
			nodes[i].Name = v.Names[i]
		}
		if v.X != nil {
			nodes[i].X, nodes[i].Y = &v.X[i], &v.Y[i]
		}
	}
	links := make([]graphLink, len(v.Edges))
	for k, e := range v.Edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("chart.GraphChart %q: edge %d (%d, %d) out of range for %d nodes", v.Title, k, e[0], e[1], n)
		}
		links[k] = graphLink{Source: e[0], Target: e[1]}
	}
	measure := v.Measure
	if measure == "" {
		measure = "uncertainty"
	}
	vmin, vmax := visualRange(lo, hi)
	g := charts.NewGraph()
	g.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: v.Title}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithVisualMapOpts(opts.VisualMap{
			Type: "continuous", Calculable: opts.Bool(true), Min: vmin, Max: vmax,
			Text: []string{measure + " high", "low"}, Left: "10", Bottom: "20",
			InRange: &opts.VisualMapInRange{Color: Ramp},
		}),
	)
	layout := "force"
	if v.X != nil {
		layout = "none"
	}
	g.MultiSeries = append(g.MultiSeries, charts.SingleSeries{
		Name: measure, Type: types.ChartGraph, Layout: layout,
		Data: nodes, Links: links, Roam: opts.Bool(true), SymbolSize: 7,
		Top: "50", Bottom: "20", Left: "90", Right: "20",
		Force:     &opts.GraphForce{Repulsion: 12, Gravity: 0.3, EdgeLength: 8},
		LineStyle: &opts.LineStyle{Color: "#aaa", Opacity: opts.Float(0.5)},
	})
	return newChart(v.Title, 800, 640, visualMapPrecision{g, 3}), nil
}

// visualMapPrecision sets the number of decimals the colour legend shows
// (ECharts visualMap.precision, which go-echarts does not expose; the
// default of 0 labels an EU range of 0 to 0.35 as "0" to "0").
type visualMapPrecision struct {
	optioner
	digits int
}

func (v visualMapPrecision) JSONNotEscaped() template.HTML {
	js := string(v.optioner.JSONNotEscaped())
	return template.HTML(strings.Replace(js, `"visualMap":[{`, fmt.Sprintf(`"visualMap":[{"precision":%d,`, v.digits), 1))
}

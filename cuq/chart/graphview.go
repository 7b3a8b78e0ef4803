package chart

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// GraphView is the input of GraphChart: a graph with N = len(Values) nodes,
// its edges, and one uncertainty value per node.
type GraphView struct {
	Title string
	// Measure names the values, e.g. "EU"; it labels the colour legend.
	Measure string
	// Values[i] is the uncertainty of node i; it sets the node's colour.
	Values []float64
	// More holds further measures of the same nodes. With any, the chart
	// gets a selector (an ECharts timeline) that recolours the graph by
	// each measure in turn, in the page itself: it works in an exported
	// notebook too.
	More []GraphLayer
	// Edges are node index pairs; an undirected edge may be given once or
	// in both directions.
	Edges [][2]int
	// Names optionally label the nodes in the tooltip (default "node i").
	Names []string
	// Marked optionally singles out nodes (the OOD ones, say), drawn as
	// larger triangles; MarkLabel says what they are in the legend.
	Marked    []bool
	MarkLabel string
	// X and Y optionally fix the layout (both of length N); when nil the
	// nodes are placed by a force-directed layout computed in Go, the same
	// on every draw, or for more than 1000 nodes by the browser.
	X, Y []float64
}

// GraphLayer is one more measure of a GraphView's nodes.
type GraphLayer struct {
	Measure string
	Values  []float64
}

// Ramp is the colour ramp of the graph's colour classes, from low to high
// uncertainty (cool to hot).
var Ramp = []string{"#313695", "#74add1", "#e0f3f8", "#fee090", "#f46d43", "#a50026"}

// graphClasses splits the values into at most len(Ramp) colour classes of
// about equal size (quantiles), so that the colours stay readable when many
// nodes share a value or a few outliers stretch the range. A value held by
// at least as many nodes as a class should have forms a class of its own,
// so that it does not swallow the smaller values below it. It returns the
// upper bound of each class, ascending.
func graphClasses(values []float64) []float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	var uniq []float64
	var count []int
	for _, v := range sorted {
		if len(uniq) > 0 && uniq[len(uniq)-1] == v {
			count[len(count)-1]++
			continue
		}
		uniq, count = append(uniq, v), append(count, 1)
	}
	var bounds []float64
	remaining, acc := len(values), 0
	target := func() float64 { return float64(remaining) / float64(len(Ramp)-len(bounds)) }
	for j, v := range uniq {
		if acc > 0 && float64(count[j]) >= target() && len(bounds) < len(Ramp)-1 {
			bounds, remaining, acc = append(bounds, uniq[j-1]), remaining-acc, 0
		}
		acc += count[j]
		if j == len(uniq)-1 || (float64(acc) >= target() && len(bounds) < len(Ramp)-1) {
			bounds, remaining, acc = append(bounds, v), remaining-acc, 0
		}
	}
	return bounds
}

// GraphChart draws a graph whose nodes are coloured by an uncertainty
// measure. The colour legend has one entry per class of values (quantiles,
// see above), with its range and node count; a click on an entry hides its
// nodes. Marked nodes are larger triangles. With more measures (More), a
// selector under the graph recolours it by each.
func GraphChart(v GraphView) (*Chart, error) {
	layers, err := v.layers()
	if err != nil {
		return nil, fmt.Errorf("chart.GraphChart %q: %w", v.Title, err)
	}
	d, err := newGraphDrawing(v)
	if err != nil {
		return nil, fmt.Errorf("chart.GraphChart %q: %w", v.Title, err)
	}
	series, legend := d.layer(layers[0])
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": v.Title, "subtext": d.subtitle(), "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "item", "formatter": jsFunc(`function (p) { return p.dataType === 'edge' ? '' : p.name + '<br/>' + p.seriesName + ' ' + Number(p.value).toPrecision(3); }`)},
		"legend":    map[string]any{"data": legend, "orient": "vertical", "left": 8, "top": 60},
		"series":    []any{series},
	}
	if len(layers) == 1 {
		return newChart(v.Title, 860, 640, opt), nil
	}
	names := make([]string, len(layers))
	options := make([]any, len(layers))
	for k, l := range layers {
		names[k] = l.Measure
		series, legend := d.layer(l)
		options[k] = map[string]any{"legend": map[string]any{"data": legend}, "series": []any{series}}
	}
	opt["timeline"] = map[string]any{"axisType": "category", "data": names, "autoPlay": false, "bottom": 8,
		"left": 200, "right": 40, "symbolSize": 12, "label": map[string]any{"fontSize": 13}, "tooltip": map[string]any{"show": false}}
	return newChart(v.Title, 860, 680, rawOption{"baseOption": map[string]any(opt), "options": options}), nil
}

// layers checks v's per-node slices and returns its measures as layers,
// the first one Values (named Measure, "uncertainty" by default).
func (v GraphView) layers() ([]GraphLayer, error) {
	n := len(v.Values)
	switch {
	case n == 0:
		return nil, fmt.Errorf("no nodes")
	case v.Names != nil && len(v.Names) != n:
		return nil, fmt.Errorf("%d names for %d nodes", len(v.Names), n)
	case v.Marked != nil && len(v.Marked) != n:
		return nil, fmt.Errorf("%d marks for %d nodes", len(v.Marked), n)
	case (v.X == nil) != (v.Y == nil) || (v.X != nil && (len(v.X) != n || len(v.Y) != n)):
		return nil, fmt.Errorf("layout has %d x and %d y coordinates for %d nodes", len(v.X), len(v.Y), n)
	}
	measure := v.Measure
	if measure == "" {
		measure = "uncertainty"
	}
	layers := append([]GraphLayer{{Measure: measure, Values: v.Values}}, v.More...)
	for _, l := range layers {
		if len(l.Values) != n {
			return nil, fmt.Errorf("%d values of %s for %d nodes", len(l.Values), l.Measure, n)
		}
		for i, u := range l.Values {
			if math.IsNaN(u) || math.IsInf(u, 0) {
				return nil, fmt.Errorf("node %d has %s %v", i, l.Measure, u)
			}
		}
	}
	for k, e := range v.Edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("edge %d (%d, %d) out of range for %d nodes", k, e[0], e[1], n)
		}
	}
	return layers, nil
}

// graphDrawing is what every layer of a graph view shares: the view, the
// node positions (nil: the browser lays the graph out, layout "force")
// and the links.
type graphDrawing struct {
	v      GraphView
	x, y   []float64
	layout string
	links  []any
}

// newGraphDrawing places the nodes of the checked view v: at v's
// coordinates, by graph.ForceLayout for up to maxGoLayout nodes, else in
// the browser.
func newGraphDrawing(v GraphView) (*graphDrawing, error) {
	d := &graphDrawing{v: v, x: v.X, y: v.Y, layout: "none", links: make([]any, len(v.Edges))}
	switch n := len(v.Values); {
	case d.x == nil && n <= maxGoLayout:
		var err error
		if d.x, d.y, err = graph.ForceLayout(n, v.Edges); err != nil {
			return nil, err
		}
	case d.x == nil:
		d.layout = "force" // the browser lays out large graphs
	}
	for k, e := range v.Edges {
		d.links[k] = map[string]any{"source": e[0], "target": e[1]}
	}
	return d, nil
}

// subtitle says how the colours are chosen and how many nodes are marked.
func (d *graphDrawing) subtitle() string {
	sub := "colour classes hold about equal numbers of nodes"
	marked := 0
	for _, m := range d.v.Marked {
		if m {
			marked++
		}
	}
	if marked > 0 {
		label := d.v.MarkLabel
		if label == "" {
			label = "marked nodes"
		}
		sub = fmt.Sprintf("▲ %s (%d); ", label, marked) + sub
	}
	return sub
}

// layer returns the graph series of one measure, its nodes coloured by
// the colour class of their value, and its legend, highest class first.
func (d *graphDrawing) layer(l GraphLayer) (series map[string]any, legend []string) {
	bounds := graphClasses(l.Values)
	counts := make([]int, len(bounds))
	nodes := make([]any, len(l.Values))
	for i, u := range l.Values {
		k, _ := slices.BinarySearch(bounds, u)
		counts[k]++
		nodes[i] = d.node(i, u, k)
	}
	categories := make([]any, len(bounds))
	legend = make([]string, len(bounds))
	lo := slices.Min(l.Values)
	for k, hi := range bounds {
		if k > 0 {
			lo = bounds[k-1]
		}
		label := fmt.Sprintf("%s %.3g – %.3g (%d)", l.Measure, lo, hi, counts[k])
		if k > 0 {
			label = fmt.Sprintf("%s > %.3g – %.3g (%d)", l.Measure, lo, hi, counts[k])
		}
		if k == 0 && lo == hi {
			label = fmt.Sprintf("%s = %.3g (%d)", l.Measure, hi, counts[k])
		}
		color := Ramp[k*(len(Ramp)-1)/max(1, len(bounds)-1)]
		categories[k] = map[string]any{"name": label, "itemStyle": map[string]any{"color": color}}
		legend[len(bounds)-1-k] = label // highest first
	}
	return map[string]any{
		"type": "graph", "name": l.Measure, "layout": d.layout, "data": nodes, "links": d.links, "categories": categories,
		"roam": true, "symbolSize": 8, "top": 60, "bottom": 60, "left": 200, "right": 20,
		"force":     map[string]any{"repulsion": 40, "gravity": 0.12, "edgeLength": 12},
		"lineStyle": map[string]any{"color": "#aaa", "opacity": 0.5},
		"emphasis":  map[string]any{"focus": "adjacency"},
	}, legend
}

// node returns node i's series datum: its name, value u and colour class
// k, its position, and a triangle when it is marked.
func (d *graphDrawing) node(i int, u float64, k int) map[string]any {
	name := fmt.Sprintf("node %d", i)
	if d.v.Names != nil {
		name = d.v.Names[i]
	}
	node := map[string]any{"name": name, "value": u, "category": k}
	if d.x != nil {
		node["x"], node["y"] = d.x[i], d.y[i]
	}
	if d.v.Marked != nil && d.v.Marked[i] {
		node["symbol"], node["symbolSize"] = "triangle", 15
		node["itemStyle"] = map[string]any{"borderColor": "#000", "borderWidth": 1.2}
	}
	return node
}

// maxGoLayout is the most nodes whose layout GraphChart computes in Go
// (graph.ForceLayout costs O(n²) a step).
const maxGoLayout = 1000

// NeighbourhoodChart builds the graph view around one node of a
// prediction. Start it with NeighbourhoodOf, set options, then call Done.
type NeighbourhoodChart struct {
	pred      GraphScored
	center    int
	size      int
	measures  []uq.Measure
	marked    []int
	markLabel string
	title     string
}

// NeighbourhoodOf starts the view of the nodes around center in p's graph
// (breadth first, 300 nodes by default), coloured by EU (or the measure set
// with Measure).
func NeighbourhoodOf(p GraphScored, center int) *NeighbourhoodChart {
	return &NeighbourhoodChart{pred: p, center: center, size: 300, measures: []uq.Measure{uq.EU}}
}

// Size sets the number of nodes shown (browsers lay out a few hundred
// quickly; thousands take seconds).
func (c *NeighbourhoodChart) Size(n int) *NeighbourhoodChart { c.size = n; return c }

// Measures sets the measures that colour the nodes: the first at first,
// the others through a selector under the graph.
func (c *NeighbourhoodChart) Measures(ms ...uq.Measure) *NeighbourhoodChart {
	c.measures = ms
	return c
}

// Mark singles out nodes (OOD or perturbed nodes, say) as triangles; label
// says what they are.
func (c *NeighbourhoodChart) Mark(nodes []int, label string) *NeighbourhoodChart {
	c.marked, c.markLabel = nodes, label
	return c
}

// Title sets the title.
func (c *NeighbourhoodChart) Title(t string) *NeighbourhoodChart { c.title = t; return c }

// Done returns the chart, or an error for a bad center, size or measure.
func (c *NeighbourhoodChart) Done() (*Chart, error) {
	if c == nil {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: nil builder")
	}
	p := c.pred
	if isNil(p) || p.OnGraph() == nil {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: no prediction or no graph in it")
	}
	g := p.OnGraph()
	if c.center < 0 || c.center >= g.N {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: center %d out of range [0, %d)", c.center, g.N)
	}
	if c.size < 1 {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: size %d < 1", c.size)
	}
	if len(c.measures) == 0 {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: no measure")
	}
	values := make([][]float64, len(c.measures))
	for k, m := range c.measures {
		v, err := p.Uncertainty(m)
		if err != nil {
			return nil, fmt.Errorf("chart.NeighbourhoodOf: %w", err)
		}
		values[k] = v
	}
	order, err := g.BreadthFirst(c.center, c.size)
	if err != nil {
		return nil, fmt.Errorf("chart.NeighbourhoodOf: %w", err)
	}
	class := p.Predicted()
	for _, i := range order {
		if i >= len(class) || i >= len(g.Labels) {
			return nil, fmt.Errorf("chart.NeighbourhoodOf: node %d of the graph has no prediction or label", i)
		}
		for k, v := range values {
			if i >= len(v) {
				return nil, fmt.Errorf("chart.NeighbourhoodOf: node %d of the graph has no %s", i, c.measures[k])
			}
		}
	}
	return GraphChart(c.view(p.Name(), g, order, values, class))
}

// view returns the graph view of the nodes order of g, in that order: the
// values of each measure, the nodes' names with their labels and
// predicted classes, the marks and the edges among them.
func (c *NeighbourhoodChart) view(model string, g *graph.Graph, order []int, values [][]float64, class []int) GraphView {
	title := c.title
	if title == "" {
		title = fmt.Sprintf("%s: %d nodes around node %d, coloured by %s", model, len(order), c.center, c.measures[0])
	}
	v := GraphView{Title: title, Measure: c.measures[0].String(), MarkLabel: c.markLabel}
	for _, m := range c.measures[1:] {
		v.More = append(v.More, GraphLayer{Measure: m.String()})
	}
	isMarked := map[int]bool{}
	for _, i := range c.marked {
		isMarked[i] = true
	}
	index := make(map[int]int, len(order))
	for k, i := range order {
		index[i] = k
	}
	for k, i := range order {
		v.Values = append(v.Values, values[0][i])
		for l := range v.More {
			v.More[l].Values = append(v.More[l].Values, values[l+1][i])
		}
		name := fmt.Sprintf("node %d, label %d, predicted %d", i, g.Labels[i], class[i])
		if isMarked[i] {
			name += " (" + c.markLabel + ")"
		}
		v.Names = append(v.Names, name)
		v.Marked = append(v.Marked, isMarked[i])
		for _, j := range g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]] {
			if kj, ok := index[j]; ok && k < kj {
				v.Edges = append(v.Edges, [2]int{k, kj})
			}
		}
	}
	return v
}

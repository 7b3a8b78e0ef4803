package chart

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// renderCredalRegion draws the data of a custom series, points (x, y) in
// the simplex's plane (see toPlane) in order around a convex polygon, as
// one filled polygon: the first item draws it, reading the others with
// api.value(dimension, index).
const renderCredalRegion = `function (params, api) {
if (params.dataIndexInside !== 0) { return null; }
var pts = [];
for (var i = 0; i < params.dataInsideLength; i++) { pts.push(api.coord([api.value(0, i), api.value(1, i)])); }
return {type: 'polygon', shape: {points: pts}, style: {fill: 'rgba(0, 114, 178, 0.18)', stroke: '#0072B2', lineWidth: 1.5}};
}`

// CredalChart draws a credal set (package uq) on the 3-class simplex: the
// region of the set, the committee's members as points when the set is a
// hull, and the pooled prediction. With more than three classes it draws
// the set's image under θ ↦ θ_T / Σ_{c∈T} θ_c for the top three classes T
// (by the pooled prediction, else by the upper bounds), which maps the hull
// of the vertices onto the hull of their images. Start it with
// CredalSimplex or CredalOf, set options, then call Done.
type CredalChart struct {
	set    uq.CredalSet
	pooled []float64
	names  []string
	title  string
	err    error
}

// CredalSimplex starts the chart of set.
func CredalSimplex(set uq.CredalSet) *CredalChart { return &CredalChart{set: set} }

// CredalSource is a prediction with credal sets: what CredalOf draws.
// *cuq.Prediction satisfies it.
type CredalSource interface {
	// Name names the model.
	Name() string
	// CredalSets returns every node's credal set, with the given strength
	// (see cuq.Prediction.CredalSets).
	CredalSets(strength float64) ([]uq.CredalSet, error)
	// ClassProbabilities returns the mean class probabilities p̄, a row per
	// node.
	ClassProbabilities() *tensor.Dense
}

// CredalOf starts the chart of node's credal set in p (p.CredalSets with
// the given strength, see cuq.Prediction.CredalSets), with the node's p̄ as
// the pooled prediction and the title naming the model and the node.
func CredalOf(p CredalSource, node int, strength float64) *CredalChart {
	if isNil(p) {
		return &CredalChart{err: fmt.Errorf("chart.CredalOf: nil prediction")}
	}
	sets, err := p.CredalSets(strength)
	if err != nil {
		return &CredalChart{err: fmt.Errorf("chart.CredalOf: %w", err)}
	}
	prob := p.ClassProbabilities()
	if node < 0 || node >= len(sets) || prob == nil || node >= prob.Rows {
		return &CredalChart{err: fmt.Errorf("chart.CredalOf: node %d outside the %d nodes of %s's prediction", node, len(sets), p.Name())}
	}
	return &CredalChart{set: sets[node], pooled: slices.Clone(prob.Row(node)),
		title: fmt.Sprintf("%s: credal set of node %d", p.Name(), node)}
}

// Pooled sets the pooled prediction drawn as a diamond (CredalOf sets p̄).
func (c *CredalChart) Pooled(p []float64) *CredalChart { c.pooled = slices.Clone(p); return c }

// Classes names the classes, all C of them (default "class 0", …).
func (c *CredalChart) Classes(names ...string) *CredalChart { c.names = names; return c }

// Title sets the chart's title.
func (c *CredalChart) Title(t string) *CredalChart { c.title = t; return c }

// simplexCorners returns the corner points of the simplex in the plane.
func simplexCorners() [3][2]float64 {
	var out [3][2]float64
	for k := range 3 {
		var t [3]float64
		t[k] = 1
		out[k][0], out[k][1] = toPlane(t)
	}
	return out
}

// credalView is a credal set projected on three classes, in the plane.
type credalView struct {
	top     [3]int       // the classes drawn, by rank
	region  [][2]float64 // the convex polygon, counter-clockwise
	members [][2]float64 // the hull's members that have mass on top
	thetas  [][3]float64 // their renormalised coordinates
	dropped int          // vertices or members without mass on top
}

// project renormalises p over the classes top; ok is false when p has no
// mass there.
func project(p []float64, top [3]int) (theta [3]float64, ok bool) {
	s := p[top[0]] + p[top[1]] + p[top[2]]
	if !(s > 0) {
		return theta, false
	}
	for r, k := range top {
		theta[r] = p[k] / s
	}
	return theta, true
}

// view projects the set on its top three classes.
func (c *CredalChart) view() (credalView, error) {
	k := c.set.Classes()
	var v credalView
	rank := make([]int, k)
	for i := range rank {
		rank[i] = i
	}
	key := c.set.Upper()
	if c.pooled != nil {
		key = c.pooled
	}
	slices.SortStableFunc(rank, func(a, b int) int { return cmp.Compare(key[b], key[a]) })
	copy(v.top[:], rank)
	if k == 3 {
		v.top = [3]int{0, 1, 2}
	}
	var pts [][2]float64
	for _, vert := range c.set.Vertices() {
		theta, ok := project(vert, v.top)
		if !ok {
			v.dropped++
			continue
		}
		x, y := toPlane(theta)
		pts = append(pts, [2]float64{x, y})
	}
	if len(pts) == 0 {
		return v, fmt.Errorf("no vertex of the credal set has mass on the classes %v", v.top)
	}
	v.region = convexHull(pts)
	if h, ok := c.set.(*uq.Hull); ok {
		for _, m := range h.Members() {
			if theta, ok := project(m, v.top); ok {
				x, y := toPlane(theta)
				v.members = append(v.members, [2]float64{x, y})
				v.thetas = append(v.thetas, theta)
			}
		}
	}
	return v, nil
}

// convexHull returns the convex hull of points in the plane,
// counter-clockwise from the lowest-leftmost point, without collinear
// points (Andrew's monotone chain); one or two points for degenerate sets.
func convexHull(points [][2]float64) [][2]float64 {
	pts := slices.Clone(points)
	slices.SortFunc(pts, func(a, b [2]float64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	pts = slices.Compact(pts)
	if len(pts) < 3 {
		return pts
	}
	cross := func(o, a, b [2]float64) float64 {
		return float64((a[0]-o[0])*(b[1]-o[1])) - float64((a[1]-o[1])*(b[0]-o[0]))
	}
	const eps = 1e-12
	var lower, upper [][2]float64
	for _, p := range pts {
		for len(lower) >= 2 && cross(lower[len(lower)-2], lower[len(lower)-1], p) <= eps {
			lower = lower[:len(lower)-1]
		}
		lower = append(lower, p)
	}
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		for len(upper) >= 2 && cross(upper[len(upper)-2], upper[len(upper)-1], p) <= eps {
			upper = upper[:len(upper)-1]
		}
		upper = append(upper, p)
	}
	return append(lower[:len(lower)-1], upper[:len(upper)-1]...)
}

// formatTheta writes θ as "(0.500, 0.300, 0.200)".
func formatTheta(theta []float64) string {
	parts := make([]string, len(theta))
	for i, t := range theta {
		parts[i] = strconv.FormatFloat(t, 'f', 3, 64)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Done projects the set and returns the chart. It returns an error for a
// nil set, fewer than three classes, a pooled prediction or names of
// another length than the classes, or a set with no mass on the classes
// drawn.
func (c *CredalChart) Done() (*Chart, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	v, err := c.view()
	if err != nil {
		return nil, fmt.Errorf("chart.CredalSimplex %q: %w", c.title, err)
	}
	lower, upper := c.set.Lower(), c.set.Upper()
	bounds := make([]string, 3)
	var names [3]string
	for r, class := range v.top {
		names[r] = c.className(class)
		bounds[r] = fmt.Sprintf("%s [%.3f, %.3f]", names[r], lower[class], upper[class])
	}
	subtitle := "bounds " + strings.Join(bounds, ", ")
	if k := c.set.Classes(); k > 3 {
		subtitle = fmt.Sprintf("top 3 of %d classes, renormalised; ", k) + subtitle
	}
	if v.dropped > 0 {
		subtitle += fmt.Sprintf("; %d vertices without mass on them not drawn", v.dropped)
	}
	const side, top, left = 320, 80, 40
	height := side * math.Sqrt(3) / 2
	opt := rawOption{
		"animation": false,
		"title": map[string]any{"text": c.title, "subtext": subtitle, "left": 10, "top": 0,
			"subtextStyle": map[string]any{"width": side + 2*left - 20, "overflow": "break"}},
		"tooltip": map[string]any{"trigger": "item", "formatter": "{b}"},
		"legend":  map[string]any{"data": []string{"credal set", "members", "pooled"}, "bottom": 0},
		"grid":    map[string]any{"left": left, "top": top, "width": side, "height": height},
		"xAxis":   map[string]any{"type": "value", "min": 0, "max": 1, "show": false},
		"yAxis":   map[string]any{"type": "value", "min": 0, "max": math.Sqrt(3) / 2, "show": false},
		"series":  c.series(v, "credal set: "+strings.Join(bounds, ", "), names),
	}
	return newChart(c.title, side+2*left, top+int(height)+60, opt), nil
}

// check returns the error of the builder or its inputs, if any.
func (c *CredalChart) check() error {
	if c == nil {
		return fmt.Errorf("chart.CredalSimplex: nil builder")
	}
	if c.err != nil {
		return c.err
	}
	if c.set == nil {
		return fmt.Errorf("chart.CredalSimplex %q: nil credal set", c.title)
	}
	switch k := c.set.Classes(); {
	case k < 3:
		return fmt.Errorf("chart.CredalSimplex %q: %d classes, the simplex needs 3 (or more, of which it draws the top three)", c.title, k)
	case c.pooled != nil && len(c.pooled) != k:
		return fmt.Errorf("chart.CredalSimplex %q: pooled prediction of %d classes for a set of %d", c.title, len(c.pooled), k)
	case c.names != nil && len(c.names) != k:
		return fmt.Errorf("chart.CredalSimplex %q: %d class names for %d classes", c.title, len(c.names), k)
	}
	return nil
}

// className names class: by Classes, else "class <number>".
func (c *CredalChart) className(class int) string {
	if c.names != nil {
		return c.names[class]
	}
	return "class " + strconv.Itoa(class)
}

// series returns the series of the view v: the simplex's outline, the
// region (each point named region), the members of a hull, the pooled
// prediction and the corners labelled with the names of the classes drawn.
func (c *CredalChart) series(v credalView, region string, names [3]string) []any {
	corners := simplexCorners()
	outline := make([]any, 0, 4)
	for _, r := range []int{0, 1, 2, 0} {
		outline = append(outline, []float64{corners[r][0], corners[r][1]})
	}
	series := []any{map[string]any{"type": "line", "name": "simplex", "data": outline, "symbol": "none",
		"silent": true, "lineStyle": map[string]any{"color": "#999", "width": 1}}}
	points := make([]any, len(v.region))
	for i, p := range v.region {
		points[i] = map[string]any{"name": region, "value": []float64{p[0], p[1]}}
	}
	series = append(series, map[string]any{"type": "custom", "name": "credal set", "data": points,
		"renderItem": jsFunc(renderCredalRegion), "color": Palette[0]})
	if len(v.members) > 0 {
		data := make([]any, len(v.members))
		for i, p := range v.members {
			data[i] = map[string]any{"name": "member: θ = " + formatTheta(v.thetas[i][:]), "value": []float64{p[0], p[1]}}
		}
		series = append(series, map[string]any{"type": "scatter", "name": "members", "data": data, "symbolSize": 7,
			"color": Palette[0]})
	}
	if c.pooled != nil {
		if theta, ok := project(c.pooled, v.top); ok {
			x, y := toPlane(theta)
			series = append(series, map[string]any{"type": "scatter", "name": "pooled", "symbol": "diamond", "symbolSize": 12,
				"color": Palette[1], "data": []any{map[string]any{"name": "pooled: θ = " + formatTheta(theta[:]), "value": []float64{x, y}}}})
		}
	}
	return append(series, map[string]any{"type": "scatter", "name": "classes", "data": cornerLabels(names), "symbolSize": 4,
		"color": "#333", "silent": true})
}

// cornerLabels returns the data of the simplex's corners, each labelled
// with the name of its class: below the two lower corners, above the top.
func cornerLabels(names [3]string) []any {
	var labels []any
	for r, x := range simplexCorners() {
		pos := "bottom"
		if r == 2 {
			pos = "top"
		}
		labels = append(labels, map[string]any{"name": names[r], "value": []float64{x[0], x[1]},
			"label": map[string]any{"show": true, "position": pos, "formatter": "{b}", "color": "#333"}})
	}
	return labels
}

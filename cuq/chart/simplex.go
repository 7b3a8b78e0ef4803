package chart

import (
	"fmt"
	"math"
)

// Dirichlet is the distribution Dir(α) over the probability simplex
// {θ : θ_k ≥ 0, Σ_k θ_k = 1}, with density (with respect to the Lebesgue
// measure on the first K−1 coordinates)
//
//	Dir(θ | α) = Γ(α0) / Π_k Γ(α_k) · Π_k θ_k^(α_k − 1),  α0 = Σ_k α_k.
type Dirichlet struct {
	alpha   []float64
	logNorm float64 // log Γ(α0) − Σ_k log Γ(α_k)
}

// NewDirichlet returns Dir(alpha); it needs at least two concentrations,
// all finite and positive.
func NewDirichlet(alpha ...float64) (*Dirichlet, error) {
	if len(alpha) < 2 {
		return nil, fmt.Errorf("chart.NewDirichlet: %d concentrations, need at least 2", len(alpha))
	}
	a0, norm := 0.0, 0.0
	for k, a := range alpha {
		if !(a > 0) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("chart.NewDirichlet: concentration α[%d] = %v, want finite and > 0", k, a)
		}
		a0 += a
		lg, _ := math.Lgamma(a)
		norm -= lg
	}
	lg0, _ := math.Lgamma(a0)
	return &Dirichlet{alpha: append([]float64(nil), alpha...), logNorm: norm + lg0}, nil
}

// Alpha returns a copy of the concentrations α.
func (d *Dirichlet) Alpha() []float64 { return append([]float64(nil), d.alpha...) }

// LogDensity returns log Dir(θ | α). It returns −Inf when θ has the wrong
// length, a negative component or components not summing to 1 (within
// 1e-9), and +Inf on a face θ_k = 0 where α_k < 1.
func (d *Dirichlet) LogDensity(theta []float64) float64 {
	if len(theta) != len(d.alpha) {
		return math.Inf(-1)
	}
	s, lp := 0.0, d.logNorm
	for k, t := range theta {
		if t < 0 {
			return math.Inf(-1)
		}
		s += t
		if d.alpha[k] != 1 {
			lp += float64((d.alpha[k] - 1) * math.Log(t))
		}
	}
	if math.Abs(s-1) > 1e-9 {
		return math.Inf(-1)
	}
	return lp
}

// Density returns Dir(θ | α) = exp(LogDensity(θ)).
func (d *Dirichlet) Density(theta []float64) float64 { return math.Exp(d.LogDensity(theta)) }

// Density3 is Density for three classes, in the form SimplexPanel takes.
func (d *Dirichlet) Density3(theta [3]float64) float64 { return d.Density(theta[:]) }

// Mixture is a finite mixture of Dirichlets, Σ_j w_j Dir(θ | α_j), such as
// the linear opinion pool of LOP-GPN.
type Mixture struct {
	weights    []float64
	components []*Dirichlet
}

// NewMixture returns the mixture of Dir(alphas[j]) with weights
// proportional to weights[j] (non-negative, positive sum; they are
// normalised to sum to 1). All components need the same number of classes.
func NewMixture(weights []float64, alphas [][]float64) (*Mixture, error) {
	if len(weights) != len(alphas) || len(weights) == 0 {
		return nil, fmt.Errorf("chart.NewMixture: %d weights for %d components, want equal and > 0", len(weights), len(alphas))
	}
	sum := 0.0
	for j, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("chart.NewMixture: weight %d is %v, want finite and ≥ 0", j, w)
		}
		sum += w
	}
	if sum == 0 {
		return nil, fmt.Errorf("chart.NewMixture: weights sum to 0")
	}
	m := &Mixture{weights: make([]float64, len(weights)), components: make([]*Dirichlet, len(alphas))}
	for j, a := range alphas {
		if len(a) != len(alphas[0]) {
			return nil, fmt.Errorf("chart.NewMixture: component %d has %d classes, component 0 has %d", j, len(a), len(alphas[0]))
		}
		d, err := NewDirichlet(a...)
		if err != nil {
			return nil, fmt.Errorf("chart.NewMixture: component %d: %w", j, err)
		}
		m.components[j] = d
		m.weights[j] = weights[j] / sum
	}
	return m, nil
}

// LogDensity returns log Σ_j w_j Dir(θ | α_j), computed as a log-sum-exp.
func (m *Mixture) LogDensity(theta []float64) float64 {
	top := math.Inf(-1)
	logs := make([]float64, len(m.components))
	for j, d := range m.components {
		logs[j] = math.Log(m.weights[j]) + d.LogDensity(theta)
		top = max(top, logs[j])
	}
	if math.IsInf(top, 0) {
		return top
	}
	s := 0.0
	for _, l := range logs {
		s += math.Exp(l - top)
	}
	return top + math.Log(s)
}

// Density returns Σ_j w_j Dir(θ | α_j).
func (m *Mixture) Density(theta []float64) float64 { return math.Exp(m.LogDensity(theta)) }

// Density3 is Density for three classes, in the form SimplexPanel takes.
func (m *Mixture) Density3(theta [3]float64) float64 { return m.Density(theta[:]) }

// SimplexCell is one triangle of a SimplexGrid, in barycentric coordinates
// θ = (θ1, θ2, θ3). With h = 1/N, the upward cell (I, J) has the vertices
// whose (θ2, θ3) are (Ih, Jh), ((I+1)h, Jh), (Ih, (J+1)h); the downward cell
// (I, J) has ((I+1)h, Jh), ((I+1)h, (J+1)h), (Ih, (J+1)h).
type SimplexCell struct {
	I, J     int
	Up       bool
	Vertices [3][3]float64
	Centroid [3]float64
}

// SimplexGrid divides the 3-class simplex into N² congruent triangles by
// cutting each edge into N equal parts: N(N+1)/2 upward and N(N−1)/2
// downward triangles.
type SimplexGrid struct {
	N     int
	Cells []SimplexCell
}

// NewSimplexGrid returns the grid with n divisions per edge (1 ≤ n ≤ 1000).
func NewSimplexGrid(n int) (*SimplexGrid, error) {
	if n < 1 || n > 1000 {
		return nil, fmt.Errorf("chart.NewSimplexGrid: %d divisions, want 1 to 1000", n)
	}
	g := &SimplexGrid{N: n, Cells: make([]SimplexCell, 0, n*n)}
	h := 1 / float64(n)
	bary := func(i, j int) [3]float64 {
		a, b := float64(float64(i)*h), float64(float64(j)*h)
		return [3]float64{1 - a - b, a, b}
	}
	add := func(i, j int, up bool, v [3][3]float64) {
		var c [3]float64
		for k := range 3 {
			c[k] = (v[0][k] + v[1][k] + v[2][k]) / 3
		}
		g.Cells = append(g.Cells, SimplexCell{I: i, J: j, Up: up, Vertices: v, Centroid: c})
	}
	for i := 0; i < n; i++ {
		for j := 0; i+j < n; j++ {
			add(i, j, true, [3][3]float64{bary(i, j), bary(i+1, j), bary(i, j+1)})
			if i+j < n-1 {
				add(i, j, false, [3][3]float64{bary(i+1, j), bary(i+1, j+1), bary(i, j+1)})
			}
		}
	}
	return g, nil
}

// CellArea returns the area of one cell in the (θ2, θ3) plane, 1/(2N²): the
// simplex there is the triangle of area 1/2.
func (g *SimplexGrid) CellArea() float64 { return 0.5 / float64(g.N*g.N) }

// Eval returns f at every cell's centroid, in cell order.
func (g *SimplexGrid) Eval(f func(theta [3]float64) float64) []float64 {
	v := make([]float64, len(g.Cells))
	for i, c := range g.Cells {
		v[i] = f(c.Centroid)
	}
	return v
}

// Integrate returns Σ_cells values[i] · CellArea, the centroid-rule
// integral over the simplex of the density sampled by Eval; a density
// integrates to about 1.
func (g *SimplexGrid) Integrate(values []float64) (float64, error) {
	if len(values) != len(g.Cells) {
		return 0, fmt.Errorf("chart.SimplexGrid.Integrate: %d values for %d cells", len(values), len(g.Cells))
	}
	s := 0.0
	for _, v := range values {
		s += v
	}
	return s * g.CellArea(), nil
}

// toPlane maps barycentric coordinates to the plane: class 1 at (0, 0),
// class 2 at (1, 0), class 3 at (1/2, √3/2).
func toPlane(t [3]float64) (x, y float64) {
	return t[1] + float64(0.5*t[2]), math.Sqrt(3) / 2 * t[2]
}

// simplexJS defines, for a grid of N divisions (the %[1]d), the cell
// geometry shared by renderTriangle and simplexTooltip: a data item is
// [I, J, up (1 or 0), value], see SimplexCell.
const simplexJS = `var h = 1 / %[1]d, r = Math.sqrt(3) / 2;
var corners = function (i, j, up) { return up ? [[i, j], [i + 1, j], [i, j + 1]] : [[i + 1, j], [i + 1, j + 1], [i, j + 1]]; };`

// renderTriangle draws one cell of a simplex heatmap as a filled polygon in
// the plane where class 1 is at (0, 0), class 2 at (1, 0), class 3 at
// (1/2, √3/2) (see toPlane).
const renderTriangle = `function (params, api) {
%s
var pts = corners(api.value(0), api.value(1), api.value(2) === 1).map(function (v) { return api.coord([(v[0] + v[1] / 2) * h, r * v[1] * h]); });
var c = api.visual('color');
return {type: 'polygon', shape: {points: pts}, style: {fill: c, stroke: c, lineWidth: 0.6}};
}`

// simplexTooltip shows a cell's centroid θ and value, or a corner's class.
const simplexTooltip = `function (p) {
%s
if (p.seriesType !== 'custom') { return p.name; }
var v = p.value, d = v[2] === 1 ? 1 / 3 : 2 / 3, a = (v[0] + d) * h, b = (v[1] + d) * h;
return 'θ = (' + (1 - a - b).toFixed(3) + ', ' + a.toFixed(3) + ', ' + b.toFixed(3) + ')<br/>' + p.seriesName + ': ' + Number(v[3]).toPrecision(4);
}`

// SimplexPanel is one density of a simplex figure.
type SimplexPanel struct {
	Title   string
	Density func(theta [3]float64) float64
}

// SimplexChart builds a row of densities on the 3-class simplex that share
// one colour scale, so that panels can be compared: the same colour is the
// same density in every panel. Start it with Simplexes, set options, then
// call Done.
type SimplexChart struct {
	classes [3]string
	panels  []SimplexPanel
	n       int
	log     bool
	title   string
}

// Simplexes starts a figure of the given densities on the simplex whose
// corners θ = e1, e2, e3 are the classes.
func Simplexes(classes [3]string, panels ...SimplexPanel) *SimplexChart {
	return &SimplexChart{classes: classes, panels: panels, n: 60}
}

// Resolution sets the number of grid divisions per edge (default 60):
// each density is sampled at the centroids of n² triangles.
func (s *SimplexChart) Resolution(n int) *SimplexChart { s.n = n; return s }

// Log colours by log₁₀ of the density, which shows a broad low density and
// sharp peaks on one scale. Densities below 10⁻⁶ of the largest are drawn
// at that floor.
func (s *SimplexChart) Log() *SimplexChart { s.log = true; return s }

// Title sets the figure's title (each panel has its own).
func (s *SimplexChart) Title(t string) *SimplexChart { s.title = t; return s }

// Done samples the densities and returns the chart, or an error for a bad
// resolution, a missing density or a non-finite value.
func (s *SimplexChart) Done() (*Chart, error) {
	if s == nil {
		return nil, fmt.Errorf("chart.Simplexes: nil builder")
	}
	if len(s.panels) == 0 {
		return nil, fmt.Errorf("chart.Simplexes %q: no panels", s.title)
	}
	g, err := NewSimplexGrid(s.n)
	if err != nil {
		return nil, fmt.Errorf("chart.Simplexes %q: %w", s.title, err)
	}
	values, hi, err := s.sample(g)
	if err != nil {
		return nil, err
	}
	lo, hi, label := s.scale(values, hi)
	const side, gap, top, left = 220, 34, 70, 30
	height := side * math.Sqrt(3) / 2
	geometry := fmt.Sprintf(simplexJS, g.N)
	var grids, xAxes, yAxes, series, titles []any
	var custom []int
	for k, p := range s.panels {
		gl := left + k*(side+gap)
		grids = append(grids, map[string]any{"left": gl, "top": top, "width": side, "height": height})
		xAxes = append(xAxes, map[string]any{"type": "value", "min": 0, "max": 1, "show": false, "gridIndex": k})
		yAxes = append(yAxes, map[string]any{"type": "value", "min": 0, "max": math.Sqrt(3) / 2, "show": false, "gridIndex": k})
		titles = append(titles, map[string]any{"text": p.Title, "left": gl, "top": top - 38,
			"textStyle": map[string]any{"fontSize": 12, "width": side + gap - 10, "overflow": "break"}})
		custom = append(custom, len(series))
		series = append(series, s.panelSeries(k, g, values[k], label, geometry)...)
	}
	if s.title != "" {
		titles = append([]any{map[string]any{"text": s.title, "left": 10, "top": 0}}, titles...)
	}
	opt := rawOption{
		"animation": false,
		"title":     titles,
		"tooltip":   map[string]any{"trigger": "item", "formatter": jsFunc(fmt.Sprintf(simplexTooltip, geometry))},
		"grid":      grids,
		"xAxis":     xAxes,
		"yAxis":     yAxes,
		"series":    series,
		"visualMap": map[string]any{"type": "continuous", "min": lo, "max": hi, "dimension": 3, "seriesIndex": custom,
			"calculable": true, "precision": 2, "right": 10, "top": "middle", "text": []string{label, ""},
			"inRange": map[string]any{"color": Ramp}},
	}
	width := left + len(s.panels)*(side+gap) + 110
	return newChart(s.title, width, top+int(height)+50, opt), nil
}

// sample returns each panel's density at the centroids of the cells of g
// and the largest of them, or an error for a missing density or a value
// that is negative, NaN or infinite.
func (s *SimplexChart) sample(g *SimplexGrid) ([][]float64, float64, error) {
	values := make([][]float64, len(s.panels))
	hi := math.Inf(-1)
	for k, p := range s.panels {
		if p.Density == nil {
			return nil, 0, fmt.Errorf("chart.Simplexes: panel %d (%q) has no density", k, p.Title)
		}
		values[k] = g.Eval(p.Density)
		for i, v := range values[k] {
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, 0, fmt.Errorf("chart.Simplexes: panel %q: density %v at θ = %v", p.Title, v, g.Cells[i].Centroid)
			}
			hi = max(hi, v)
		}
	}
	return values, hi, nil
}

// scale returns the range [lo, hi] of the colour scale of values, whose
// largest is hi, and its label: [0, hi] of the density, or with Log the
// range of log₁₀ of the density floored at 10⁻⁶·hi, values replaced by
// their logarithms; an empty range becomes [lo, lo + 1].
func (s *SimplexChart) scale(values [][]float64, hi float64) (float64, float64, string) {
	lo, label := 0.0, "density"
	if s.log {
		floor := max(hi*1e-6, math.SmallestNonzeroFloat64)
		lo, hi, label = math.Log10(floor), math.Log10(max(hi, floor)), "log₁₀ density"
		for _, vs := range values {
			for i, v := range vs {
				vs[i] = math.Log10(max(v, floor))
			}
		}
	}
	if lo == hi {
		hi = lo + 1
	}
	return lo, hi, label
}

// panelSeries returns the series of panel k: the heatmap of values over
// the cells of g, named label, and the corners labelled with the classes.
func (s *SimplexChart) panelSeries(k int, g *SimplexGrid, values []float64, label, geometry string) []any {
	data := make([]any, len(g.Cells))
	for i, c := range g.Cells {
		up := 0
		if c.Up {
			up = 1
		}
		data[i] = []float64{float64(c.I), float64(c.J), float64(up), values[i]}
	}
	return []any{
		map[string]any{"type": "custom", "name": label, "data": data, "progressive": 0,
			"xAxisIndex": k, "yAxisIndex": k, "renderItem": jsFunc(fmt.Sprintf(renderTriangle, geometry))},
		map[string]any{"type": "scatter", "name": "classes", "data": cornerLabels(s.classes), "symbolSize": 4,
			"color": "#333", "xAxisIndex": k, "yAxisIndex": k, "silent": true},
	}
}

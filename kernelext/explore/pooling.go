package explore

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Ranges and steps of the pooling explorer's sliders.
const (
	planeHalf  = 6.0  // representations range over [−6, 6]²
	planeStep  = 0.1  // step of the representation sliders
	weightMax  = 3.0  // edge weights range over [0, 3]
	weightStep = 0.05 // step of the weight sliders
)

// PoolingExplorer shows the three poolings on a hand-made graph: node i
// joined to neighbours 1 and 2 by edges of adjustable weight, each node
// with a representation z in the plane of the toy PostNet head
// (pool.ToyHead: class means at the corners of a triangle of radius 3).
// The committee Π is personalised PageRank (teleport 0.1, 10 steps) over
// the random-walk normalised weighted adjacency with self loops. The
// picture shows the plane and node i's log-linear, linear and behavioural
// pools on the simplex; the tables give their measures and whether GPN's
// axioms A2 and A3 hold. Create it with Pooling.
//
// A2 ("a neighbour with lower EU makes the node less epistemically
// uncertain") applies when a joined neighbour alone has a lower EU than
// node i alone, and holds for a pooling when node i's pooled EU is below
// its EU alone. A3 ("conflicting neighbours raise AU") applies when both
// neighbours are joined and, alone, lean to different classes; it holds
// for a pooling when node i's pooled AU is above its pooled AU with the
// neighbours in agreement (neighbour 2 given neighbour 1's representation,
// same weights). "Below" and "above" mean by at least 1e-4, the tables'
// last digit.
type PoolingExplorer struct {
	intro
	cfg poolingConfig

	shadeOnce sync.Once
	shade     *image.RGBA // the plane's shading, drawn once
}

type poolingConfig struct {
	Z [3][2]float64 `json:"z"` // starting representations of node i, neighbour 1, neighbour 2
	W [2]float64    `json:"w"` // starting weights of the edges i–1 and i–2
}

func (c poolingConfig) validate() error {
	for j, z := range c.Z {
		for k, v := range z {
			if !(math.Abs(v) <= planeHalf) {
				return fmt.Errorf("pooling: node %d coordinate %d = %v, want −%v to %v", j, k, v, planeHalf, planeHalf)
			}
		}
	}
	for j, w := range c.W {
		if !(w >= 0 && w <= weightMax) {
			return fmt.Errorf("pooling: weight of edge i–%d = %v, want 0 to %v", j+1, w, weightMax)
		}
	}
	return nil
}

// poolingIntro is what the pooling explorer says of itself.
var poolingIntro = intro{
	kind:  "pooling",
	title: "Three ways to pool a neighbourhood",
	about: "Node i and its neighbours 1 and 2 each have a representation z in the plane of a toy PostNet head " +
		"(class means at the corners of a triangle; shading: where the head is confident). " +
		"The committee weights Π come from personalised PageRank over the weighted edges. " +
		"GPN adds the neighbours' pseudo-counts (log-linear), LOP-GPN mixes their Dirichlets (linear), " +
		"CUQ-GNN averages their representations before the head (behavioural). " +
		"Start: two neighbours in conflict. Move neighbour 2 onto class 0 to remove the conflict, " +
		"or set a weight to 0 to cut an edge, and watch A2 and A3 hold or break.",
}

// Pooling returns the pooling explorer, starting at the conflict of the
// teaching notebook: node i at the centre of the triangle (ambiguous),
// neighbour 1 at the mean of class 0, neighbour 2 at the mean of class 1,
// both edges of weight 1.
func Pooling() *PoolingExplorer {
	m := pool.Triangle(3)
	e := &PoolingExplorer{intro: poolingIntro, cfg: poolingConfig{W: [2]float64{1, 1}}}
	e.cfg.Z[1] = [2]float64{snap(m[0][0], planeStep), snap(m[0][1], planeStep)}
	e.cfg.Z[2] = [2]float64{snap(m[1][0], planeStep), snap(m[1][1], planeStep)}
	return e
}

// snap rounds v to a multiple of step.
func snap(v, step float64) float64 { return math.Round(v/step) * step }

// Node sets the starting representation of node j (0: node i, 1 and 2:
// its neighbours), rounded to the sliders' step of 0.1; both coordinates
// lie in [−6, 6].
func (p *PoolingExplorer) Node(j int, x, y float64) *PoolingExplorer {
	if j < 0 || j > 2 {
		p.err = fmt.Errorf("pooling: node %d, want 0 (node i), 1 or 2", j)
		return p
	}
	p.cfg.Z[j] = [2]float64{snap(x, planeStep), snap(y, planeStep)}
	p.err = p.cfg.validate()
	return p
}

// Weights sets the starting weights of the edges i–1 and i–2 (0 to 3,
// rounded to 0.05; 0 removes the edge).
func (p *PoolingExplorer) Weights(w1, w2 float64) *PoolingExplorer {
	p.cfg.W = [2]float64{snap(w1, weightStep), snap(w2, weightStep)}
	p.err = p.cfg.validate()
	return p
}

// poolingKeys name the poolings in cell keys.
var poolingKeys = map[pool.Pooling]string{pool.Alone: "alone", pool.LogLinear: "loglinear", pool.Linear: "linear", pool.Behavioural: "behavioural"}

// Controls returns the representation sliders of node i and its
// neighbours, then the two edge weights.
func (p *PoolingExplorer) Controls() []Control {
	names := [3]string{"node i", "neighbour 1", "neighbour 2"}
	var cs []Control
	for j, z := range p.cfg.Z {
		for k, axis := range [2]string{"x", "y"} {
			cs = append(cs, Control{Key: fmt.Sprintf("z%d%s", j, axis), Label: names[j] + ": z." + axis,
				Min: -planeHalf, Max: planeHalf, Step: planeStep, Value: z[k]})
		}
	}
	for j, w := range p.cfg.W {
		cs = append(cs, Control{Key: fmt.Sprintf("w%d", j+1), Label: fmt.Sprintf("weight of edge i–%d", j+1),
			Min: 0, Max: weightMax, Step: weightStep, Value: w})
	}
	return cs
}

// poolStar pools the star i–1, i–2 with representations z and edge
// weights w.
func poolStar(z [3][2]float64, w [2]float64) (*pool.Pooled, error) {
	adj, err := tensor.FromCOO(3, 3, []int{0, 1, 0, 2}, []int{1, 0, 2, 0}, []float64{w[0], w[0], w[1], w[1]})
	if err != nil {
		return nil, err
	}
	x, err := tensor.FromSlice(3, 2, []float64{z[0][0], z[0][1], z[1][0], z[1][1], z[2][0], z[2][1]})
	if err != nil {
		return nil, err
	}
	g, err := graph.New("star", adj, x, []int{-1, -1, -1}, 3, nil)
	if err != nil {
		return nil, err
	}
	return pool.On(g).Done()
}

// nodeMeasures returns the measures of node j under pooling.
func nodeMeasures(p *pool.Pooled, j int, pl pool.Pooling) (uq.Measures, *pool.Opinion, error) {
	o, err := p.Opinion(j, pl)
	if err != nil {
		return uq.Measures{}, nil, err
	}
	ms, err := o.Measures()
	return ms, o, err
}

// Tolerances of the comparisons behind the tables: two class
// probabilities within tieTol tie (symmetric settings give equal values up
// to rounding), and a change of AU or EU smaller than changeTol, the
// tables' last digit, counts as none.
const (
	tieTol    = 1e-9
	changeTol = 1e-4
)

// lean returns the class a predicted distribution p favours, −1 when the
// two largest entries tie within tieTol.
func lean(p []float64) int {
	best, second := 0, -1
	for k := 1; k < len(p); k++ {
		switch {
		case p[k] > p[best]:
			best, second = k, best
		case second < 0 || p[k] > p[second]:
			second = k
		}
	}
	if p[best]-p[second] <= tieTol {
		return -1
	}
	return best
}

// below reports whether a is below b by more than changeTol.
func below(a, b float64) bool { return a < b-changeTol }

// View pools node i's neighbourhood for the slider values.
func (p *PoolingExplorer) View(values []float64) (*View, error) {
	fail := func(err error) (*View, error) { return nil, fmt.Errorf("explore: pooling: %w", err) }
	if err := checkValues(p.Controls(), values); err != nil {
		return fail(err)
	}
	st, err := newPoolingState(values)
	if err != nil {
		return fail(err)
	}
	img := newPicture(4*220+3*10, 220+2*lineHeight)
	committee, err := st.pooled.Committee(0)
	if err != nil {
		return fail(err)
	}
	p.shadeOnce.Do(func() { p.shade = planeShade(st.pooled.Head(), 220) })
	planePanel(img, 0, 0, 220, p.shade, st.pooled.Head(), st.z, st.w, committee)
	nodeRows := make([]Row, 0, len(pool.Poolings))
	for k, pl := range pool.Poolings {
		row, err := st.nodeRow(img, k, pl)
		if err != nil {
			return fail(err)
		}
		nodeRows = append(nodeRows, row)
	}
	return &View{Picture: img, Tables: []Table{
		{
			Caption: "Node i under each pooling (nats); \"agree\": neighbour 2 moved onto neighbour 1",
			Columns: []string{"", "TU", "AU", "EU", "EU_PC", "AU, neighbours agree", "EU, neighbours agree", "A2", "A3"},
			Rows:    nodeRows,
		},
		{
			Caption: "The committee of node i: weights Π_ij and each node alone",
			Columns: []string{"", "Π_ij", "AU alone", "EU alone", "leans to class"},
			Rows:    st.committeeRows(),
		},
	}}, nil
}

// poolingState is node i's neighbourhood for one setting of the sliders:
// the three nodes' positions z and the edge weights w, the star pooled as
// it is and with neighbour 2 moved onto neighbour 1 (agreed), the
// committee weights Π_ij, each node's measures alone and the class it
// leans to (−1: a tie), and whether axioms A2 and A3 apply.
type poolingState struct {
	z              [3][2]float64
	w              [2]float64
	pooled, agreed *pool.Pooled
	pi             []float64
	alone          [3]uq.Measures
	leans          [3]int
	a2, a3         bool
}

// newPoolingState pools the star of the slider values: three positions,
// then the two edge weights.
func newPoolingState(values []float64) (*poolingState, error) {
	st := &poolingState{w: [2]float64{values[6], values[7]}}
	for j := range st.z {
		st.z[j] = [2]float64{values[2*j], values[2*j+1]}
	}
	var err error
	if st.pooled, err = poolStar(st.z, st.w); err != nil {
		return nil, err
	}
	agreeZ := st.z
	agreeZ[2] = st.z[1]
	if st.agreed, err = poolStar(agreeZ, st.w); err != nil {
		return nil, err
	}
	if st.pi, err = st.pooled.Weights(0); err != nil {
		return nil, err
	}
	for j := range st.alone {
		ms, o, err := nodeMeasures(st.pooled, j, pool.Alone)
		if err != nil {
			return nil, err
		}
		st.alone[j], st.leans[j] = ms, lean(o.Mean())
	}
	pi, alone, leans := st.pi, st.alone, st.leans
	st.a2 = (pi[1] > 0 && below(alone[1].EU[0], alone[0].EU[0])) || (pi[2] > 0 && below(alone[2].EU[0], alone[0].EU[0]))
	st.a3 = pi[1] > 0 && pi[2] > 0 && leans[1] >= 0 && leans[2] >= 0 && leans[1] != leans[2]
	return st, nil
}

// verdict says whether an axiom that may apply holds.
func verdict(applies, holds bool) string {
	switch {
	case !applies:
		return "n/a"
	case holds:
		return "holds"
	}
	return "breaks"
}

// nodeRow returns node i's row of the first table under pooling pl, the
// k-th of pool.Poolings, and draws that pooling's density into panel k of
// img (none for the node alone).
func (st *poolingState) nodeRow(img *image.RGBA, k int, pl pool.Pooling) (Row, error) {
	ms, o, err := nodeMeasures(st.pooled, 0, pl)
	if err != nil {
		return Row{}, err
	}
	key := poolingKeys[pl]
	cells := []Cell{
		num(key+".TU", "%.4f", ms.TU[0]),
		num(key+".AU", "%.4f", ms.AU[0]),
		num(key+".EU", "%.4f", ms.EU[0]),
		num(key+".EU_PC", "%.2f", ms.EUPC[0]),
	}
	if pl == pool.Alone {
		cells = append(cells, text(key+".AUagree", "—"), text(key+".EUagree", "—"), text(key+".A2", "—"), text(key+".A3", "—"))
		return Row{Label: pl.String(), Cells: cells}, nil
	}
	ag, _, err := nodeMeasures(st.agreed, 0, pl)
	if err != nil {
		return Row{}, err
	}
	cells = append(cells,
		num(key+".AUagree", "%.4f", ag.AU[0]),
		num(key+".EUagree", "%.4f", ag.EU[0]),
		text(key+".A2", verdict(st.a2, below(ms.EU[0], st.alone[0].EU[0]))),
		text(key+".A3", verdict(st.a3, below(ag.AU[0], ms.AU[0]))))
	title := []string{"", "log-linear (GPN)", "linear (LOP-GPN)", "behavioural (CUQ)"}[k]
	densityPanel(img, k*230, 0, 220, title, o.LogDensity, o.Mean())
	return Row{Label: pl.String(), Cells: cells}, nil
}

// committeeRows returns the second table: each node's weight, its
// measures alone and the class it leans to.
func (st *poolingState) committeeRows() []Row {
	names := [3]string{"node i", "neighbour 1", "neighbour 2"}
	rows := make([]Row, 3)
	for j := range rows {
		class := text(fmt.Sprintf("n%d.class", j), "none (tie)")
		if st.leans[j] >= 0 {
			class = num(fmt.Sprintf("n%d.class", j), "%.0f", float64(st.leans[j]))
		}
		rows[j] = Row{Label: names[j], Cells: []Cell{
			num(fmt.Sprintf("pi%d", j), "%.4f", st.pi[j]),
			num(fmt.Sprintf("n%d.AU", j), "%.4f", st.alone[j].AU[0]),
			num(fmt.Sprintf("n%d.EU", j), "%.4f", st.alone[j].EU[0]),
			class,
		}}
	}
	return rows
}

// planeShade draws the toy head's plane [−6, 6]² in a square of side s:
// each point in the colour of the class the head favours there, darker
// where its evidence is larger.
func planeShade(h *pool.GaussianHead, s int) *image.RGBA {
	img := newPicture(s, s)
	peak := h.Budget() / float64(h.Classes()) / (2 * math.Pi)
	zp := make([]float64, 2)
	for py := range s {
		for px := range s {
			zp[0] = (float64(px)+0.5)/float64(s)*2*planeHalf - planeHalf
			zp[1] = planeHalf - (float64(py)+0.5)/float64(s)*2*planeHalf
			b, _ := h.Evidence(zp) // zp has the head's dimension and is finite
			c := 0
			for k := range b {
				if b[k] > b[c] {
					c = k
				}
			}
			blend(img, px, py, classCols[c], 0.45*math.Min(1, b[c]/peak))
		}
	}
	return img
}

// planePanel draws the plane in the square of side s at (x, y): the
// shading made by planeShade; the class means; the edges i–1 and i–2
// (darker for larger weights); the nodes; and node i's committee
// representation (the cross).
func planePanel(img *image.RGBA, x, y, s int, shade *image.RGBA, h *pool.GaussianHead, z [3][2]float64, w [2]float64, committee []float64) {
	y0 := y + lineHeight
	toPx := func(v []float64) (float64, float64) {
		return float64(x) + (v[0]+planeHalf)/(2*planeHalf)*float64(s), float64(y0) + (planeHalf-v[1])/(2*planeHalf)*float64(s)
	}
	draw.Draw(img, image.Rect(x, y0, x+s, y0+s), shade, image.Point{}, draw.Src)
	for _, e := range [][2]image.Point{{{x, y0}, {x + s - 1, y0}}, {{x, y0 + s - 1}, {x + s - 1, y0 + s - 1}}, {{x, y0}, {x, y0 + s - 1}}, {{x + s - 1, y0}, {x + s - 1, y0 + s - 1}}} {
		line(img, float64(e[0].X), float64(e[0].Y), float64(e[1].X), float64(e[1].Y), grey, 1)
	}
	for c := range h.Classes() {
		mx, my := toPx(h.Mean(c))
		disc(img, mx, my, 3, classCols[c], 1)
		label(img, int(mx)+5, int(my)-6, fmt.Sprint(c), classCols[c])
	}
	ix, iy := toPx(z[0][:])
	for j := 1; j <= 2; j++ {
		if w[j-1] > 0 {
			nx, ny := toPx(z[j][:])
			line(img, ix, iy, nx, ny, ink, 0.25+0.75*math.Min(1, w[j-1]/weightMax*1.5))
		}
	}
	for j := 1; j <= 2; j++ {
		nx, ny := toPx(z[j][:])
		disc(img, nx, ny, 5, ink, 1)
		label(img, int(nx)+7, int(ny)-2, fmt.Sprint(j), ink)
	}
	ring(img, ix, iy, 5, ink)
	label(img, int(ix)+7, int(iy)-2, "i", ink)
	cx, cy := toPx(committee)
	red := color.RGBA{230, 40, 40, 255}
	line(img, cx-4, cy-4, cx+4, cy+4, red, 1)
	line(img, cx-4, cy+4, cx+4, cy-4, red, 1)
	t := "representations z"
	label(img, x+(s-labelWidth(t))/2, y, t, ink)
	note := "x: committee of i"
	label(img, x+(s-labelWidth(note))/2, y0+s+1, note, grey)
}

package explore

import (
	"fmt"
	"image"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Limits of the degree explorer's settings.
const (
	minSide     = 4  // smallest grid side on the slider
	maxSideCap  = 40 // largest grid side allowed (1600 nodes)
	degreeXMax  = 128.0
	euAxisMax   = 0.3 // EU of Dir(1, 1, 1), the flattest with α ≥ 1: ln 3 − (ψ(4) − ψ(2)) ≈ 0.265
	auAxisMax   = 1.1 // AU ≤ ln 3 ≈ 1.099
	familyCount = 2
)

// norms are the choices of the normalisation of Π.
var norms = []struct {
	label string
	f     func(*tensor.CSR) *tensor.CSR
}{
	{"sym: D^-1/2 (A+I) D^-1/2 (GPN, CUQ-PPR)", graph.SymNorm},
	{"rw: D^-1 (A+I) (LOP-GPN)", graph.RWNorm},
}

// DegreeExplorer compares bounded and unbounded degree: a square lattice
// (datasets.Lattice, every degree ≤ 4) and a Barabási–Albert graph
// (datasets.BarabasiAlbert, hub degrees growing like √N) with the same
// number N = s² of nodes, grown by a slider, three classes. Every node j
// gets a representation near its class mean, z_j = μ_(y_j) + σ·ε_j
// (pool.GaussianHead.Representations with the toy head), and node i
// predicts with GPN's log-linear pool, Dir(1 + Σ_j Π_ij β(z_j)), or with
// CUQ-PPR's behavioural pool, Dir(α(Σ_j Π_ij z_j)), Π personalised
// PageRank (teleport 0.1, 10 steps). For the nodes whose neighbours carry
// two or more labels (graph.Graph.Conflicting) the picture plots EU and AU
// against the degree, and the table gives their means. Create it with
// Degree.
type DegreeExplorer struct {
	intro
	cfg degreeConfig
}

type degreeConfig struct {
	Side    int     `json:"side"`     // starting grid side s
	MaxSide int     `json:"max_side"` // largest s on the slider
	M       int     `json:"m"`        // Barabási–Albert edges per new node
	Sigma   float64 `json:"sigma"`    // spread of the representations
	Seed    uint64  `json:"seed"`
	Norm    int     `json:"norm"` // index into norms
}

func (c degreeConfig) validate() error {
	if c.MaxSide < minSide+1 || c.MaxSide > maxSideCap {
		return fmt.Errorf("degree: largest side %d, want %d to %d", c.MaxSide, minSide+1, maxSideCap)
	}
	if c.Side < minSide || c.Side > c.MaxSide {
		return fmt.Errorf("degree: side %d, want %d to %d", c.Side, minSide, c.MaxSide)
	}
	if c.M < 1 || c.M > 5 {
		return fmt.Errorf("degree: %d Barabási–Albert edges per new node, want 1 to 5", c.M)
	}
	if !(c.Sigma >= 0 && c.Sigma <= 3) {
		return fmt.Errorf("degree: σ = %v, want 0 to 3", c.Sigma)
	}
	if c.Norm < 0 || c.Norm >= len(norms) {
		return fmt.Errorf("degree: normalisation %d, want 0 (sym) or 1 (rw)", c.Norm)
	}
	return nil
}

// degreeIntro is what the degree explorer says of itself.
var degreeIntro = intro{
	kind:  "degree",
	title: "Bounded versus unbounded degree",
	about: "A lattice keeps every degree ≤ 4 however large it grows; a Barabási–Albert graph grows hubs. " +
		"Each mark is a node whose neighbours carry two or more labels. " +
		"GPN reads every such conflict as aleatoric: its EU stays low and its AU high at every degree, " +
		"and with the symmetric normalisation its hubs collect more pseudo-counts, so their EU falls further. " +
		"CUQ's committee reads a conflict among a few neighbours as epistemic (a higher EU at degree 2 to 4) " +
		"and resolves it as the neighbourhood grows: at the hubs both its EU and its AU fall. " +
		"A lattice never leaves the few-neighbours regime; growing the Barabási–Albert graph adds marks on the right.",
}

// Degree returns the degree explorer: side 12 (144 nodes) on a slider from
// 4 to 30, Barabási–Albert with m = 2, σ = 0.5, seed 1, Π over the
// symmetric normalisation.
func Degree() *DegreeExplorer {
	return &DegreeExplorer{intro: degreeIntro, cfg: degreeConfig{Side: 12, MaxSide: 30, M: 2, Sigma: 0.5, Seed: 1}}
}

func (d *DegreeExplorer) set(f func(*degreeConfig)) *DegreeExplorer {
	f(&d.cfg)
	d.err = d.cfg.validate()
	return d
}

// Side sets the starting grid side s (N = s² nodes).
func (d *DegreeExplorer) Side(s int) *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.Side = s })
}

// MaxSide sets the largest side on the slider (at most 40, 1600 nodes).
func (d *DegreeExplorer) MaxSide(s int) *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.MaxSide = s })
}

// EdgesPerNode sets m, the edges each new Barabási–Albert node brings.
func (d *DegreeExplorer) EdgesPerNode(m int) *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.M = m })
}

// Spread sets σ, the spread of the representations around their class
// means (0 to 3).
func (d *DegreeExplorer) Spread(sigma float64) *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.Sigma = sigma })
}

// Seed sets the seed of the graphs and the representations.
func (d *DegreeExplorer) Seed(seed uint64) *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.Seed = seed })
}

// RandomWalk makes Π start over the random-walk normalisation instead of
// the symmetric one.
func (d *DegreeExplorer) RandomWalk() *DegreeExplorer {
	return d.set(func(c *degreeConfig) { c.Norm = 1 })
}

// Controls returns the grid side and the normalisation of Π.
func (d *DegreeExplorer) Controls() []Control {
	labels := make([]string, len(norms))
	for k, n := range norms {
		labels[k] = n.label
	}
	return []Control{
		{Key: "side", Label: "grid side s (N = s² nodes)", Min: minSide, Max: float64(d.cfg.MaxSide), Step: 1, Value: float64(d.cfg.Side)},
		{Key: "norm", Label: "normalisation of Π", Max: float64(len(norms) - 1), Step: 1, Value: float64(d.cfg.Norm), Choices: labels},
	}
}

// family holds the measures of one graph's conflicting nodes.
type family struct {
	key, name      string
	nodes, maxDeg  int
	degree         []float64 // of the conflicting nodes
	gpnAU, gpnEU   []float64
	cuqAU, cuqEU   []float64
	meanDeg        float64
	mGPNAU, mGPNEU float64
	mCUQAU, mCUQEU float64
	shape          func(*image.RGBA, float64, float64) // draws the family's mark
}

// measureFamily pools g's nodes and collects its conflicting nodes.
func measureFamily(g *graph.Graph, cfg degreeConfig, norm func(*tensor.CSR) *tensor.CSR) (*family, error) {
	head := pool.ToyHead()
	z, err := head.Representations(g.Labels, cfg.Sigma, cfg.Seed)
	if err != nil {
		return nil, err
	}
	p, err := pool.On(g).Head(head).Representations(z).Norm(norm).Done()
	if err != nil {
		return nil, err
	}
	var ms [2]uq.Measures
	for k, pl := range []pool.Pooling{pool.LogLinear, pool.Behavioural} {
		if ms[k], err = p.Measures(pl); err != nil {
			return nil, err
		}
	}
	conf, err := g.Conflicting(nil)
	if err != nil {
		return nil, err
	}
	f := &family{nodes: g.N}
	for i, d := range g.Degrees() {
		f.maxDeg = max(f.maxDeg, d)
		if !conf[i] {
			continue
		}
		f.degree = append(f.degree, float64(d))
		f.gpnAU, f.gpnEU = append(f.gpnAU, ms[0].AU[i]), append(f.gpnEU, ms[0].EU[i])
		f.cuqAU, f.cuqEU = append(f.cuqAU, ms[1].AU[i]), append(f.cuqEU, ms[1].EU[i])
	}
	f.meanDeg, f.mGPNAU, f.mGPNEU = mean(f.degree), mean(f.gpnAU), mean(f.gpnEU)
	f.mCUQAU, f.mCUQEU = mean(f.cuqAU), mean(f.cuqEU)
	return f, nil
}

// mean returns the mean of v, NaN if v is empty.
func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// numOrDash is a numeric cell, or a dash when v is NaN (no conflicting
// node).
func numOrDash(key, verb string, v float64) Cell {
	if math.IsNaN(v) {
		return text(key, "—")
	}
	return num(key, verb, v)
}

// View grows both graphs to s² nodes and measures their conflicting
// nodes.
func (d *DegreeExplorer) View(values []float64) (*View, error) {
	fail := func(err error) (*View, error) { return nil, fmt.Errorf("explore: degree: %w", err) }
	if err := checkValues(d.Controls(), values); err != nil {
		return fail(err)
	}
	if values[0] != math.Trunc(values[0]) {
		return fail(fmt.Errorf("side = %v, want a whole number", values[0]))
	}
	s, norm := int(values[0]), norms[int(values[1])].f
	lat, err := datasets.Lattice(s, s).Classes(3).Features(1).Seed(d.cfg.Seed).Done()
	if err != nil {
		return fail(err)
	}
	ba, err := datasets.BarabasiAlbert(s*s, d.cfg.M).Classes(3).Features(1).Seed(d.cfg.Seed).Done()
	if err != nil {
		return fail(err)
	}
	var fams [familyCount]*family
	for k, g := range []*graph.Graph{lat, ba} {
		if fams[k], err = measureFamily(g, d.cfg, norm); err != nil {
			return fail(err)
		}
	}
	fams[0].key, fams[0].name, fams[0].shape = "lattice", "lattice", square
	fams[1].key, fams[1].name, fams[1].shape = "ba", "Barabási–Albert", dot

	rows := make([]Row, familyCount)
	for k, f := range fams {
		rows[k] = Row{Label: f.name, Cells: []Cell{
			num(f.key+".nodes", "%.0f", float64(f.nodes)),
			num(f.key+".maxdeg", "%.0f", float64(f.maxDeg)),
			num(f.key+".conflicts", "%.0f", float64(len(f.degree))),
			numOrDash(f.key+".degree", "%.2f", f.meanDeg),
			numOrDash(f.key+".gpn.AU", "%.4f", f.mGPNAU),
			numOrDash(f.key+".gpn.EU", "%.4f", f.mGPNEU),
			numOrDash(f.key+".cuq.AU", "%.4f", f.mCUQAU),
			numOrDash(f.key+".cuq.EU", "%.4f", f.mCUQEU),
		}}
	}
	return &View{Picture: degreePicture(fams, s, values[1] == 1), Tables: []Table{{
		Caption: "Means over the conflicting nodes (neighbours with two or more labels), in nats",
		Columns: []string{"", "nodes", "max degree", "conflicting nodes", "their mean degree", "GPN AU", "GPN EU", "CUQ AU", "CUQ EU"},
		Rows:    rows,
	}}}, nil
}

// Layout of the degree picture: two columns of panels (GPN, CUQ), two rows
// (EU, AU).
const (
	plotW, plotH = 270, 120
	marginL      = 44
	gapX, gapY   = 30, 34
)

func degreePicture(fams [familyCount]*family, side int, rw bool) *image.RGBA {
	w := marginL + 2*plotW + gapX + 10
	h := 3*lineHeight + 4 + 2*plotH + gapY + 2*lineHeight + 12
	img := newPicture(w, h)
	type panel struct {
		title string
		ymax  float64
		ys    func(*family) []float64
	}
	panels := [2][2]panel{
		{{"GPN (log-linear): EU", euAxisMax, func(f *family) []float64 { return f.gpnEU }},
			{"CUQ-PPR (behavioural): EU", euAxisMax, func(f *family) []float64 { return f.cuqEU }}},
		{{"GPN (log-linear): AU", auAxisMax, func(f *family) []float64 { return f.gpnAU }},
			{"CUQ-PPR (behavioural): AU", auAxisMax, func(f *family) []float64 { return f.cuqAU }}},
	}
	for r, row := range panels {
		for c, p := range row {
			x0 := marginL + c*(plotW+gapX)
			y0 := 3*lineHeight + 4 + r*(plotH+gapY)
			scatterPanel(img, image.Rect(x0, y0, x0+plotW, y0+plotH), p.title, p.ymax, fams, p.ys)
		}
	}
	norm := "sym"
	if rw {
		norm = "rw"
	}
	head := fmt.Sprintf("N = %d nodes, Pi over %s; x: degree (log scale), one mark per conflicting node", side*side, norm)
	label(img, marginL, 0, head, ink)
	ly := h - lineHeight - 2
	square(img, float64(marginL+4), float64(ly+6))
	label(img, marginL+12, ly, "lattice", latticeC)
	dot(img, float64(marginL+90), float64(ly+6))
	label(img, marginL+98, ly, "Barabasi-Albert", baC)
	return img
}

// square and dot mark a lattice and a Barabási–Albert node.
func square(img *image.RGBA, x, y float64) {
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			blend(img, int(x)+dx, int(y)+dy, latticeC, 0.5)
		}
	}
}

func dot(img *image.RGBA, x, y float64) { disc(img, x, y, 2.6, baC, 0.5) }

// scatterPanel plots ys(f) against the degrees of every family in r: x on
// a log₂ scale from 1 to degreeXMax, y from 0 to ymax.
func scatterPanel(img *image.RGBA, r image.Rectangle, title string, ymax float64, fams [familyCount]*family, ys func(*family) []float64) {
	fillRect(img, r, white)
	for k := 0; k <= 7; k++ { // vertical grid at degrees 1, 2, 4, …, 128
		x := float64(r.Min.X) + float64(k)/7*float64(r.Dx()-1)
		line(img, x, float64(r.Min.Y), x, float64(r.Max.Y-1), faint, 1)
		l := fmt.Sprint(1 << k)
		label(img, int(x)-labelWidth(l)/2, r.Max.Y+2, l, grey)
	}
	for k := 0; k <= 2; k++ {
		y := float64(r.Max.Y-1) - float64(k)/2*float64(r.Dy()-1)
		line(img, float64(r.Min.X), y, float64(r.Max.X-1), y, faint, 1)
		l := fmt.Sprintf("%.2f", ymax*float64(k)/2)
		label(img, r.Min.X-labelWidth(l)-4, int(y)-6, l, grey)
	}
	line(img, float64(r.Min.X), float64(r.Max.Y-1), float64(r.Max.X-1), float64(r.Max.Y-1), grey, 1)
	line(img, float64(r.Min.X), float64(r.Min.Y), float64(r.Min.X), float64(r.Max.Y-1), grey, 1)
	label(img, r.Min.X, r.Min.Y-lineHeight-2, title, ink)
	for k := len(fams) - 1; k >= 0; k-- { // the lattice's marks on top
		f := fams[k]
		for i, d := range f.degree {
			x := float64(r.Min.X) + math.Min(1, math.Log2(d)/math.Log2(degreeXMax))*float64(r.Dx()-1)
			y := float64(r.Max.Y-1) - math.Min(1, ys(f)[i]/ymax)*float64(r.Dy()-1)
			f.shape(img, x, y)
		}
	}
}

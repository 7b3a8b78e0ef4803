package energy

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// GEBMConfig holds GEBM's hyperparameters. DefaultGEBM gives those of the
// GEBM code's wrapper: γ = 1, T = 1, α = 0.5, K = 10.
type GEBMConfig struct {
	// Gamma weighs the Gaussian correction of the logits (γ = 0: none).
	Gamma float64
	// Temperature is the T of the energies.
	Temperature float64
	// Alpha and Steps are the weight α and the number K of the
	// label-propagation steps x ← αx + (1−α) D̃⁻¹(A+I) x that diffuse the
	// evidence and the energy.
	Alpha float64
	Steps int
}

// DefaultGEBM returns GEBM's defaults: γ = 1, T = 1, α = 0.5, K = 10.
func DefaultGEBM() GEBMConfig { return GEBMConfig{Gamma: 1, Temperature: 1, Alpha: 0.5, Steps: 10} }

func (c GEBMConfig) check() error {
	switch {
	case !(c.Gamma >= 0) || math.IsInf(c.Gamma, 1):
		return fmt.Errorf("energy: GEBM correction weight γ = %v, need a finite γ ≥ 0", c.Gamma)
	case !(c.Temperature > 0) || math.IsInf(c.Temperature, 1):
		return fmt.Errorf("energy: GEBM temperature %v, need a finite T > 0", c.Temperature)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return fmt.Errorf("energy: GEBM diffusion weight α = %v not in [0, 1]", c.Alpha)
	case c.Steps < 0:
		return fmt.Errorf("energy: GEBM with %d diffusion steps, need K ≥ 0", c.Steps)
	}
	return nil
}

// GEBM is the graph energy-based model of Fuchsgruber et al. (NeurIPS
// 2024), fitted post hoc to a trained classifier. With z the logits and h
// the embeddings (the input of the classifier's output layer) of the
// classifier applied to the graph WITHOUT its edges, the evidence of class
// c is the logit corrected by a class-conditional Gaussian,
//
//	ẽ_ic = z_ic − γ · [ (d²_c(h_i) − m⁻_c) / (m⁺_c − m⁻_c) · (l⁺_c − l⁻_c) + l⁻_c ],
//
// with d²_c(h) = Σ_j (h_j − μ_cj)² / σ²_cj the squared Mahalanobis distance
// to the diagonal Gaussian of class c, fitted to the embeddings of the
// training nodes of class c (biased variances; when the smallest is at most
// 1e-6, 1e-8, 1e-7, … are added to all until it is larger), and [m⁻_c,
// m⁺_c], [l⁻_c, l⁺_c] the central 95% ranges of d²_c and of the logit z_c
// over all nodes of the classifier applied WITH the edges when fitted. The
// three energies, with P̃ = D̃⁻¹(A+I) and the diffusion
// Φ(x) = x⁽ᴷ⁾, x⁽ᵏ⁺¹⁾ = αx⁽ᵏ⁾ + (1−α)P̃x⁽ᵏ⁾, are
//
//	independent  E_ind(i)   = −T log Σ_c exp(ẽ_ic / T)
//	local        E_local(i) = −T log Σ_c exp(Φ(ẽ)_ic / T)
//	group        E_group(i) = Φ(E_ind)_i
//
// and GEBM's uncertainty is their sum E_ind + E_local + E_group. Only the
// classes with training nodes have evidence.
type GEBM struct {
	cfg     GEBMConfig
	classes []int       // the logit columns with training nodes
	mean    [][]float64 // per evidence class, the Gaussian's mean
	prec    [][]float64 // and its precisions 1/σ²
	dim     int         // embedding width
	width   int         // number of logit columns
	distLo  []float64   // m⁻_c
	distHi  []float64   // m⁺_c
	logitLo []float64   // l⁻_c
	logitHi []float64   // l⁺_c
}

// FitGEBM fits GEBM to the N×classes logits and the N×dim embeddings of a
// trained classifier applied to its graph with the edges, and to the
// training nodes train with their labels (labels[k] the class of node
// train[k]). It returns an error for a bad configuration, malformed or
// non-finite inputs, labels outside [0, classes), no training node, or a
// degenerate range (all nodes at the same distance or logit).
func FitGEBM(cfg GEBMConfig, logits []float64, classes int, emb []float64, dim int, train, labels []int) (*GEBM, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	n, err := checkMatrix("GEBM logits", logits, classes)
	if err != nil {
		return nil, err
	}
	ne, err := checkMatrix("GEBM embeddings", emb, dim)
	if err != nil {
		return nil, err
	}
	if ne != n {
		return nil, fmt.Errorf("energy: GEBM: %d rows of logits but %d of embeddings", n, ne)
	}
	if len(train) != len(labels) {
		return nil, fmt.Errorf("energy: GEBM: %d training nodes but %d labels", len(train), len(labels))
	}
	byClass := make([][]int, classes)
	for k, i := range train {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("energy: GEBM: training node %d outside the %d nodes", i, n)
		}
		if labels[k] < 0 || labels[k] >= classes {
			return nil, fmt.Errorf("energy: GEBM: training node %d has label %d, not in [0, %d)", i, labels[k], classes)
		}
		byClass[labels[k]] = append(byClass[labels[k]], i)
	}
	m := &GEBM{cfg: cfg, dim: dim, width: classes}
	for c, nodes := range byClass {
		if len(nodes) == 0 {
			continue
		}
		mean, prec := diagonalGaussian(emb, dim, nodes)
		m.classes = append(m.classes, c)
		m.mean = append(m.mean, mean)
		m.prec = append(m.prec, prec)
	}
	if len(m.classes) == 0 {
		return nil, fmt.Errorf("energy: GEBM needs training nodes")
	}
	dist := m.distances(emb)
	cs := len(m.classes)
	col := make([]float64, n)
	for k, c := range m.classes {
		for i := range col {
			col[i] = dist[i*cs+k]
		}
		lo, hi := centralRange(col)
		for i := range col {
			col[i] = logits[i*classes+c]
		}
		llo, lhi := centralRange(col)
		if !(hi > lo) || !(lhi > llo) {
			return nil, fmt.Errorf("energy: GEBM: class %d has a degenerate range of distances [%v, %v] or logits [%v, %v]", c, lo, hi, llo, lhi)
		}
		m.distLo, m.distHi = append(m.distLo, lo), append(m.distHi, hi)
		m.logitLo, m.logitHi = append(m.logitLo, llo), append(m.logitHi, lhi)
	}
	return m, nil
}

// Classes returns the logit columns that have evidence: the classes with
// training nodes, in increasing order.
func (m *GEBM) Classes() []int { return slices.Clone(m.classes) }

// diagonalGaussian returns the mean and the precisions 1/σ² of the
// diagonal Gaussian fitted to the rows nodes of the N×dim emb: biased
// variances, raised together by 1e-8, 1e-7, … until the smallest exceeds
// 1e-6.
func diagonalGaussian(emb []float64, dim int, nodes []int) (mean, prec []float64) {
	mean = make([]float64, dim)
	for _, i := range nodes {
		for j, v := range emb[i*dim : (i+1)*dim] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(len(nodes))
	}
	v := make([]float64, dim)
	for _, i := range nodes {
		for j, x := range emb[i*dim : (i+1)*dim] {
			d := x - mean[j]
			v[j] += float64(d * d)
		}
	}
	smallest := math.Inf(1)
	for j := range v {
		v[j] /= float64(len(nodes))
		smallest = min(smallest, v[j])
	}
	add, eps := 0.0, 1e-8
	for !(smallest+add > 1e-6) {
		add += eps
		eps *= 10
	}
	prec = make([]float64, dim)
	for j := range v {
		prec[j] = 1 / (v[j] + add)
	}
	return mean, prec
}

// distances returns the N×len(classes) squared Mahalanobis distances of the
// rows of emb to the classes' Gaussians.
func (m *GEBM) distances(emb []float64) []float64 {
	n, cs := len(emb)/m.dim, len(m.classes)
	out := make([]float64, n*cs)
	for i := range n {
		h := emb[i*m.dim : (i+1)*m.dim]
		for k := range m.classes {
			s := 0.0
			for j, x := range h {
				d := x - m.mean[k][j]
				s += float64(d * d * m.prec[k][j])
			}
			out[i*cs+k] = s
		}
	}
	return out
}

// centralRange returns the smallest and the largest of the values of x
// that remain when the ⌊0.025·n⌋ smallest and the n − ⌊0.975·n⌋ largest
// are dropped (the GEBM code's 95% interval); all of x when that leaves
// none. x is reordered.
func centralRange(x []float64) (lo, hi float64) {
	slices.Sort(x)
	a := (1 - 0.95) / 2
	first, end := int(a*float64(len(x))), int((1-a)*float64(len(x)))
	if end <= first {
		first, end = 0, len(x)
	}
	return x[first], x[end-1]
}

// Evidence returns the N×len(Classes()) corrected evidence ẽ of the
// N×classes logits and N×dim embeddings of the classifier applied without
// the graph's edges (see GEBM).
func (m *GEBM) Evidence(logits, emb []float64) ([]float64, error) {
	n, err := checkMatrix("GEBM logits", logits, m.width)
	if err != nil {
		return nil, err
	}
	ne, err := checkMatrix("GEBM embeddings", emb, m.dim)
	if err != nil {
		return nil, err
	}
	if ne != n {
		return nil, fmt.Errorf("energy: GEBM: %d rows of logits but %d of embeddings", n, ne)
	}
	dist := m.distances(emb)
	cs := len(m.classes)
	out := make([]float64, n*cs)
	for i := range n {
		for k, c := range m.classes {
			scaled := float64((dist[i*cs+k]-m.distLo[k])/(m.distHi[k]-m.distLo[k])*(m.logitHi[k]-m.logitLo[k])) + m.logitLo[k]
			out[i*cs+k] = logits[i*m.width+c] - float64(m.cfg.Gamma*scaled)
		}
	}
	return out, nil
}

// GEBMScores are GEBM's energies per node (see GEBM); Total is the
// uncertainty.
type GEBMScores struct {
	Independent, Local, Group, Total []float64
}

// Scores returns GEBM's energies on the graph with adjacency adj from the
// N×classes logits and N×dim embeddings of the classifier applied to the
// graph without its edges.
func (m *GEBM) Scores(adj *tensor.CSR, logits, emb []float64) (GEBMScores, error) {
	if err := checkAdjacency(adj); err != nil {
		return GEBMScores{}, err
	}
	ev, err := m.Evidence(logits, emb)
	if err != nil {
		return GEBMScores{}, err
	}
	cs := len(m.classes)
	if n := len(ev) / cs; n != adj.Rows {
		return GEBMScores{}, fmt.Errorf("energy: GEBM: %d nodes of logits, adjacency of %d", n, adj.Rows)
	}
	p := graph.RWNorm(adj)
	var s GEBMScores
	t := m.cfg.Temperature
	if s.Independent, err = Free(ev, cs, t); err != nil {
		return GEBMScores{}, err
	}
	diffused, err := Diffuse(p, ev, cs, m.cfg.Alpha, m.cfg.Steps)
	if err != nil {
		return GEBMScores{}, err
	}
	if s.Local, err = Free(diffused, cs, t); err != nil {
		return GEBMScores{}, err
	}
	if s.Group, err = Diffuse(p, s.Independent, 1, m.cfg.Alpha, m.cfg.Steps); err != nil {
		return GEBMScores{}, err
	}
	s.Total = make([]float64, len(s.Independent))
	for i := range s.Total {
		s.Total[i] = s.Independent[i] + s.Local[i] + s.Group[i]
	}
	return s, nil
}

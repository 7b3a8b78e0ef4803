package graph

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// LOC is the leave-out-classes setting: the last k classes are hidden from
// training and their test nodes are the out-of-distribution set.
type LOC struct {
	// Graph is the training graph: the same nodes, edges and features
	// (shared with the original, not copied), NumClasses C−k, and label −1
	// on every node of a left-out class.
	Graph *Graph
	// Labels are the original labels in [-1, C), for evaluation.
	Labels []int
	// Split is the in-distribution split: nodes of left-out classes are
	// removed from Train, Val and Test and moved to Unused.
	Split Split
	// IDTest is Split.Test; OODTest holds the original test nodes of the
	// left-out classes.
	IDTest, OODTest []int
	// LeftOut lists the left-out classes C−k, …, C−1.
	LeftOut []int
}

// LeaveOutClasses builds the leave-out-classes setting of the reference
// ("poisoning"): the split s is drawn on the full graph first, then the last
// k classes are left out. Their nodes stay in the graph, unlabelled during
// training; the ID class labels are unchanged (classes 0, …, C−k−1).
func LeaveOutClasses(g *Graph, s Split, k int) (*LOC, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClasses: %v", err)
	}
	if err := s.Validate(g.N); err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClasses: %v", err)
	}
	c := g.NumClasses
	if k < 1 || k >= c {
		return nil, fmt.Errorf("graph.LeaveOutClasses: cannot leave out %d of %d classes (want 1 ≤ k < %d)", k, c, c)
	}
	idC := c - k
	labels := slices.Clone(g.Labels)
	for i, y := range labels {
		if y >= idC {
			labels[i] = -1
		}
	}
	out := *g
	out.Labels = labels
	out.NumClasses = idC
	if g.ClassNames != nil {
		out.ClassNames = slices.Clone(g.ClassNames[:idC])
	}
	isID := func(i int) bool { return g.Labels[i] < idC }
	isOOD := func(i int) bool { return !isID(i) }
	id := Split{
		Train: filter(s.Train, isID),
		Val:   filter(s.Val, isID),
		Test:  filter(s.Test, isID),
	}
	id.Unused = complement(g.N, id.Train, id.Val, id.Test)
	leftOut := make([]int, k)
	for j := range leftOut {
		leftOut[j] = idC + j
	}
	return &LOC{
		Graph:   &out,
		Labels:  slices.Clone(g.Labels),
		Split:   id,
		IDTest:  id.Test,
		OODTest: filter(s.Test, isOOD),
		LeftOut: leftOut,
	}, nil
}

// filter returns the elements of idx for which keep holds.
func filter(idx []int, keep func(int) bool) []int {
	out := make([]int, 0, len(idx))
	for _, i := range idx {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// Noise is the kind of feature perturbation of the feature-OOD settings.
type Noise int

const (
	// Gaussian replaces a feature row by independent N(0, σ²) entries, not
	// normalised; the paper's σ is 1.
	Gaussian Noise = iota
	// Bernoulli replaces a feature row by independent Bernoulli(p) entries
	// divided by (row sum + 1e-10), so that it sums to 1 like an
	// L1-normalised bag of words; the paper's p is 1/2.
	Bernoulli
)

var noiseNames = [...]string{Gaussian: "gaussian", Bernoulli: "bernoulli"}

// String returns "gaussian" or "bernoulli".
func (n Noise) String() string { return enum.String(n, noiseNames[:]) }

// bernoulliEps is the reference's normaliser guard for Bernoulli rows.
const bernoulliEps = 1e-10

// Perturbed is a perturbation setting ("evasion"): the model trained on the
// clean graph is evaluated on Graph. PerturbFeatures and PerturbFeaturesWith
// replace feature rows; PerturbStructure changes edges.
type Perturbed struct {
	// Graph is the perturbed graph. A feature perturbation gives it new
	// feature rows and shares the adjacency, labels and class names with
	// the original; a structure perturbation gives it a new adjacency and
	// shares the rest.
	Graph *Graph
	// Split is the split the nodes were chosen from (unchanged).
	Split Split
	// Nodes are the perturbed nodes, sorted: those whose features were
	// replaced, or those incident to an inserted or deleted edge.
	Nodes []int
	// IDTest holds the unperturbed test nodes, OODTest the perturbed ones.
	IDTest, OODTest []int
	// Noise and Severity describe a feature perturbation (Structure zero).
	Noise    Noise
	Severity float64
	// Budget is the fraction of nodes (features) or of edges (structure)
	// that was asked to be perturbed.
	Budget float64
	// Structure is the kind of a structure perturbation, zero for a
	// feature perturbation.
	Structure Structure
	// Added and Removed are the undirected edges a structure perturbation
	// inserted and deleted, each as {i, j} with i < j, in draw order.
	Added, Removed [][2]int
}

// FeatureShift describes a feature perturbation (see PerturbFeaturesWith).
type FeatureShift struct {
	Noise Noise
	// Budget is the fraction of each node group whose features are
	// replaced, in [0, 1]; the paper uses 0.1.
	Budget float64
	// Severity is the noise's strength: the standard deviation σ > 0 of
	// Gaussian entries, or the probability p ∈ (0, 1] of a non-zero
	// Bernoulli entry. Noise.PaperSeverity gives the paper's.
	Severity float64
	// Seed seeds the choice of the nodes and the noise values.
	Seed uint64
}

// PaperSeverity returns the severity of the paper's setting of n: σ = 1 for
// Gaussian, p = 1/2 for Bernoulli, and NaN for an unknown noise.
func (n Noise) PaperSeverity() float64 {
	switch n {
	case Gaussian:
		return 1
	case Bernoulli:
		return 0.5
	}
	return math.NaN()
}

// Default severity sweeps, in increasing order, each holding the paper's
// severity.
//
// GaussianSeverities are the standard deviations σ, spaced about evenly in
// log σ from 0.01, the order of the non-zero entries of the L1-normalised
// bags of words (CoraML's rows hold about 50 words, entries ≈ 0.02), to 2,
// twice the paper's N(0, 1).
//
// BernoulliSeverities are the probabilities p of a non-zero entry, from
// 0.01, the density of the citation graphs' bag-of-words rows (CoraML 1.8%,
// CiteSeer 0.8%; Amazon's are 35% dense), to 0.95; they hold the GPN code's
// three Bernoulli variants, p = 0.05, 0.5 (the paper's) and 0.95.
var (
	GaussianSeverities  = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}
	BernoulliSeverities = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.95}
)

// PerturbFeatures replaces the features of a fraction budget of the nodes by
// the paper's noise: PerturbFeaturesWith with Severity noise.PaperSeverity(),
// that is N(0, 1) entries or Bernoulli(1/2) rows normalised to sum 1. The
// reference uses budget 0.1 and seed 42.
func PerturbFeatures(g *Graph, s Split, noise Noise, budget float64, seed uint64) (*Perturbed, error) {
	p, err := perturbFeatures(g, s, FeatureShift{Noise: noise, Budget: budget, Severity: noise.PaperSeverity(), Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("graph.PerturbFeatures: %v", err)
	}
	return p, nil
}

// PerturbFeaturesWith replaces the features of a fraction f.Budget of the
// nodes by noise of severity f.Severity, as the reference does with budget
// 0.1 at the paper's severity: from each group in the order s.Val, s.Test,
// s.Unused, s.Train it chooses int(budget·|group|) nodes without
// replacement, training nodes included, and replaces each chosen row by
//
//   - Gaussian: independent entries σ·z, z ~ N(0, 1), so N(0, σ²), not
//     normalised;
//   - Bernoulli: independent entries b ~ Bernoulli(p), the row divided by
//     (Σ_j b_j + 1e-10) so that it sums to 1 like an L1-normalised bag of
//     words (a row without ones stays 0).
//
// Randomness: the nodes are chosen from the PCG stream seeded with (seed, a
// hash of s), so different splits perturb different nodes; the noise rows are
// drawn from a stream seeded by seed alone, and the r-th chosen node (in the
// group order above, then draw order) gets the r-th noise row. As in the
// reference, the noise values are thus the same across splits while the
// perturbed nodes differ. A Gaussian row at σ is σ times the row at σ = 1.
// A Bernoulli row at p = 1/2 takes each entry from one bit of a 64-bit draw
// (the paper's setting); at any other p each entry compares a uniform
// [0, 1) draw with p. The numbers are not numpy's or torch's.
//
// Feature storage: a dense feature matrix stays dense; a CSR one stays CSR,
// with every non-zero noise entry stored (a Gaussian row is full, a Bernoulli
// row holds about p·F entries). Only the chosen rows differ from the original.
func PerturbFeaturesWith(g *Graph, s Split, f FeatureShift) (*Perturbed, error) {
	p, err := perturbFeatures(g, s, f)
	if err != nil {
		return nil, fmt.Errorf("graph.PerturbFeaturesWith: %v", err)
	}
	return p, nil
}

// perturbFeatures is PerturbFeaturesWith without the function's name in its
// errors.
func perturbFeatures(g *Graph, s Split, f FeatureShift) (*Perturbed, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(g.N); err != nil {
		return nil, err
	}
	switch sev := f.Severity; f.Noise {
	case Gaussian:
		if !(sev > 0) || math.IsInf(sev, 0) {
			return nil, fmt.Errorf("Gaussian severity σ = %v, want a finite σ > 0", sev)
		}
	case Bernoulli:
		if !(sev > 0 && sev <= 1) {
			return nil, fmt.Errorf("Bernoulli severity p = %v outside (0, 1]", sev)
		}
	default:
		return nil, fmt.Errorf("unknown noise %v", f.Noise)
	}
	budget := f.Budget
	if !(budget >= 0 && budget <= 1) {
		return nil, fmt.Errorf("budget %v outside [0, 1]", budget)
	}
	pick := rand.New(rand.NewPCG(f.Seed, splitHash(s)))
	var chosen []int
	for _, group := range [][]int{s.Val, s.Test, s.Unused, s.Train} {
		m := int(budget * float64(len(group)))
		nodes := slices.Clone(group)
		for p := 0; p < m; p++ {
			q := p + pick.IntN(len(nodes)-p)
			nodes[p], nodes[q] = nodes[q], nodes[p]
		}
		chosen = append(chosen, nodes[:m]...)
	}

	width := g.NumFeatures()
	rows := make(map[int][]float64, len(chosen))
	draw := rand.New(rand.NewPCG(f.Seed, noiseStream))
	for _, i := range chosen {
		rows[i] = noiseRow(draw, f.Noise, f.Severity, width)
	}

	out := *g
	switch x := g.Features.(type) {
	case *tensor.Dense:
		d := x.Clone()
		for i, row := range rows {
			copy(d.Row(i), row)
		}
		out.Features = d
	case *tensor.CSR:
		out.Features = replaceRows(x, rows)
	}

	perturbed := slices.Clone(chosen)
	slices.Sort(perturbed)
	p := &Perturbed{Graph: &out, Split: s, Nodes: perturbed,
		Noise: f.Noise, Severity: f.Severity, Budget: budget}
	p.IDTest, p.OODTest = splitTest(s, perturbed, g.N)
	return p, nil
}

// splitTest returns the test nodes of s outside and inside the set nodes.
func splitTest(s Split, nodes []int, n int) (id, ood []int) {
	in := Mask(n, nodes)
	return filter(s.Test, func(i int) bool { return !in[i] }), filter(s.Test, func(i int) bool { return in[i] })
}

// noiseStream is the second PCG seed word of the noise draws ("noise").
const noiseStream = 0x6e6f697365

// noiseRow draws one replacement feature row of f entries at the given
// severity.
func noiseRow(rng *rand.Rand, noise Noise, severity float64, f int) []float64 {
	row := make([]float64, f)
	if noise == Gaussian {
		for j := range row {
			row[j] = severity * rng.NormFloat64()
		}
		return row
	}
	sum := 0.0
	var bits uint64
	for j := range row {
		one := false
		if severity == 0.5 {
			if j%64 == 0 {
				bits = rng.Uint64()
			}
			one = bits&1 == 1
			bits >>= 1
		} else {
			one = rng.Float64() < severity
		}
		if one {
			row[j] = 1
			sum++
		}
	}
	scaleRow(row, 1/(sum+bernoulliEps))
	return row
}

// replaceRows returns x with the given rows replaced, stored sparsely.
func replaceRows(x *tensor.CSR, rows map[int][]float64) *tensor.CSR {
	ptr := make([]int, x.Rows+1)
	ind := make([]int, 0, x.NNZ())
	val := make([]float64, 0, x.NNZ())
	for i := 0; i < x.Rows; i++ {
		if row, ok := rows[i]; ok {
			for j, v := range row {
				if v != 0 {
					ind = append(ind, j)
					val = append(val, v)
				}
			}
		} else {
			ind = append(ind, x.Ind[x.Ptr[i]:x.Ptr[i+1]]...)
			val = append(val, x.Val[x.Ptr[i]:x.Ptr[i+1]]...)
		}
		ptr[i+1] = len(ind)
	}
	return &tensor.CSR{Rows: x.Rows, Cols: x.Cols, Ptr: ptr, Ind: ind, Val: val}
}

// splitHash is a 64-bit FNV-1a hash of the split's train, val and test sets.
func splitHash(s Split) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, set := range [][]int{s.Train, s.Val, s.Test} {
		for _, i := range set {
			for b := range buf {
				buf[b] = byte(uint64(i) >> (8 * b))
			}
			h.Write(buf[:])
		}
		h.Write([]byte{0xff})
	}
	return h.Sum64()
}

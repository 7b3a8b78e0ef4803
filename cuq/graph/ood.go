package graph

import (
	"fmt"
	"hash/fnv"
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
	// Gaussian replaces a feature row by independent N(0, 1) entries (not
	// normalised).
	Gaussian Noise = iota
	// Bernoulli replaces a feature row by independent Bernoulli(0.5) entries
	// divided by (row sum + 1e-10), so that it sums to 1 like an
	// L1-normalised bag of words.
	Bernoulli
)

var noiseNames = [...]string{Gaussian: "gaussian", Bernoulli: "bernoulli"}

// String returns "gaussian" or "bernoulli".
func (n Noise) String() string { return enum.String(n, noiseNames[:]) }

// bernoulliEps is the reference's normaliser guard for Bernoulli rows.
const bernoulliEps = 1e-10

// Perturbed is a feature-perturbation setting ("evasion"): the model trained
// on the clean graph is evaluated on Graph.
type Perturbed struct {
	// Graph has the perturbed feature rows; its adjacency, labels and class
	// names are shared with the original graph.
	Graph *Graph
	// Split is the split the nodes were chosen from (unchanged).
	Split Split
	// Nodes are the perturbed nodes, sorted.
	Nodes []int
	// IDTest holds the unperturbed test nodes, OODTest the perturbed ones.
	IDTest, OODTest []int
	Noise           Noise
	Budget          float64
}

// PerturbFeatures replaces the features of a fraction budget of the nodes by
// noise, as the reference does with budget 0.1: from each group in the order
// s.Val, s.Test, s.Unused, s.Train it chooses int(budget·|group|) nodes
// without replacement, training nodes included.
//
// Randomness: the nodes are chosen from the PCG stream seeded with (seed, a
// hash of s), so different splits perturb different nodes; the noise rows are
// drawn from a stream seeded by seed alone, and the r-th chosen node (in the
// group order above, then draw order) gets the r-th noise row. As in the
// reference, the noise values are thus the same across splits while the
// perturbed nodes differ. The numbers are not numpy's or torch's.
//
// Feature storage: a dense feature matrix stays dense; a CSR one stays CSR,
// with every non-zero noise entry stored (a Gaussian row is full, a Bernoulli
// row about half full). Only the chosen rows differ from the original.
func PerturbFeatures(g *Graph, s Split, noise Noise, budget float64, seed uint64) (*Perturbed, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.PerturbFeatures: %v", err)
	}
	if err := s.Validate(g.N); err != nil {
		return nil, fmt.Errorf("graph.PerturbFeatures: %v", err)
	}
	if noise != Gaussian && noise != Bernoulli {
		return nil, fmt.Errorf("graph.PerturbFeatures: unknown noise %v", noise)
	}
	if !(budget >= 0 && budget <= 1) {
		return nil, fmt.Errorf("graph.PerturbFeatures: budget %v outside [0, 1]", budget)
	}
	pick := rand.New(rand.NewPCG(seed, splitHash(s)))
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

	f := g.NumFeatures()
	rows := make(map[int][]float64, len(chosen))
	draw := rand.New(rand.NewPCG(seed, noiseStream))
	for _, i := range chosen {
		rows[i] = noiseRow(draw, noise, f)
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
	isPerturbed := Mask(g.N, perturbed)
	return &Perturbed{
		Graph:   &out,
		Split:   s,
		Nodes:   perturbed,
		IDTest:  filter(s.Test, func(i int) bool { return !isPerturbed[i] }),
		OODTest: filter(s.Test, func(i int) bool { return isPerturbed[i] }),
		Noise:   noise,
		Budget:  budget,
	}, nil
}

// noiseStream is the second PCG seed word of the noise draws ("noise").
const noiseStream = 0x6e6f697365

// noiseRow draws one replacement feature row.
func noiseRow(rng *rand.Rand, noise Noise, f int) []float64 {
	row := make([]float64, f)
	if noise == Gaussian {
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		return row
	}
	sum := 0.0
	var bits uint64
	for j := range row {
		if j%64 == 0 {
			bits = rng.Uint64()
		}
		if bits&1 == 1 {
			row[j] = 1
			sum++
		}
		bits >>= 1
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

package graph

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// LOC is the leave-out-classes setting: k classes are hidden from
// training and their test nodes are the out-of-distribution set.
type LOC struct {
	// Graph is the training graph: the same nodes, edges and features
	// (shared with the original, not copied), NumClasses C−k, the ID
	// classes numbered 0, …, C−k−1 and label −1 on every node of a
	// left-out class. It is named after the original with the classes
	// left out, numbered as the original numbers them (from 0, as its
	// labels): "CiteSeer, leave-out classes 4–5", "…, leave-out class 3",
	// "…, leave-out classes 1, 3, 6".
	Graph *Graph
	// Labels are the labels for evaluation, in [-1, C): the ID classes
	// numbered as in Graph, the left-out classes C−k, …, C−1 in the order
	// of LeftOut. For LeaveOutClasses they are the original labels.
	Labels []int
	// Split is the in-distribution split: nodes of left-out classes are
	// removed from Train, Val and Test and moved to Unused.
	Split Split
	// IDTest is Split.Test; OODTest holds the original test nodes of the
	// left-out classes.
	IDTest, OODTest []int
	// LeftOut lists the left-out classes in the original numbering,
	// ascending.
	LeftOut []int
}

// LeaveOutClasses builds the leave-out-classes setting of the reference
// ("poisoning"): the split s is drawn on the full graph first, then the last
// k classes are left out. Their nodes stay in the graph, unlabelled during
// training; the ID class labels are unchanged (classes 0, …, C−k−1). The
// GPN code's configurations choose the classes this way
// (ood_leave_out_last_classes).
func LeaveOutClasses(g *Graph, s Split, k int) (*LOC, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClasses: %v", err)
	}
	c := g.NumClasses
	if k < 1 || k >= c {
		return nil, fmt.Errorf("graph.LeaveOutClasses: cannot leave out %d of %d classes (want 1 ≤ k < %d)", k, c, c)
	}
	classes := make([]int, k)
	for j := range classes {
		classes[j] = c - k + j
	}
	l, err := leaveOut(g, s, classes)
	if err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClasses: %v", err)
	}
	return l, nil
}

// LeaveOutClassList leaves out the given classes, as the GPN code does with
// an explicit ood_left_out_classes list: the labels are renumbered so that
// the ID classes, in their original order, become 0, …, C−k−1 and the
// left-out classes, in theirs, C−k, …, C−1 (LOC.Labels); class names follow.
// Otherwise it is LeaveOutClasses. An empty list, all classes, a class
// outside [0, C) or a repeated class is an error.
func LeaveOutClassList(g *Graph, s Split, classes []int) (*LOC, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClassList: %v", err)
	}
	l, err := leaveOut(g, s, classes)
	if err != nil {
		return nil, fmt.Errorf("graph.LeaveOutClassList: %v", err)
	}
	return l, nil
}

// locStream is the second PCG seed word of the random choice of left-out
// classes ("loc").
const locStream = 0x6c6f63

// LeaveOutRandomClasses leaves out k classes chosen at random, the GPN
// code's choice when ood_leave_out_last_classes is false: the classes
// 0, …, C−1 are shuffled (Fisher–Yates on the PCG stream seeded with
// (seed, "loc")) and the last k of the shuffled order are left out. The
// labels are then renumbered as by LeaveOutClassList; the GPN code numbers
// the ID classes in the shuffled order instead, a permutation of the class
// indices that changes no metric.
func LeaveOutRandomClasses(g *Graph, s Split, k int, seed uint64) (*LOC, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.LeaveOutRandomClasses: %v", err)
	}
	c := g.NumClasses
	if k < 1 || k >= c {
		return nil, fmt.Errorf("graph.LeaveOutRandomClasses: cannot leave out %d of %d classes (want 1 ≤ k < %d)", k, c, c)
	}
	order := make([]int, c)
	for j := range order {
		order[j] = j
	}
	rng := rand.New(rand.NewPCG(seed, locStream))
	for j := c - 1; j > 0; j-- {
		q := rng.IntN(j + 1)
		order[j], order[q] = order[q], order[j]
	}
	l, err := leaveOut(g, s, order[c-k:])
	if err != nil {
		return nil, fmt.Errorf("graph.LeaveOutRandomClasses: %v", err)
	}
	return l, nil
}

// leaveOut builds the LOC leaving out classes from the valid graph g.
func leaveOut(g *Graph, s Split, classes []int) (*LOC, error) {
	if err := s.Validate(g.N); err != nil {
		return nil, err
	}
	c := g.NumClasses
	out := Mask(c, classes)
	if err := checkLeftOut(classes, c); err != nil {
		return nil, err
	}
	idC := c - len(classes)
	leftOut := slices.Sorted(slices.Values(classes))
	newClass := idFirst(out)
	labels := make([]int, g.N)
	train := make([]int, g.N)
	for i, y := range g.Labels {
		labels[i], train[i] = -1, -1
		if y >= 0 {
			labels[i] = newClass[y]
			if !out[y] {
				train[i] = newClass[y]
			}
		}
	}
	tg := *g
	tg.Name = derivedName(g, "leave-out "+classList(leftOut))
	tg.Labels = train
	tg.NumClasses = idC
	if g.ClassNames != nil {
		names := make([]string, c)
		for cl, name := range g.ClassNames {
			names[newClass[cl]] = name
		}
		tg.ClassNames = names[:idC]
	}
	isID := func(i int) bool { return g.Labels[i] < 0 || !out[g.Labels[i]] }
	isOOD := func(i int) bool { return !isID(i) }
	id := Split{
		Train: filter(s.Train, isID),
		Val:   filter(s.Val, isID),
		Test:  filter(s.Test, isID),
	}
	id.Unused = complement(g.N, id.Train, id.Val, id.Test)
	return &LOC{
		Graph:   &tg,
		Labels:  labels,
		Split:   id,
		IDTest:  id.Test,
		OODTest: filter(s.Test, isOOD),
		LeftOut: leftOut,
	}, nil
}

// checkLeftOut checks that the classes to leave out are distinct classes
// in [0, c), at least one and fewer than c.
func checkLeftOut(classes []int, c int) error {
	k := 0
	for j, cl := range classes {
		if cl < 0 || cl >= c {
			return fmt.Errorf("class %d outside [0, %d)", cl, c)
		}
		if slices.Contains(classes[:j], cl) {
			return fmt.Errorf("class %d left out twice", cl)
		}
		k++
	}
	if k < 1 || k >= c {
		return fmt.Errorf("cannot leave out %d of %d classes (want 1 ≤ k < %d)", k, c, c)
	}
	return nil
}

// idFirst renumbers the classes: the ID classes (out false) in order,
// then the left-out ones in order.
func idFirst(out []bool) []int {
	newClass := make([]int, len(out))
	next := 0
	for _, set := range [2]bool{false, true} {
		for cl := range out {
			if out[cl] == set {
				newClass[cl] = next
				next++
			}
		}
	}
	return newClass
}

// derivedName returns the name of a graph derived from g: g's name, a comma
// and what was done to it ("CoraML, dice"), or what alone for a graph
// without a name.
func derivedName(g *Graph, what string) string {
	if g.Name == "" {
		return what
	}
	return g.Name + ", " + what
}

// settingName returns a lower_snake name (an enum's String) as words:
// "random_edges" is "random edges".
func settingName(s fmt.Stringer) string { return strings.ReplaceAll(s.String(), "_", " ") }

// classList names ascending classes as the graph numbers them, from 0:
// "class 3", a run "classes 4–5", others "classes 1, 3, 6".
func classList(classes []int) string {
	if len(classes) == 1 {
		return fmt.Sprintf("class %d", classes[0])
	}
	first, last := classes[0], classes[len(classes)-1]
	if last-first == len(classes)-1 {
		return fmt.Sprintf("classes %d–%d", first, last)
	}
	s := make([]string, len(classes))
	for k, c := range classes {
		s[k] = strconv.Itoa(c)
	}
	return "classes " + strings.Join(s, ", ")
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

// Noise is the kind of feature perturbation of the feature-OOD settings:
// the perturbation types of the GPN code (its ood_perturbation_type), with
// the severity s of FeatureShift as described at each.
type Noise int

const (
	// Gaussian replaces a feature row by independent N(0, σ²) entries, not
	// normalised; the paper's σ is 1 (GPN code: "normal").
	Gaussian Noise = iota
	// Bernoulli replaces a feature row by independent Bernoulli(p) entries
	// divided by (row sum + 1e-10), so that it sums to 1 like an
	// L1-normalised bag of words; the paper's p is 1/2 (GPN code:
	// "bernoulli_0.5", "bernoulli_0.05", "bernoulli_0.95").
	Bernoulli
	// Uniform replaces a row by independent entries s·u, u ~ U[0, 1), not
	// normalised (GPN code: "uniform").
	Uniform
	// Dense replaces a row by s·u/(Σ_j u_j + 1e-10), u_j ~ U[0, 1): dense
	// noise on the scale of an L1-normalised row (GPN code: "dense").
	Dense
	// BernoulliMostCommon sets m ∈ {5, 10, 20} (uniform) words drawn
	// without replacement from the 100 most common words to 1, the row
	// divided by (m + 1e-10) and scaled by s (GPN code:
	// "bernoulli_most_common"). A word's count is the number of nodes
	// whose feature in its column is non-zero; ties keep the column order.
	BernoulliMostCommon
	// BernoulliLeastCommon is BernoulliMostCommon with the words drawn from
	// the least common ones as the GPN code takes them: the 99 words at
	// places L−100, …, L−2 of the list sorted by decreasing count (L words;
	// the least common word itself is left out), all but the last when
	// L ≤ 100 (GPN code: "bernoulli_least_common").
	BernoulliLeastCommon
	// NotNormalized replaces a row by s·1[x_ij ≠ 0]: the node's own words,
	// binary instead of normalised (GPN code: "not_normalized").
	NotNormalized
	// Scaled multiplies the node's own row by s > 1 (GPN code: "scaled").
	Scaled
	// Reference keeps the node's row (s must be 1): the nodes are marked
	// OOD but unchanged, a control whose detection AUROC is ½ for any
	// model (GPN code: "reference").
	Reference
	numNoises
)

// AllNoises lists the feature perturbations in the order of their values.
var AllNoises = []Noise{Gaussian, Bernoulli, Uniform, Dense, BernoulliMostCommon, BernoulliLeastCommon, NotNormalized, Scaled, Reference}

var noiseNames = [numNoises]string{
	Gaussian: "gaussian", Bernoulli: "bernoulli", Uniform: "uniform", Dense: "dense",
	BernoulliMostCommon: "bernoulli_most_common", BernoulliLeastCommon: "bernoulli_least_common",
	NotNormalized: "not_normalized", Scaled: "scaled", Reference: "reference",
}

// String returns the noise's lower_snake name: "gaussian", "bernoulli",
// "uniform", "dense", "bernoulli_most_common", "bernoulli_least_common",
// "not_normalized", "scaled" or "reference".
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
	// Gaussian entries, the probability p ∈ (0, 1] of a non-zero
	// Bernoulli entry, and for the other kinds the GPN code's noise scale
	// s > 0 that multiplies the row (s > 1 for Scaled, s = 1 for
	// Reference). Noise.PaperSeverity gives the paper's.
	Severity float64
	// Seed seeds the choice of the nodes and the noise values.
	Seed uint64
}

// PaperSeverity returns the severity of the paper's setting of n: σ = 1 for
// Gaussian, p = 1/2 for Bernoulli, the scale ScaledSeverity for Scaled, the
// GPN code's noise scale 1 for the other kinds, and NaN for an unknown
// noise.
func (n Noise) PaperSeverity() float64 {
	switch n {
	case Gaussian:
		return 1
	case Bernoulli:
		return 0.5
	case Scaled:
		return ScaledSeverity
	case Uniform, Dense, BernoulliMostCommon, BernoulliLeastCommon, NotNormalized, Reference:
		return 1
	}
	return math.NaN()
}

// ScaledSeverity is the factor of the Scaled perturbation's named settings.
// The GPN code requires a noise scale above 1 for it and its configurations
// name none; 10 is cuqgnn's choice.
const ScaledSeverity = 10

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
// The perturbed graph is named after g and the noise: "CoraML, gaussian
// noise".
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
	if err := f.check(); err != nil {
		return nil, err
	}
	budget := f.Budget
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

	rows, err := drawRows(g, f, chosen)
	if err != nil {
		return nil, err
	}
	out := withRows(g, rows)
	out.Name = derivedName(g, settingName(f.Noise)+" noise")

	perturbed := slices.Clone(chosen)
	slices.Sort(perturbed)
	p := &Perturbed{Graph: out, Split: s, Nodes: perturbed,
		Noise: f.Noise, Severity: f.Severity, Budget: budget}
	p.IDTest, p.OODTest = splitTest(s, perturbed, g.N)
	return p, nil
}

// check validates the severity and budget of f for its noise.
func (f FeatureShift) check() error {
	switch sev := f.Severity; f.Noise {
	case Gaussian:
		if !(sev > 0) || math.IsInf(sev, 0) {
			return fmt.Errorf("Gaussian severity σ = %v, want a finite σ > 0", sev)
		}
	case Bernoulli:
		if !(sev > 0 && sev <= 1) {
			return fmt.Errorf("Bernoulli severity p = %v outside (0, 1]", sev)
		}
	case Scaled:
		if !(sev > 1) || math.IsInf(sev, 0) {
			return fmt.Errorf("scaled severity s = %v, want a finite s > 1", sev)
		}
	case Reference:
		if sev != 1 {
			return fmt.Errorf("reference severity s = %v, want 1", sev)
		}
	case Uniform, Dense, BernoulliMostCommon, BernoulliLeastCommon, NotNormalized:
		if !(sev > 0) || math.IsInf(sev, 0) {
			return fmt.Errorf("%v severity s = %v, want a finite s > 0", f.Noise, sev)
		}
	default:
		return fmt.Errorf("unknown noise %v", f.Noise)
	}
	if !(f.Budget >= 0 && f.Budget <= 1) {
		return fmt.Errorf("budget %v outside [0, 1]", f.Budget)
	}
	return nil
}

// splitTest returns the test nodes of s outside and inside the set nodes.
func splitTest(s Split, nodes []int, n int) (id, ood []int) {
	in := Mask(n, nodes)
	return filter(s.Test, func(i int) bool { return !in[i] }), filter(s.Test, func(i int) bool { return in[i] })
}

// noiseStream is the second PCG seed word of the noise draws ("noise").
const noiseStream = 0x6e6f697365

// replaceRows returns x with the given rows replaced, stored sparsely.
func replaceRows(x *tensor.CSR, rows map[int][]float64) *tensor.CSR {
	nnz := x.NNZ()
	for i, row := range rows {
		nnz -= x.Ptr[i+1] - x.Ptr[i]
		for _, v := range row {
			if v != 0 {
				nnz++
			}
		}
	}
	ptr := make([]int, x.Rows+1)
	ind := make([]int, 0, nnz)
	val := make([]float64, 0, nnz)
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

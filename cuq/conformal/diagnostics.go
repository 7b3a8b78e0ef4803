package conformal

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The defaults of the worst-slab coverage: slabs of at least a tenth of
// the nodes over 1000 random directions, the values of Romano, Sesia and
// Candès (2020).
const (
	DefaultSlabFraction   = 0.1
	DefaultSlabDirections = 1000
)

// slabStream is the PCG stream of the random directions of a seed.
const slabStream = 3

// The conditional-coverage diagnostics below measure how far the coverage
// of subsets of the evaluation nodes strays from the target 1−α, which
// split conformal prediction guarantees only on average over all nodes.

// ClassCoverage returns the coverage of the evaluation nodes of each
// class c, cov_c = |{i ∈ Nodes : y_i = c, y_i ∈ C(i)}| / |{i ∈ Nodes : y_i = c}|
// (NaN for a class without evaluation nodes), and the coverage gap of
// Ding et al. (2023),
//
//	CovGap = (1/|K′|) Σ_{c ∈ K′} |cov_c − (1−α)|,
//
// the mean over the classes K′ that have evaluation nodes. It returns an
// error if labels do not cover the nodes or a node is unlabelled.
func ClassCoverage(r Result, labels []int) (coverage []float64, covGap float64, err error) {
	if err := checkResult(r, labels); err != nil {
		return nil, math.NaN(), err
	}
	covered, count := make([]float64, r.Classes), make([]float64, r.Classes)
	for k, i := range r.Nodes {
		count[labels[i]]++
		if r.Covered[k] {
			covered[labels[i]]++
		}
	}
	coverage = make([]float64, r.Classes)
	var gap, classes float64
	for c := range coverage {
		coverage[c] = math.NaN()
		if count[c] > 0 {
			coverage[c] = covered[c] / count[c]
			gap += math.Abs(coverage[c] - (1 - r.Alpha))
			classes++
		}
	}
	return coverage, gap / classes, nil
}

// Stratum is the coverage of the evaluation nodes whose set size lies in
// Lo, …, Hi.
type Stratum struct {
	Lo, Hi   int
	Count    int
	Coverage float64 // NaN for an empty stratum
}

// SizeStratified returns the coverage of the evaluation nodes stratified
// by set size and the size-stratified coverage violation of Angelopoulos,
// Bates, Malik and Jordan (2021),
//
//	SSCV = max_{s : n_s > 0} |cov_s − (1−α)|,
//
// the largest deviation over the non-empty strata s, cov_s the coverage of
// the n_s nodes in stratum s. upper holds the strata's largest sizes,
// increasing: upper = (1, 3, 10) gives the strata 0–1, 2–3, 4–10 and
// 11–Classes (the strata of Angelopoulos et al. for ImageNet are 0–1, 2–3,
// 4–10, 11–100, 101–1000). nil upper gives the strata 0–1, 2, 3, …,
// Classes: every size alone, but for the empty sets, which randomised
// APS can give and which never cover, joined with the singletons as
// Angelopoulos et al. do. A full set (size Classes) always covers, so
// SSCV ≥ α as soon as one set is full, however conditional the coverage
// of the others. It returns an error for strata that are not
// increasing or not within [0, Classes), no sizes, or sizes and coverage
// flags of different lengths.
func SizeStratified(r Result, upper []int) (strata []Stratum, sscv float64, err error) {
	if len(r.Sizes) != len(r.Covered) || len(r.Sizes) == 0 {
		return nil, math.NaN(), fmt.Errorf("conformal: a result of %d sizes and %d coverage flags", len(r.Sizes), len(r.Covered))
	}
	if upper == nil {
		for s := 1; s < r.Classes; s++ {
			upper = append(upper, s)
		}
	}
	for k, u := range upper {
		if u < 0 || u >= r.Classes || (k > 0 && u <= upper[k-1]) {
			return nil, math.NaN(), fmt.Errorf("conformal: set-size strata %v are not increasing sizes below %d", upper, r.Classes)
		}
	}
	lo := 0
	for _, hi := range append(slices.Clone(upper), r.Classes) {
		strata = append(strata, Stratum{Lo: lo, Hi: hi})
		lo = hi + 1
	}
	covered := make([]float64, len(strata))
	for k, size := range r.Sizes {
		if size < 0 || size > r.Classes {
			return nil, math.NaN(), fmt.Errorf("conformal: set size %d of %d classes", size, r.Classes)
		}
		s, _ := slices.BinarySearchFunc(strata, size, func(st Stratum, size int) int { return cmp.Compare(st.Hi, size) })
		strata[s].Count++
		if r.Covered[k] {
			covered[s]++
		}
	}
	for s := range strata {
		strata[s].Coverage = math.NaN()
		if strata[s].Count > 0 {
			strata[s].Coverage = covered[s] / float64(strata[s].Count)
			sscv = max(sscv, math.Abs(strata[s].Coverage-(1-r.Alpha)))
		}
	}
	return strata, sscv, nil
}

// SlabOptions configures WorstSlabCoverage; the zero value is the
// defaults.
type SlabOptions struct {
	// Fraction is δ, the smallest fraction of the evaluation nodes a slab
	// must hold, 0 for DefaultSlabFraction.
	Fraction float64
	// Directions is the number of random directions, 0 for
	// DefaultSlabDirections.
	Directions int
	// Seed seeds the directions.
	Seed uint64
}

// WorstSlabCoverage returns the worst-slab coverage of Cauchoy, Bates and
// Romano (2020) and Romano, Sesia and Candès (2020): the smallest coverage
// of the evaluation nodes in a slab {i : a ≤ vᵀx_i ≤ b} that holds at least
// a fraction δ of them,
//
//	WSC = min_v min_{a < b : |S_v(a, b)| ≥ δm} (1/|S_v(a, b)|) Σ_{i ∈ S_v(a, b)} 1[y_i ∈ C(i)],
//
// over opts.Directions directions v drawn from the standard normal
// distribution in R^d (uniform directions on the sphere) with opts.Seed,
// for the m evaluation nodes with feature rows x_i of features (n×d, a
// *tensor.CSR or a *tensor.Dense; the class probabilities serve too). A
// slab holds every node of a projection within [a, b], ties included.
// Exact conditional coverage would give 1−α in every slab; a WSC well
// below it reveals a region of feature space the sets under-cover. The
// minimum is taken on the same nodes it is measured on, so it is biased
// low by the noise of slabs of δm nodes (about 2·sqrt(α(1−α)/(δm))):
// compare methods on the same nodes and directions rather than with
// 1−α. Each direction costs O(m²) for the slabs. It returns an error for
// δ outside (0, 1], a negative number of directions, features that are
// not n rows or not of those types or have a non-finite entry, and the
// errors of ClassCoverage.
func WorstSlabCoverage(r Result, features tensor.Matrix, opts SlabOptions) (float64, error) {
	delta, directions := opts.Fraction, opts.Directions
	if delta == 0 {
		delta = DefaultSlabFraction
	}
	if directions == 0 {
		directions = DefaultSlabDirections
	}
	if !(delta > 0 && delta <= 1) || directions < 0 {
		return math.NaN(), fmt.Errorf("conformal: worst slab: δ = %v and %d directions, need 0 < δ ≤ 1 and directions ≥ 0", delta, directions)
	}
	ptr, ind, val, n, d, err := sparseRows(features)
	if err != nil {
		return math.NaN(), fmt.Errorf("conformal: worst slab: %w", err)
	}
	for _, i := range r.Nodes {
		if i < 0 || i >= n {
			return math.NaN(), fmt.Errorf("conformal: worst slab: node %d has no feature row of %d", i, n)
		}
	}
	m := len(r.Nodes)
	if m == 0 || len(r.Covered) != m {
		return math.NaN(), fmt.Errorf("conformal: worst slab: %d nodes and %d coverage flags", m, len(r.Covered))
	}
	least := int(math.Ceil(float64(delta*float64(m)) - quantileRankSlack))
	rng := rand.New(rand.NewPCG(opts.Seed, slabStream))
	v, z := make([]float64, d), make([]float64, m)
	slab := slabs{covered: r.Covered, order: make([]int, m), prefix: make([]int, m+1), least: least}
	worst := math.Inf(1)
	for range directions {
		for f := range v {
			v[f] = rng.NormFloat64()
		}
		for k, i := range r.Nodes {
			var s float64
			for e := ptr[i]; e < ptr[i+1]; e++ {
				s += float64(val[e] * v[ind[e]])
			}
			z[k] = s
		}
		worst = slab.worst(z, worst)
	}
	return worst, nil
}

// slabs finds the worst coverage of the slabs of at least least nodes
// along one direction: covered flags the nodes the sets cover; order and
// prefix are scratch, prefix[j] the covered nodes among the first j in
// order.
type slabs struct {
	covered       []bool
	order, prefix []int
	least         int
}

// worst returns the smaller of worst and the coverage of each slab of at
// least s.least nodes of the projections z.
func (s *slabs) worst(z []float64, worst float64) float64 {
	order, prefix := s.order, s.prefix
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(z[a], z[b]) })
	// The slabs start and end at the borders of groups of equal
	// projection.
	var starts []int
	for j, k := range order {
		prefix[j+1] = prefix[j]
		if s.covered[k] {
			prefix[j+1]++
		}
		if j == 0 || z[k] != z[order[j-1]] {
			starts = append(starts, j)
		}
	}
	ends := append(starts[1:len(starts):len(starts)], len(order))
	for _, a := range starts {
		for _, b := range ends {
			if b-a >= s.least {
				worst = min(worst, float64(prefix[b]-prefix[a])/float64(b-a))
			}
		}
	}
	return worst
}

// CoverageGroup is the coverage of the evaluation nodes of one group (a
// degree or homophily bin).
type CoverageGroup struct {
	// Lo and Hi are the group's range (see eval.Group), Count its number
	// of evaluation nodes.
	Lo, Hi float64
	Count  int
	// Coverage and MeanSize are the group's coverage and mean set size,
	// NaN when it is empty.
	Coverage, MeanSize float64
}

// CoverageByGroup returns the coverage and the mean set size of the
// evaluation nodes of each group, as eval.DegreeGroups and
// eval.HomophilyGroups make them: the coverage counterpart of a
// reliability diagram, which shows whether the sets under-cover
// low-degree or heterophilous nodes. It returns an error for a group node
// that is not an evaluation node.
func CoverageByGroup(r Result, groups []eval.Group) ([]CoverageGroup, error) {
	out := make([]CoverageGroup, len(groups))
	for g, group := range groups {
		out[g] = CoverageGroup{Lo: group.Lo, Hi: group.Hi, Count: len(group.Nodes), Coverage: math.NaN(), MeanSize: math.NaN()}
		if len(group.Nodes) == 0 {
			continue
		}
		var covered, size float64
		for _, i := range group.Nodes {
			k, ok := slices.BinarySearch(r.Nodes, i)
			if !ok {
				return nil, fmt.Errorf("conformal: node %d of group %d is not an evaluation node", i, g)
			}
			size += float64(r.Sizes[k])
			if r.Covered[k] {
				covered++
			}
		}
		out[g].Coverage, out[g].MeanSize = covered/float64(len(group.Nodes)), size/float64(len(group.Nodes))
	}
	return out, nil
}

// DiagnosticOptions configures Diagnose; the zero value is the defaults.
type DiagnosticOptions struct {
	// SizeStrata are the largest set sizes of the strata of SSCV, nil for
	// the default strata (see SizeStratified).
	SizeStrata []int
	// Features are the n node rows the worst slabs are taken in; nil for
	// the class probabilities. cuq.Prediction.Conformal sets the graph's
	// features.
	Features tensor.Matrix
	// Slab configures the worst-slab coverage.
	Slab SlabOptions
	// HomophilyBins is the number of local-homophily bins, 0 for
	// eval.DefaultHomophilyBins.
	HomophilyBins int
}

// Diagnostics are the conditional-coverage diagnostics of a Result.
type Diagnostics struct {
	// ClassCoverage and CovGap are the per-class coverage and the coverage
	// gap (see ClassCoverage).
	ClassCoverage []float64
	CovGap        float64
	// Strata and SSCV are the coverage by set size and the size-stratified
	// coverage violation (see SizeStratified).
	Strata []Stratum
	SSCV   float64
	// WorstSlab is the worst-slab coverage (see WorstSlabCoverage).
	WorstSlab float64
	// ByDegree and ByHomophily are the coverage by degree and by local
	// homophily, the fraction of a node's neighbours that share its label
	// (see CoverageByGroup, eval.DegreeGroups, eval.HomophilyGroups and
	// eval.LocalHomophily); nil without a graph.
	ByDegree, ByHomophily []CoverageGroup
}

// Diagnose returns every conditional-coverage diagnostic of r: the
// coverage per class and CovGap, per set-size stratum and SSCV, the
// worst-slab coverage in opts.Features (the class probabilities prob,
// row-major with r.Classes columns, when nil), and with a graph adj the
// coverage by degree and by local homophily. The errors are those of the
// diagnostics and of eval.LocalHomophily, eval.Degrees and the groupings.
func Diagnose(r Result, prob []float64, labels []int, adj *tensor.CSR, opts DiagnosticOptions) (Diagnostics, error) {
	var d Diagnostics
	var err error
	if d.ClassCoverage, d.CovGap, err = ClassCoverage(r, labels); err != nil {
		return Diagnostics{}, err
	}
	if d.Strata, d.SSCV, err = SizeStratified(r, opts.SizeStrata); err != nil {
		return Diagnostics{}, err
	}
	features := opts.Features
	if features == nil {
		features = &tensor.Dense{Rows: len(labels), Cols: r.Classes, Data: prob}
	}
	if d.WorstSlab, err = WorstSlabCoverage(r, features, opts.Slab); err != nil {
		return Diagnostics{}, err
	}
	if adj == nil {
		return d, nil
	}
	degree, err := eval.Degrees(adj.Ptr, adj.Ind)
	if err != nil {
		return Diagnostics{}, err
	}
	if len(degree) != len(labels) {
		return Diagnostics{}, fmt.Errorf("conformal: %s adjacency for %d nodes", adj.Shape(), len(labels))
	}
	homophily, err := eval.LocalHomophily(adj.Ptr, adj.Ind, labels, r.Classes)
	if err != nil {
		return Diagnostics{}, err
	}
	bins := opts.HomophilyBins
	if bins == 0 {
		bins = eval.DefaultHomophilyBins
	}
	dg, err := eval.DegreeGroups(degree, r.Nodes)
	if err != nil {
		return Diagnostics{}, err
	}
	hg, err := eval.HomophilyGroups(homophily, r.Nodes, bins)
	if err != nil {
		return Diagnostics{}, err
	}
	if d.ByDegree, err = CoverageByGroup(r, dg); err != nil {
		return Diagnostics{}, err
	}
	if d.ByHomophily, err = CoverageByGroup(r, hg); err != nil {
		return Diagnostics{}, err
	}
	return d, nil
}

// checkResult reports a Result whose nodes the labels do not cover or
// whose per-node slices do not match its nodes.
func checkResult(r Result, labels []int) error {
	if len(r.Covered) != len(r.Nodes) || len(r.Sizes) != len(r.Nodes) || len(r.Nodes) == 0 {
		return fmt.Errorf("conformal: a result of %d nodes, %d sizes and %d coverage flags", len(r.Nodes), len(r.Sizes), len(r.Covered))
	}
	for _, i := range r.Nodes {
		if i < 0 || i >= len(labels) {
			return fmt.Errorf("conformal: node %d outside [0, %d)", i, len(labels))
		}
		if y := labels[i]; y < 0 || y >= r.Classes {
			return fmt.Errorf("conformal: node %d is unlabelled (label %d, not in [0, %d))", i, y, r.Classes)
		}
	}
	return nil
}

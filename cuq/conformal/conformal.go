// Package conformal turns any model's class probabilities into prediction
// sets with a guaranteed coverage: split conformal prediction on the nodes
// of a graph.
//
// A non-conformity score s(i, c) says how unusual class c is as the label
// of node i (see APS and RAPS, and DAPS and SNAPS, which average the
// scores over the graph). The labelled nodes given (in the
// paper's setting the test nodes) are split at random into calibration
// nodes, whose true-label scores s(i, y_i) fix the threshold, and
// evaluation nodes, which get the sets. With n calibration nodes and
// miscoverage level α ∈ (0, 1), the threshold is the conformal quantile
//
//	q̂ = the ⌈(n+1)(1−α)⌉-th smallest of the n calibration scores,
//
// the ⌈(n+1)(1−α)⌉/n empirical quantile; when ⌈(n+1)(1−α)⌉ > n (too few
// calibration nodes for α, n < 1/α − 1) q̂ = +∞ and every set holds every
// class. The prediction set of an evaluation node is
//
//	C(i) = {c : s(i, c) ≤ q̂}.
//
// Guarantee: if the scores of the calibration nodes and of an evaluation
// node are exchangeable, P(y_i ∈ C(i)) ≥ 1−α, and P(y_i ∈ C(i)) <
// 1−α + 1/(n+1) when the scores have no ties (the randomised scores). It
// holds for any model, calibrated or not; a better model gives smaller
// sets, not more coverage. In a transductive split the model is trained
// on the training and validation labels and sees every node's features
// and edges but no test label; the test nodes are treated alike, so a
// uniformly random split of them gives exchangeable calibration and
// evaluation nodes (given the graph, the training and the split), even
// for DAPS, whose scores mix in the neighbours' predictions but no label.
// The guarantee is marginal: it averages over the random split, and the
// coverage of one split deviates from 1−α by about
// sqrt(α(1−α)(1/n + 1/m)) for m evaluation nodes.
//
// NAPS instead calibrates each node on the calibration nodes near it in
// the graph, with a threshold q̂_i of its own.
//
// The guarantee being marginal, Diagnose measures how conditional the
// coverage is: per class (CovGap), per set size (SSCV), in the worst slab
// of feature space, and by degree and local homophily.
//
// New runs one score from class probabilities; Evaluate runs several on
// the same split; cuq.Prediction.Conformal runs them on a model's
// prediction. The functions are pure: randomness comes from a seed.
package conformal

import (
	"fmt"
	"math"
	"slices"
)

// DefaultAlpha is the miscoverage level α when none is set: 0.1, sets
// that hold the label of 90% of the nodes.
const DefaultAlpha = 0.1

// quantileRankSlack is the tolerance QuantileRank subtracts from
// (n+1)(1−α) before rounding up; see QuantileRank.
const quantileRankSlack = 1e-9

// QuantileRank returns the rank k = ⌈(n+1)(1−α) − 10⁻⁹⌉ of the conformal
// quantile among n calibration scores (at least 1), which exceeds n when
// there are too few of them for α. It returns an error for α outside
// (0, 1) or n < 1.
//
// The tolerance 10⁻⁹ serves levels α meant as exact fractions that are
// not float64 numbers: α = 1.0/3 is stored a little below ⅓, so with
// n = 2 the exact product 3·(1−α) lies just above 2 and the exact rule
// gives k = 3 > n and q̂ = +∞, where the ⅓ meant gives k = 2: so
// Quantile([0.2, 0.7], 1.0/3) is 0.7, not +∞. It also absorbs the
// rounding of the product, which can land an integer (n+1)(1−α) just
// above itself. The tolerance lowers k by one only when (n+1)(1−α)
// exceeds an integer by at most 10⁻⁹, so the guarantee k/(n+1) ≥ 1−α
// weakens by at most 10⁻⁹/(n+1): it holds for α + 10⁻⁹/(n+1).
func QuantileRank(n int, alpha float64) (int, error) {
	if !(alpha > 0 && alpha < 1) {
		return 0, fmt.Errorf("conformal: α = %v, need 0 < α < 1", alpha)
	}
	if n < 1 {
		return 0, fmt.Errorf("conformal: no calibration nodes")
	}
	return max(1, int(math.Ceil(float64(float64(n+1)*(1-alpha))-quantileRankSlack))), nil
}

// Quantile returns the conformal quantile q̂ of the calibration scores:
// the QuantileRank(n, α)-th smallest of them, +∞ when that rank exceeds
// n. It returns an error for α outside (0, 1), no scores or a NaN score.
func Quantile(scores []float64, alpha float64) (float64, error) {
	k, err := QuantileRank(len(scores), alpha)
	if err != nil {
		return 0, err
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return 0, fmt.Errorf("conformal: calibration score %d is NaN", i)
		}
	}
	if k > len(scores) {
		return math.Inf(1), nil
	}
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	return sorted[k-1], nil
}

// Result is the outcome of split conformal prediction on the evaluation
// nodes.
type Result struct {
	// Score names the non-conformity score.
	Score string
	// Alpha is the miscoverage level α; the target coverage is 1−α.
	Alpha float64
	// Classes is the number of classes, the largest possible set size.
	Classes int
	// Quantile is q̂, +∞ when the calibration nodes are too few for α.
	Quantile float64
	// Quantiles holds the threshold q̂_i of each of Nodes when it differs
	// from node to node (NAPS), nil when every node uses Quantile. Local[k]
	// says whether Nodes[k] was calibrated on its own neighbourhood (NAPS;
	// false: it fell back to Quantile), nil for the other scores.
	Quantiles []float64
	Local     []bool
	// Calibration and Nodes hold the calibration and the evaluation
	// nodes, each sorted.
	Calibration, Nodes []int
	// Sets[k] holds the classes of the set of Nodes[k], ascending; Sizes[k]
	// is its size and Covered[k] whether it holds the node's label.
	Sets    [][]int
	Sizes   []int
	Covered []bool
	// Coverage is the fraction of evaluation nodes whose label is in their
	// set, MeanSize the mean set size, SingletonRate and EmptyRate the
	// fractions of sets of one class and of none.
	Coverage, MeanSize, SingletonRate, EmptyRate float64
	// Diagnostics are the conditional-coverage diagnostics when Evaluate
	// was asked for them (Options.Diagnostics), nil otherwise.
	Diagnostics *Diagnostics
}

// SizeCounts returns how many evaluation nodes have a set of each size
// 0, 1, …, Classes.
func (r Result) SizeCounts() []int {
	counts := make([]int, r.Classes+1)
	for _, s := range r.Sizes {
		counts[s]++
	}
	return counts
}

// Calibrate runs split conformal prediction on scores, the n×classes
// non-conformity scores s(i, c) of every node row-major: q̂ from the
// true-label scores s(i, y_i) of the calibration nodes (see Quantile),
// then the set {c : s(i, c) ≤ q̂} of each evaluation node and their
// coverage and sizes. The Result's Score is left empty. It returns an
// error if the scores are not n rows of classes (n = len(labels)), a
// node is outside [0, n), unlabelled (label outside [0, classes)) or
// given twice, either node set is empty, a score of a calibration or
// evaluation node is NaN, or α is outside (0, 1).
func Calibrate(scores []float64, classes int, labels, calibration, evaluation []int, alpha float64) (Result, error) {
	r, err := calibrated(scores, classes, labels, calibration, evaluation, alpha)
	if err != nil {
		return Result{}, err
	}
	r.predict(scores, labels, func(int) float64 { return r.Quantile })
	return r, nil
}

// calibrated checks the input of Calibrate and returns the Result with
// the split-conformal q̂ of the calibration nodes and the sorted node
// sets, its sets not yet predicted.
func calibrated(scores []float64, classes int, labels, calibration, evaluation []int, alpha float64) (Result, error) {
	trueScores, err := checkCalibration(scores, classes, labels, calibration, evaluation)
	if err != nil {
		return Result{}, err
	}
	q, err := Quantile(trueScores, alpha)
	if err != nil {
		return Result{}, err
	}
	return Result{Alpha: alpha, Classes: classes, Quantile: q,
		Calibration: slices.Sorted(slices.Values(calibration)), Nodes: slices.Sorted(slices.Values(evaluation))}, nil
}

// checkCalibration returns the true-label scores s(i, y_i) of the
// calibration nodes, or the errors of Calibrate but α's.
func checkCalibration(scores []float64, classes int, labels, calibration, evaluation []int) ([]float64, error) {
	if classes < 1 || len(scores) != classes*len(labels) {
		return nil, fmt.Errorf("conformal: %d scores for %d labels of %d classes", len(scores), len(labels), classes)
	}
	if len(calibration) == 0 {
		return nil, fmt.Errorf("conformal: no calibration nodes")
	}
	if len(evaluation) == 0 {
		return nil, fmt.Errorf("conformal: no evaluation nodes")
	}
	if err := checkNodes(labels, classes, calibration, evaluation); err != nil {
		return nil, err
	}
	for _, i := range slices.Concat(calibration, evaluation) {
		for c, s := range scores[i*classes : (i+1)*classes] {
			if math.IsNaN(s) {
				return nil, fmt.Errorf("conformal: node %d has a NaN score for class %d", i, c)
			}
		}
	}
	trueScores := make([]float64, len(calibration))
	for k, i := range calibration {
		trueScores[k] = scores[i*classes+labels[i]]
	}
	return trueScores, nil
}

// predict gives each of r.Nodes, the k-th with threshold q(k), its set
// {c : s(i, c) ≤ q(k)} and fills in the sizes and rates.
func (r *Result) predict(scores []float64, labels []int, q func(k int) float64) {
	classes, m := r.Classes, len(r.Nodes)
	r.Sets, r.Sizes, r.Covered = make([][]int, m), make([]int, m), make([]bool, m)
	var covered, size, singletons, empty int
	for k, i := range r.Nodes {
		set := []int{}
		qk := q(k)
		for c, s := range scores[i*classes : (i+1)*classes] {
			if s <= qk {
				set = append(set, c)
			}
		}
		r.Sets[k], r.Sizes[k] = set, len(set)
		r.Covered[k] = slices.Contains(set, labels[i])
		size += len(set)
		switch len(set) {
		case 0:
			empty++
		case 1:
			singletons++
		}
		if r.Covered[k] {
			covered++
		}
	}
	r.Coverage = float64(covered) / float64(m)
	r.MeanSize = float64(size) / float64(m)
	r.SingletonRate = float64(singletons) / float64(m)
	r.EmptyRate = float64(empty) / float64(m)
}

// checkNodes reports a node outside the labels, unlabelled, or in the two
// sets together more than once.
func checkNodes(labels []int, classes int, sets ...[]int) error {
	seen := make([]bool, len(labels))
	for _, set := range sets {
		for _, i := range set {
			if i < 0 || i >= len(labels) {
				return fmt.Errorf("conformal: node %d outside [0, %d)", i, len(labels))
			}
			if y := labels[i]; y < 0 || y >= classes {
				return fmt.Errorf("conformal: node %d is unlabelled (label %d, not in [0, %d))", i, y, classes)
			}
			if seen[i] {
				return fmt.Errorf("conformal: node %d given twice", i)
			}
			seen[i] = true
		}
	}
	return nil
}

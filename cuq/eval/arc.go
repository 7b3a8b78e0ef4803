// Package eval computes the evaluation metrics of the paper: accuracy,
// accuracy-rejection curves (ARC), OOD-detection AUROC, the relative
// uncertainty change between OOD and ID nodes, and the aggregation of
// per-run results (mean, variance, standard error); and beyond the paper
// calibration (ECE, classwise ECE, Brier, NLL, and calibration by degree
// and local homophily), misclassification and OOD detection and
// risk-coverage curves. The reference's table formats are in package
// reftables.
//
// Scores are UNCERTAINTIES (larger = more uncertain), as produced by package
// uq. The reference implementation ranks CONFIDENCES c = −u; every rule below
// is stated in both terms where the difference matters (ties, NaN).
//
// # NaN uncertainties in selective prediction
//
// The accuracy-rejection curve (ARC) and the risk-coverage curve
// (RiskCoverageOf) order the nodes alike: by uncertainty, with a NaN
// uncertainty below every other value, −∞ included, and NaNs tied with
// each other. A node of NaN uncertainty thus counts as the most certain:
// the ARC rejects it last and the risk-coverage curve keeps it first.
// This is the reference's rule for ARCs, which sorts the confidences −u
// ascending with torch, NaN last, and rejects from the front. ±∞ are
// ordered as numbers. The detection metrics (AUROC, DetectionOf) follow
// the reference's numpy nan_to_num instead, scoring NaN as 0.
//
// The package is pure numerics on slices: it does not depend on the models.
package eval

import (
	"fmt"
	"math"
	"slices"
)

// Accuracy returns the fraction of the given nodes whose prediction equals
// their label, pred[i] == labels[i]. A nil nodes means every node. It returns
// an error if pred and labels differ in length, nodes is empty but not nil, or
// a node index is out of range.
func Accuracy(pred, labels []int, nodes []int) (float64, error) {
	correct, err := Correct(pred, labels, nodes)
	if err != nil {
		return math.NaN(), err
	}
	var c int
	for _, ok := range correct {
		if ok {
			c++
		}
	}
	return float64(c) / float64(len(correct)), nil
}

// Correct returns, for each of the given nodes in order, whether
// pred[i] == labels[i]. A nil nodes means every node. The errors are those of
// Accuracy.
func Correct(pred, labels []int, nodes []int) ([]bool, error) {
	if len(pred) != len(labels) {
		return nil, fmt.Errorf("eval: Correct: %d predictions but %d labels", len(pred), len(labels))
	}
	if nodes == nil {
		if len(pred) == 0 {
			return nil, fmt.Errorf("eval: Correct: no nodes")
		}
		out := make([]bool, len(pred))
		for i := range pred {
			out[i] = pred[i] == labels[i]
		}
		return out, nil
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("eval: Correct: empty node set")
	}
	out := make([]bool, len(nodes))
	for j, i := range nodes {
		if i < 0 || i >= len(pred) {
			return nil, fmt.Errorf("eval: Correct: node %d out of range [0, %d)", i, len(pred))
		}
		out[j] = pred[i] == labels[i]
	}
	return out, nil
}

// ARCPoints is the number of points of an accuracy-rejection curve: the
// rejection fractions p_i = i/100, i = 0..100.
const ARCPoints = 101

// Curve is an accuracy-rejection curve: Acc[i] is the accuracy on the nodes
// kept after rejecting the fraction P[i] of the most uncertain ones.
type Curve struct {
	P, Acc []float64
}

// RejectionIndices returns the number of rejected nodes idx_i at each of the
// ARCPoints points for n nodes, by the reference's float32 rule: with
// step = float32(1/100) and torch.linspace(0, 1, 101)'s formula
//
//	l_i = i·step             for i < 50,
//	l_i = 1 − (100−i)·step   for i ≥ 50,
//
// idx_i = trunc(float32(l_i · float32(n))), every operation rounded to
// float32, and idx_100 = n − 1, so the last point keeps a single node.
//
// Note: this is torch's scalar formula. torch's vectorised CPU kernel computes
// some elements as base + j·step within a SIMD block instead (on AVX2 for
// example l_15 = 0.15 rather than 0.14999999), which moves idx_i by one node
// for some n. The difference is at most one node at a few points.
func RejectionIndices(n int) []int {
	idx := make([]int, ARCPoints)
	step := float32(1) / float32(ARCPoints-1)
	half := ARCPoints / 2
	nf := float32(n)
	for i := range idx {
		var l float32
		if i < half {
			l = float32(float32(i) * step)
		} else {
			l = float32(1 - float32(float32(ARCPoints-1-i)*step))
		}
		idx[i] = int(float32(l * nf))
	}
	idx[ARCPoints-1] = n - 1
	return idx
}

// RejectionOrder returns the positions of uncertainty in the order ARC
// rejects them: descending, the most uncertain first, with equal values in
// their input order (a stable sort) and NaN last.
func RejectionOrder(uncertainty []float64) []int {
	order := make([]int, len(uncertainty))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ua, ub := uncertainty[a], uncertainty[b]
		switch na, nb := math.IsNaN(ua), math.IsNaN(ub); {
		case na && nb:
			return 0
		case na:
			return 1
		case nb:
			return -1
		case ua > ub:
			return -1
		case ua < ub:
			return 1
		}
		return 0
	})
	return order
}

// ARC returns the accuracy-rejection curve of nodes with the given
// uncertainties and correctness flags. The nodes are ordered as the reference
// orders confidences c = −u ascending: most uncertain first. The sort is
// STABLE, so nodes with equal uncertainty keep their input order (the
// reference's torch argsort leaves ties unspecified), and NaN uncertainties
// come last, i.e. they are rejected last (see "NaN uncertainties in
// selective prediction" in the package documentation). Then Acc[i] = mean(correct[idx_i:]) with idx_i from RejectionIndices
// and P[i] = i/100. It returns an error if the lengths differ or the input is
// empty.
func ARC(uncertainty []float64, correct []bool) (Curve, error) {
	if err := checkUncertainties("ARC", uncertainty, correct); err != nil {
		return Curve{}, err
	}
	n := len(uncertainty)
	order := RejectionOrder(uncertainty)
	// kept[j] = number of correct nodes among order[j:].
	kept := make([]int, n+1)
	for j := n - 1; j >= 0; j-- {
		kept[j] = kept[j+1]
		if correct[order[j]] {
			kept[j]++
		}
	}
	c := Curve{P: make([]float64, ARCPoints), Acc: make([]float64, ARCPoints)}
	for i, idx := range RejectionIndices(n) {
		c.P[i] = float64(i) / float64(ARCPoints-1)
		if idx >= n {
			c.Acc[i] = math.NaN() // the mean of nothing, as in the reference
			continue
		}
		c.Acc[i] = float64(kept[idx]) / float64(n-idx)
	}
	return c, nil
}

package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Area returns the area under the accuracy-rejection curve by the
// trapezoidal rule,
//
//	AUARC = Σ_i (P[i+1] − P[i]) · (Acc[i] + Acc[i+1]) / 2,
//
// over every point of c. For a curve of ARC, with P from 0 to 1, it is the
// mean accuracy over rejection fractions: about the accuracy without
// rejection for a measure that ranks nodes at random, and the more the
// earlier the wrong predictions are rejected. The last segment, from 0.99 to 1,
// weighs the accuracy of the single node left at P = 1 by 0.005; slice the
// curve to leave it out. It returns an error if P and Acc differ in length,
// the curve has fewer than two points, P is not strictly increasing or an
// accuracy is NaN (a point where no node was left).
func (c Curve) Area() (float64, error) {
	if len(c.P) != len(c.Acc) {
		return math.NaN(), fmt.Errorf("eval: Curve.Area: %d rejection fractions but %d accuracies", len(c.P), len(c.Acc))
	}
	if len(c.P) < 2 {
		return math.NaN(), fmt.Errorf("eval: Curve.Area: need at least 2 points, got %d", len(c.P))
	}
	var area float64
	for i := range c.P {
		if math.IsNaN(c.Acc[i]) {
			return math.NaN(), fmt.Errorf("eval: Curve.Area: accuracy at point %d (P = %v) is NaN", i, c.P[i])
		}
		if i == 0 {
			continue
		}
		if !(c.P[i] > c.P[i-1]) {
			return math.NaN(), fmt.Errorf("eval: Curve.Area: rejection fractions not increasing at point %d (%v after %v)", i, c.P[i], c.P[i-1])
		}
		area += float64((c.P[i] - c.P[i-1]) * (c.Acc[i] + c.Acc[i-1]) / 2)
	}
	return area, nil
}

// RiskCoverage is the risk-coverage curve of selective prediction: keeping
// the k least uncertain of n nodes, k = 1, …, n, covers Coverage[k−1] = k/n
// of them with selective risk Risk[k−1], the fraction of wrong predictions
// among those kept. See RiskCoverageOf.
type RiskCoverage struct {
	Coverage, Risk []float64
}

// AURC returns the area under the risk-coverage curve as the mean selective
// risk over the n coverages k/n,
//
//	AURC = (1/n) Σ_{k=1}^{n} Risk_k,
//
// the definition of Geifman et al. (2019). Lower is better. A measure that
// rejects every wrong prediction before any right one reaches the minimum
// for its error rate; one that ranks at random gives the error rate on
// average. It is NaN for an empty curve.
func (rc RiskCoverage) AURC() float64 {
	if len(rc.Risk) == 0 {
		return math.NaN()
	}
	var s float64
	for _, r := range rc.Risk {
		s += r
	}
	return s / float64(len(rc.Risk))
}

// RiskCoverageOf returns the risk-coverage curve of nodes with the given
// uncertainties and correctness flags: the nodes are kept from the least
// uncertain up, and with k of n kept
//
//	Coverage_k = k/n,   Risk_k = E_k / k,
//
// where E_k is the number of wrong predictions among the k kept. Nodes of
// equal uncertainty are kept in a uniformly random order and E_k is its
// expectation: if k lies inside a tied group of g nodes with e wrong ones,
// of which j are kept, the group adds j·e/g errors. The curve and AURC
// therefore do not depend on the input order, and AURC is the expected
// AURC over that random order, just as AUROC counts ties ½. A NaN
// uncertainty ranks below every other value, as in ARC, so nodes of NaN
// uncertainty are kept first (see "NaN uncertainties in selective
// prediction" in the package documentation). It returns an error if the
// lengths differ or there are no nodes.
func RiskCoverageOf(uncertainty []float64, correct []bool) (RiskCoverage, error) {
	if err := checkUncertainties("RiskCoverageOf", uncertainty, correct); err != nil {
		return RiskCoverage{}, err
	}
	n := len(uncertainty)
	type node struct {
		u     float64
		wrong bool
	}
	nodes := make([]node, n)
	for i, u := range uncertainty {
		nodes[i] = node{u, !correct[i]}
	}
	// cmp.Compare orders NaN below −∞ and equal to NaN, the package's rule.
	slices.SortFunc(nodes, func(a, b node) int { return cmp.Compare(a.u, b.u) })
	rc := RiskCoverage{Coverage: make([]float64, n), Risk: make([]float64, n)}
	var errorsBefore float64 // wrong nodes in the groups already kept
	for lo := 0; lo < n; {
		hi := lo
		var wrong float64
		for ; hi < n && cmp.Compare(nodes[hi].u, nodes[lo].u) == 0; hi++ {
			if nodes[hi].wrong {
				wrong++
			}
		}
		g := float64(hi - lo)
		for k := lo + 1; k <= hi; k++ {
			expected := errorsBefore + float64(k-lo)*wrong/g
			rc.Coverage[k-1] = float64(k) / float64(n)
			rc.Risk[k-1] = expected / float64(k)
		}
		errorsBefore += wrong
		lo = hi
	}
	return rc, nil
}

// checkUncertainties reports uncertainties and correctness flags of
// different lengths, or none at all.
func checkUncertainties(op string, uncertainty []float64, correct []bool) error {
	if len(uncertainty) != len(correct) {
		return fmt.Errorf("eval: %s: %d uncertainties but %d correctness flags", op, len(uncertainty), len(correct))
	}
	if len(uncertainty) == 0 {
		return fmt.Errorf("eval: %s: no nodes", op)
	}
	return nil
}

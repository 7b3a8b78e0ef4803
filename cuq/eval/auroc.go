package eval

import (
	"fmt"
	"math"
	"slices"
)

// AUROC returns the area under the ROC curve of OOD detection with OOD as the
// positive class and the uncertainty as the score: the probability that a
// random OOD node is more uncertain than a random ID node, ties counting ½.
// This is exactly the trapezoidal area under sklearn's roc_curve that the
// reference reports. It is computed as the Mann–Whitney statistic over the
// sorted scores in O(n log n), counting each tied group's ID×OOD pairs as ½.
//
// As in the reference, numpy's nan_to_num is applied to the confidence −u,
// which amounts to scoring NaN as 0 and ±Inf as ±math.MaxFloat64. It returns
// an error if either set is empty.
func AUROC(scoreID, scoreOOD []float64) (float64, error) {
	if len(scoreID) == 0 || len(scoreOOD) == 0 {
		return math.NaN(), fmt.Errorf("eval: AUROC: need ID and OOD nodes, got %d ID and %d OOD", len(scoreID), len(scoreOOD))
	}
	// halfPairs counts OOD×ID pairs with the OOD score higher, ties as ½, in
	// units of ½ so that the sum stays an exact integer; the groups of equal
	// score are taken lowest first, ID nodes as the negatives.
	var halfPairs, idBelow float64
	for _, g := range slices.Backward(groupsDescending(scoreID, scoreOOD)) {
		halfPairs += float64(2*g.pos*idBelow) + float64(g.pos*g.neg)
		idBelow += g.neg
	}
	return halfPairs / 2 / (float64(len(scoreID)) * float64(len(scoreOOD))), nil
}

// nanToNum maps NaN to 0 and ±Inf to ±math.MaxFloat64, as numpy.nan_to_num.
func nanToNum(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return 0
	case math.IsInf(x, 1):
		return math.MaxFloat64
	case math.IsInf(x, -1):
		return -math.MaxFloat64
	}
	return x
}

// Change returns the relative change of the mean uncertainty of the OOD test
// nodes against the ID test nodes, the "Change" columns of id_ood.csv. The
// reference computes −c_ood/|c_id| − 1 from the mean confidences c = −u, which
// in uncertainties is
//
//	change = u_ood/|u_id| − 1,
//
// e.g. H_ood/H_id − 1 for entropies. Like the reference it reports no value
// (ok = false) when the two means have different signs (the sign of 0 being
// 0), and also when the result is NaN (both means 0, or NaN input).
func Change(idMean, oodMean float64) (change float64, ok bool) {
	if sign(idMean) != sign(oodMean) {
		return math.NaN(), false
	}
	change = oodMean/math.Abs(idMean) - 1
	if math.IsNaN(change) {
		return math.NaN(), false
	}
	return change, true
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // 0 or NaN
}

package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// DefaultTopFraction is the default q of TopAUROC: the nodes whose
// ground-truth uncertainty is among the 20% largest are the positives.
const DefaultTopFraction = 0.2

// Ranks returns the ranks 1, …, n of x in increasing order, tied values
// sharing the average of the ranks they span (x = (3, 1, 3) has ranks
// (2.5, 1, 2.5)). NaN is not allowed (Spearman and TopAUROC check).
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	r := make([]float64, len(x))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && x[idx[hi]] == x[idx[lo]] {
			hi++
		}
		avg := float64(lo+hi+1) / 2 // mean of the ranks lo+1, …, hi
		for _, i := range idx[lo:hi] {
			r[i] = avg
		}
		lo = hi
	}
	return r
}

// Spearman returns Spearman's rank correlation of x and y: the Pearson
// correlation of their ranks (Ranks, ties at their average rank),
//
//	ρ = Σᵢ (r(xᵢ) − r̄)(r(yᵢ) − r̄) / √(Σᵢ (r(xᵢ) − r̄)² · Σᵢ (r(yᵢ) − r̄)²),  r̄ = (n+1)/2,
//
// in [−1, 1]; +1 when y is an increasing function of x. It returns an
// error when the lengths differ, n < 2, a value is NaN, or either vector is
// constant (its ranks have no variance and ρ is undefined).
func Spearman(x, y []float64) (float64, error) {
	if err := checkPaired("Spearman", x, y); err != nil {
		return math.NaN(), err
	}
	rx, ry := Ranks(x), Ranks(y)
	mean := float64(float64(len(x)+1) / 2)
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += float64(dx * dy)
		sxx += float64(dx * dx)
		syy += float64(dy * dy)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN(), fmt.Errorf("eval: Spearman: a constant vector has no rank correlation")
	}
	return sxy / math.Sqrt(sxx*syy), nil
}

// TopAUROC returns how well score detects the nodes whose ground-truth
// uncertainty truth is in the top fraction q: the positives are the nodes
// with truth ≥ the k-th largest value, k = ⌈q·n⌉ (ties at that value are
// all positive), the rest negatives, and the result is AUROC(score of the
// negatives, score of the positives): the probability that a random
// positive has a larger score than a random negative, ties ½. 0.5 is
// chance, 1 a perfect ranking of the top nodes. DefaultTopFraction is the
// usual q. It returns an error when the lengths differ, n < 2, a value is
// NaN, q is outside (0, 1), or the ties leave no negative.
func TopAUROC(score, truth []float64, q float64) (float64, error) {
	if err := checkPaired("TopAUROC", score, truth); err != nil {
		return math.NaN(), err
	}
	if !(q > 0 && q < 1) {
		return math.NaN(), fmt.Errorf("eval: TopAUROC: top fraction %v outside (0, 1)", q)
	}
	sorted := slices.Clone(truth)
	slices.Sort(sorted)
	k := int(math.Ceil(q * float64(len(truth))))
	threshold := sorted[len(sorted)-k]
	var neg, pos []float64
	for i, t := range truth {
		if t >= threshold {
			pos = append(pos, score[i])
		} else {
			neg = append(neg, score[i])
		}
	}
	if len(neg) == 0 {
		return math.NaN(), fmt.Errorf("eval: TopAUROC: every ground-truth value ties with the top %v: no negatives", q)
	}
	return AUROC(neg, pos)
}

func checkPaired(name string, x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("eval: %s: %d scores against %d ground-truth values", name, len(x), len(y))
	}
	if len(x) < 2 {
		return fmt.Errorf("eval: %s: need at least 2 values, got %d", name, len(x))
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return fmt.Errorf("eval: %s: NaN at index %d", name, i)
		}
	}
	return nil
}

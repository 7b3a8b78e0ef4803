package replica

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Ranks returns the rank of each value of x among all of them, from 1 for
// the smallest; tied values share the mean of their ranks.
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
		for _, i := range idx[lo:hi] {
			r[i] = float64(lo+hi+1) / 2 // mean of the ranks lo+1, …, hi
		}
		lo = hi
	}
	return r
}

// Spearman returns Spearman's rank correlation of x and y: Pearson's
// correlation of their Ranks,
//
//	ρ = Σ (r_i − r̄)(s_i − s̄) / √(Σ (r_i − r̄)² · Σ (s_i − s̄)²).
//
// It returns an error unless x and y have the same length of at least 2,
// no NaN, and neither is constant (ρ undefined).
func Spearman(x, y []float64) (float64, error) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, fmt.Errorf("replica: Spearman of %d and %d values (want the same number, at least 2)", len(x), len(y))
	}
	if slices.ContainsFunc(x, math.IsNaN) || slices.ContainsFunc(y, math.IsNaN) {
		return 0, fmt.Errorf("replica: Spearman of values with NaN")
	}
	rx, ry := Ranks(x), Ranks(y)
	if slices.Min(rx) == slices.Max(rx) || slices.Min(ry) == slices.Max(ry) {
		return 0, fmt.Errorf("replica: Spearman of constant values")
	}
	return stat.Correlation(rx, ry, nil), nil
}

// Paired is a paired comparison of two samples a and b measured on the
// same units (here: runs sharing the split and initial weights).
type Paired struct {
	N                int
	MeanA, SEA       float64 // mean and standard error of a
	MeanB, SEB       float64
	MeanDiff, SEDiff float64 // of the differences a_i − b_i
	T, P             float64 // paired t statistic, two-sided p-value (N−1 degrees of freedom)
}

// PairedT compares a and b by the paired t-test on d_i = a_i − b_i:
// t = d̄ / (s_d/√n) with n−1 degrees of freedom, p = 2·(1 − F(|t|)).
// When every difference is equal, t is ±Inf and p 0, or t 0 and p 1 if
// they are all zero. It returns an error unless a and b have the same
// length of at least 2.
func PairedT(a, b []float64) (Paired, error) {
	n := len(a)
	if n != len(b) || n < 2 {
		return Paired{}, fmt.Errorf("replica: paired test of %d and %d values (want the same number, at least 2)", len(a), len(b))
	}
	d := make([]float64, n)
	for i := range a {
		d[i] = a[i] - b[i]
	}
	se := func(x []float64) (float64, float64) {
		m, s := stat.MeanStdDev(x, nil)
		return m, stat.StdErr(s, float64(n))
	}
	p := Paired{N: n}
	p.MeanA, p.SEA = se(a)
	p.MeanB, p.SEB = se(b)
	p.MeanDiff, p.SEDiff = se(d)
	switch {
	case p.SEDiff > 0:
		p.T = p.MeanDiff / p.SEDiff
		p.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Survival(math.Abs(p.T))
	case p.MeanDiff == 0:
		p.T, p.P = 0, 1
	default:
		p.T, p.P = math.Copysign(math.Inf(1), p.MeanDiff), 0
	}
	return p, nil
}

package replica

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

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

// Wilson returns the Wilson score interval of a proportion at confidence
// 1 − alpha, k successes in n trials: with p̂ = k/n and z the 1 − α/2
// normal quantile,
//
//	centre ± half = (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
//
// Unlike p̂ ± z·√(p̂(1−p̂)/n) it stays inside [0, 1] and is not empty at
// k = 0 or k = n. It returns an error unless 0 ≤ k ≤ n, n > 0 and
// 0 < alpha < 1.
func Wilson(k, n int, alpha float64) (lo, hi float64, err error) {
	if n <= 0 || k < 0 || k > n || !(alpha > 0 && alpha < 1) {
		return math.NaN(), math.NaN(), fmt.Errorf("replica: Wilson interval of %d in %d at α = %v (want 0 ≤ k ≤ n, n > 0, 0 < α < 1)", k, n, alpha)
	}
	z := distuv.UnitNormal.Quantile(1 - float64(alpha/2))
	nf, p := float64(n), float64(k)/float64(n)
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	return max(0, centre-half), min(1, centre+half), nil
}

// FisherExact returns the two-sided p-value of Fisher's exact test of
// the 2×2 table [[a, b], [c, d]] (rows: the two groups; columns: with and
// without the outcome): the probability, under the hypergeometric law of
// a given the margins, of every table at most as probable as the one
// observed,
//
//	P(a′) = C(a+b, a′)·C(c+d, a+c−a′) / C(n, a+c).
//
// It returns an error for a negative count or an empty table.
func FisherExact(a, b, c, d int) (float64, error) {
	if a < 0 || b < 0 || c < 0 || d < 0 || a+b+c+d == 0 {
		return math.NaN(), fmt.Errorf("replica: Fisher's test of the table [[%d %d] [%d %d]] (want non-negative counts, not all zero)", a, b, c, d)
	}
	row1, row2, col1 := a+b, c+d, a+c
	logP := func(x int) float64 {
		return logChoose(row1, x) + logChoose(row2, col1-x) - logChoose(row1+row2, col1)
	}
	observed := logP(a)
	// Tables within a relative 10⁻⁷ of the observed probability count as
	// equally probable, as R's fisher.test does, so that rounding does not
	// drop the observed table's mirror image.
	const tolerance = 1e-7
	p := 0.0
	for x := max(0, col1-row2); x <= min(row1, col1); x++ {
		if lp := logP(x); lp <= observed+math.Log1p(tolerance) {
			p += math.Exp(lp)
		}
	}
	return min(p, 1), nil
}

// logChoose returns log C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

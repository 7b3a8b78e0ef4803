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

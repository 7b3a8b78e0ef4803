package eval

import (
	"fmt"
	"math"
)

// Stat summarises one metric over runs.
type Stat struct {
	Mean float64 // arithmetic mean
	Var  float64 // sample variance, ddof = 1 (NaN for fewer than 2 runs)
	SE   float64 // standard error sqrt(Var/d), d the SE denominator
	N    int     // number of runs aggregated
}

// Aggregate returns the mean, the sample variance Σ(x−mean)²/(n−1) (numpy's
// var with ddof=1) and the standard error sqrt(Var/d) of values over n runs.
//
// The SE denominator d is seDenominator when positive and n otherwise. The
// reference divides by the CONFIGURED number of runs, num_splits·num_inits
// (100 for 10 splits × 10 inits), also for models that ran fewer times (GKDE
// has one init, so its reference SE is too small by √10); pass that count to
// reproduce its tables, or 0 for the textbook SE. NaN values propagate, as in
// numpy. With no values every field is NaN; with one, Var and SE are NaN.
func Aggregate(values []float64, seDenominator int) Stat {
	n := len(values)
	st := Stat{Mean: math.NaN(), Var: math.NaN(), SE: math.NaN(), N: n}
	if n == 0 {
		return st
	}
	var s float64
	for _, v := range values {
		s += v
	}
	st.Mean = s / float64(n)
	if n < 2 {
		return st
	}
	var ss float64
	for _, v := range values {
		d := v - st.Mean
		ss += float64(d * d)
	}
	st.Var = ss / float64(n-1)
	d := seDenominator
	if d <= 0 {
		d = n
	}
	st.SE = math.Sqrt(st.Var / float64(d))
	return st
}

// CurveStat summarises curves (such as accuracy-rejection curves) over runs,
// elementwise. SE is nil when any element of Var is NaN: the reference only
// derives standard errors from a variance curve that is valid everywhere.
type CurveStat struct {
	Mean, Var, SE []float64
	N             int
}

// AggregateCurves aggregates equally long curves, one per run, elementwise
// as Aggregate does. It returns an error if there are no curves or their
// lengths differ.
func AggregateCurves(curves [][]float64, seDenominator int) (CurveStat, error) {
	if len(curves) == 0 {
		return CurveStat{}, fmt.Errorf("eval: AggregateCurves: no curves")
	}
	m := len(curves[0])
	for r, c := range curves {
		if len(c) != m {
			return CurveStat{}, fmt.Errorf("eval: AggregateCurves: curve %d has %d points, curve 0 has %d", r, len(c), m)
		}
	}
	cs := CurveStat{Mean: make([]float64, m), Var: make([]float64, m), SE: make([]float64, m), N: len(curves)}
	column := make([]float64, len(curves))
	validVar := true
	for i := 0; i < m; i++ {
		for r, c := range curves {
			column[r] = c[i]
		}
		st := Aggregate(column, seDenominator)
		cs.Mean[i], cs.Var[i], cs.SE[i] = st.Mean, st.Var, st.SE
		validVar = validVar && !math.IsNaN(st.Var)
	}
	if !validVar {
		cs.SE = nil
	}
	return cs, nil
}

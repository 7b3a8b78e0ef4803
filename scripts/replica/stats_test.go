package replica_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// By hand: a − b = 1 0 2 3 has mean 1.5 and standard deviation √(5/3),
// t = 1.5/(√(5/3)/2) = 2.32379…, and with 3 degrees of freedom the
// two-sided p = I_{3/(3+t²)}(3/2, 1/2) = 0.102728… (mpmath).
func TestPairedT(t *testing.T) {
	p, err := replica.PairedT([]float64{1, 2, 3, 4}, []float64{0, 2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }
	if p.N != 4 || p.MeanA != 2.5 || p.MeanB != 1 || p.MeanDiff != 1.5 || !near(p.SEDiff, math.Sqrt(5.0/3)/2) ||
		!near(p.T, 2.32379000772445) || !near(p.P, 0.102728078858399) || !near(p.SEA, math.Sqrt(5.0/3)/2) {
		t.Errorf("paired test %+v", p)
	}
	if p, err := replica.PairedT([]float64{1, 2}, []float64{1, 2}); err != nil || p.T != 0 || p.P != 1 {
		t.Errorf("equal samples: %+v, %v", p, err)
	}
	if p, err := replica.PairedT([]float64{2, 3}, []float64{1, 2}); err != nil || !math.IsInf(p.T, 1) || p.P != 0 {
		t.Errorf("a constant shift: %+v, %v", p, err)
	}
	if _, err := replica.PairedT([]float64{1}, []float64{1}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one pair: error %v", err)
	}
}

// Newcombe (1998, "Two-sided confidence intervals for the single
// proportion", Table I) lists the 95% Wilson intervals (his method 3) of
// these proportions to four decimals.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}, {0, 20, 0, 0.1611}, {1, 29, 0.0061, 0.1718}, {29, 29, 0.8830, 1}} {
		lo, hi, err := replica.Wilson(c.k, c.n, 0.05)
		if err != nil || math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("%d of %d: [%.4f, %.4f], %v; want [%.4f, %.4f]", c.k, c.n, lo, hi, err, c.lo, c.hi)
		}
	}
	for _, c := range [][2]int{{1, 0}, {-1, 5}, {6, 5}} {
		if _, _, err := replica.Wilson(c[0], c[1], 0.05); err == nil || !strings.Contains(err.Error(), "want 0 ≤ k ≤ n") {
			t.Errorf("%d of %d: error %v", c[0], c[1], err)
		}
	}
}

// Fisher's tea-tasting table [[3 1] [1 3]]: with margins 4 the
// hypergeometric probabilities of a = 0…4 are 1, 16, 36, 16, 1 over 70,
// so the two-sided p is (1+16+16+1)/70, the mirror table a = 1 counting
// as equally probable. [[1 9] [11 3]] has p = 0.0027594 (R's fisher.test).
func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int
		p          float64
	}{{3, 1, 1, 3, 34.0 / 70}, {1, 9, 11, 3, 0.002759456}, {0, 10, 0, 10, 1}, {5, 0, 0, 5, 2.0 / 252}} {
		p, err := replica.FisherExact(c.a, c.b, c.c, c.d)
		if err != nil || math.Abs(p-c.p) > 1e-6*c.p {
			t.Errorf("[[%d %d] [%d %d]]: p %v, %v; want %v", c.a, c.b, c.c, c.d, p, err, c.p)
		}
	}
	if _, err := replica.FisherExact(0, 0, 0, 0); err == nil || !strings.Contains(err.Error(), "not all zero") {
		t.Errorf("empty table: %v", err)
	}
}

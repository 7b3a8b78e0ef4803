package replica_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// Ties share the mean of their ranks.
func TestRanks(t *testing.T) {
	got := replica.Ranks([]float64{7, 5, 8, 7, 6, 7})
	if want := []float64{4, 1, 6, 4, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("Ranks = %v, want %v", got, want)
	}
}

// By hand: y = 5 6 7 8 7 has ranks 1 2 3.5 5 3.5; against x = 1…5 the
// centred ranks give Σ dx·dy = 8, Σ dx² = 10, Σ dy² = 9.5: ρ = 8/√95.
func TestSpearman(t *testing.T) {
	rho, err := replica.Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7})
	if want := 8 / math.Sqrt(95); err != nil || math.Abs(rho-want) > 1e-15 {
		t.Errorf("ρ = %v, %v; want %v", rho, err, want)
	}
	// Any increasing transformation keeps ρ = 1, a decreasing one gives −1.
	x := []float64{0.3, -2, 5, 1e-9, 40}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = -math.Exp(v)
	}
	if rho, err := replica.Spearman(x, y); err != nil || rho != -1 {
		t.Errorf("ρ of a decreasing map = %v, %v", rho, err)
	}
	for _, tc := range []struct {
		x, y []float64
		err  string
	}{
		{[]float64{1, 2}, []float64{1}, "2 and 1 values"},
		{[]float64{1}, []float64{1}, "1 and 1 values"},
		{[]float64{1, math.NaN()}, []float64{1, 2}, "NaN"},
		{[]float64{1, 2, 3}, []float64{4, 4, 4}, "constant"},
	} {
		if _, err := replica.Spearman(tc.x, tc.y); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Spearman(%v, %v): error %v, want %q", tc.x, tc.y, err, tc.err)
		}
	}
}

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

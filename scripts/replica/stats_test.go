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

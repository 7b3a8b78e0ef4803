package eval

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate"
	"gonum.org/v1/gonum/stat"
)

func TestAccuracy(t *testing.T) {
	pred, labels := []int{0, 1, 2, 1}, []int{0, 1, 1, 1}
	if a, err := Accuracy(pred, labels, nil); err != nil || a != 0.75 {
		t.Errorf("Accuracy(all) = %v, %v, want 0.75", a, err)
	}
	if a, err := Accuracy(pred, labels, []int{2, 3}); err != nil || a != 0.5 {
		t.Errorf("Accuracy([2 3]) = %v, %v, want 0.5", a, err)
	}
	for _, c := range []struct {
		pred, labels, nodes []int
		want                string
	}{
		{pred, labels[:3], nil, "4 predictions but 3 labels"},
		{pred, labels, []int{}, "empty node set"},
		{pred, labels, []int{1, 4}, "node 4 out of range [0, 4)"},
		{nil, nil, nil, "no nodes"},
	} {
		if _, err := Accuracy(c.pred, c.labels, c.nodes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Accuracy error %v, want %q", err, c.want)
		}
	}
}

// step32 is float32(0.01) written by its bits, independently of the code.
var step32 = math.Float32frombits(0x3c23d70a)

// refIndices derives idx_i independently: float32×float32 products are exact
// in float64 (24+24 bits), so each float32 operation is one float64 operation
// followed by a rounding conversion.
func refIndices(n int) []int {
	idx := make([]int, 101)
	for i := range idx {
		var l float64
		if i < 50 {
			l = float64(float32(float64(step32) * float64(i)))
		} else {
			l = float64(float32(1 - float64(float32(float64(step32)*float64(100-i)))))
		}
		idx[i] = int(math.Trunc(float64(float32(l * float64(n)))))
	}
	idx[100] = n - 1
	return idx
}

func TestRejectionIndices(t *testing.T) {
	if math.Abs(float64(step32)-0.01) > 1e-9 {
		t.Fatalf("step32 = %v", step32)
	}
	// n = 7: 7i/100 is never within float32 error of an integer for
	// 0 < i < 100, so idx_i = ⌊7i/100⌋ in integer arithmetic.
	got := RejectionIndices(7)
	for i := 0; i < 100; i++ {
		if got[i] != 7*i/100 {
			t.Errorf("n=7: idx_%d = %d, want %d", i, got[i], 7*i/100)
		}
	}
	if got[100] != 6 {
		t.Errorf("n=7: idx_100 = %d, want 6", got[100])
	}
	// n = 100 and 1000 hit integers exactly, where float32 rounding decides.
	floorDiffers := 0
	for _, n := range []int{1, 2, 100, 1000, 1919, 2995} {
		want := refIndices(n)
		got := RejectionIndices(n)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: indices\n%v, want\n%v", n, got, want)
		}
		for i := 0; i < 100; i++ {
			if want[i] != n*i/100 {
				floorDiffers++
			}
		}
	}
	// The float32 rule is not plain ⌊n·i/100⌋ (e.g. n=100, i=7: 0.07f·100 < 7).
	if floorDiffers == 0 {
		t.Errorf("float32 rule never differed from ⌊n·i/100⌋; the test lost its point")
	}
	if got := RejectionIndices(1); got[0] != 0 || got[100] != 0 {
		t.Errorf("n=1: %v", got)
	}
}

func TestARCHandCases(t *testing.T) {
	// Sorted most uncertain first: 0.9 (wrong), 0.5 (wrong), 0.1 (right),
	// NaN (right, sorted last).
	c, err := ARC([]float64{0.9, 0.1, 0.5, math.NaN()}, []bool{false, true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	// n = 4: idx_i = ⌊4i/100⌋ (4i/100 is exact in float32 at multiples of 25).
	for i, want := range map[int]float64{0: 0.5, 24: 0.5, 25: 2.0 / 3, 49: 2.0 / 3, 50: 1, 75: 1, 99: 1, 100: 1} {
		if math.Abs(c.Acc[i]-want) > 1e-15 {
			t.Errorf("Acc[%d] = %v, want %v", i, c.Acc[i], want)
		}
		if c.P[i] != float64(i)/100 {
			t.Errorf("P[%d] = %v", i, c.P[i])
		}
	}
	for _, ok := range []bool{true, false} {
		c, err := ARC([]float64{3}, []bool{ok})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if ok {
			want = 1
		}
		for i, a := range c.Acc {
			if a != want {
				t.Fatalf("n=1 correct=%v: Acc[%d] = %v", ok, i, a)
			}
		}
	}
}

func TestARCTiesAreStable(t *testing.T) {
	// All uncertainties equal: the input order is kept, so the curve is the
	// suffix accuracy of the input.
	correct := []bool{false, true, true, false, true, true, true}
	u := make([]float64, len(correct))
	c, err := ARC(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 100; i++ {
		start := 7 * i / 100
		if i == 100 {
			start = 6
		}
		var k int
		for _, ok := range correct[start:] {
			if ok {
				k++
			}
		}
		if want := float64(k) / float64(7-start); c.Acc[i] != want {
			t.Errorf("Acc[%d] = %v, want %v", i, c.Acc[i], want)
		}
	}
}

func TestARCMonotoneWhenPerfect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1000
	u := make([]float64, n)
	correct := make([]bool, n)
	for i := range u {
		u[i] = rng.Float64()
		correct[i] = u[i] < 0.3 // every error is more uncertain than every hit
	}
	c, err := ARC(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(c.Acc); i++ {
		if c.Acc[i] < c.Acc[i-1] {
			t.Fatalf("Acc fell from %v to %v at p = %v", c.Acc[i-1], c.Acc[i], c.P[i])
		}
	}
	if c.Acc[100] != 1 {
		t.Errorf("Acc at p=1 is %v, want 1", c.Acc[100])
	}
}

func TestARCErrors(t *testing.T) {
	if _, err := ARC([]float64{1, 2}, []bool{true}); err == nil || !strings.Contains(err.Error(), "2 uncertainties but 1") {
		t.Errorf("length mismatch error: %v", err)
	}
	if _, err := ARC(nil, nil); err == nil || !strings.Contains(err.Error(), "no nodes") {
		t.Errorf("empty error: %v", err)
	}
}

func TestAUROCHand(t *testing.T) {
	cases := []struct {
		id, ood []float64
		want    float64
	}{
		// OOD 0.4 beats 0.1 and ties twice (2), OOD 0.8 beats all (3): 5/6.
		{[]float64{0.1, 0.4, 0.4}, []float64{0.4, 0.8}, 5.0 / 6},
		{[]float64{1, 2}, []float64{3, 4}, 1},
		{[]float64{3, 4}, []float64{1, 2}, 0},
		{[]float64{1, 1, 1}, []float64{1, 1}, 0.5},
		// nan_to_num: NaN scores 0, so it loses to 0.5 and beats −1.
		{[]float64{math.NaN()}, []float64{0.5, -1}, 0.5},
		{[]float64{1e308}, []float64{math.Inf(1)}, 1},
		{[]float64{-1e308}, []float64{math.Inf(-1)}, 0},
		{[]float64{math.MaxFloat64}, []float64{math.Inf(1)}, 0.5},
	}
	for _, c := range cases {
		got, err := AUROC(c.id, c.ood)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("AUROC(%v, %v) = %v, %v, want %v", c.id, c.ood, got, err, c.want)
		}
	}
	if _, err := AUROC(nil, []float64{1}); err == nil || !strings.Contains(err.Error(), "0 ID and 1 OOD") {
		t.Errorf("empty ID error: %v", err)
	}
}

// TestAUROCRandom compares with a brute-force pairwise count and with the
// trapezoidal area under gonum's ROC curve, on data with many ties.
func TestAUROCRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 20; trial++ {
		nID, nOOD := 1+rng.IntN(300), 1+rng.IntN(100)
		id, ood := make([]float64, nID), make([]float64, nOOD)
		for i := range id {
			id[i] = math.Round(rng.NormFloat64()*4) / 4
		}
		for i := range ood {
			ood[i] = math.Round((rng.NormFloat64()+0.7)*4) / 4
		}
		var pairs float64
		for _, o := range ood {
			for _, d := range id {
				switch {
				case o > d:
					pairs++
				case o == d:
					pairs += 0.5
				}
			}
		}
		want := pairs / float64(nID*nOOD)
		got, err := AUROC(id, ood)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUROC = %v, %v, brute force %v", trial, got, err, want)
		}
		// gonum's ROC wants the scores sorted, with their classes.
		type scored struct {
			y   float64
			ood bool
		}
		var all []scored
		for _, v := range id {
			all = append(all, scored{v, false})
		}
		for _, v := range ood {
			all = append(all, scored{v, true})
		}
		slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(a.y, b.y) })
		y, classes := make([]float64, len(all)), make([]bool, len(all))
		for i, s := range all {
			y[i], classes[i] = s.y, s.ood
		}
		tpr, fpr, _ := stat.ROC(nil, y, classes, nil)
		if roc := integrate.Trapezoidal(fpr, tpr); math.Abs(got-roc) > 1e-12 {
			t.Fatalf("trial %d: AUROC = %v, gonum ROC area %v", trial, got, roc)
		}
	}
}

func TestChange(t *testing.T) {
	for _, c := range []struct {
		id, ood, want float64
		ok            bool
	}{
		{1, 1.2, 0.2, true},
		{2, 1, -0.5, true},
		{-1, -2, -3, true}, // u_ood/|u_id| − 1 = −2/1 − 1
		{1, -1, 0, false},
		{0, 0, 0, false},
		{0, 1, 0, false},
		{math.NaN(), 1, 0, false},
	} {
		got, ok := Change(c.id, c.ood)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-15) {
			t.Errorf("Change(%v, %v) = %v, %v, want %v, %v", c.id, c.ood, got, ok, c.want, c.ok)
		}
	}
}

func TestAggregate(t *testing.T) {
	st := Aggregate([]float64{1, 2, 3, 4}, 0)
	// var = (2.25 + 0.25 + 0.25 + 2.25)/3 = 5/3.
	if st.Mean != 2.5 || math.Abs(st.Var-5.0/3) > 1e-15 || math.Abs(st.SE-math.Sqrt(5.0/12)) > 1e-15 || st.N != 4 {
		t.Errorf("Aggregate = %+v", st)
	}
	if st := Aggregate([]float64{1, 2, 3, 4}, 100); math.Abs(st.SE-math.Sqrt(5.0/300)) > 1e-15 {
		t.Errorf("SE with configured count 100 = %v, want %v", st.SE, math.Sqrt(5.0/300))
	}
	if st := Aggregate([]float64{7}, 100); st.Mean != 7 || !math.IsNaN(st.Var) || !math.IsNaN(st.SE) {
		t.Errorf("one run: %+v", st)
	}
	if st := Aggregate(nil, 0); !math.IsNaN(st.Mean) || st.N != 0 {
		t.Errorf("no runs: %+v", st)
	}
	cs, err := AggregateCurves([][]float64{{1, 0, 5}, {3, 0, 5}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cs.Mean, []float64{2, 0, 5}) || !slices.Equal(cs.Var, []float64{2, 0, 0}) || !slices.Equal(cs.SE, []float64{1, 0, 0}) || cs.N != 2 {
		t.Errorf("AggregateCurves = %+v", cs)
	}
	cs, err = AggregateCurves([][]float64{{1, 2}}, 100)
	if err != nil || cs.SE != nil || !math.IsNaN(cs.Var[0]) {
		t.Errorf("one curve: %+v, %v; want NaN variance and no SE", cs, err)
	}
	if _, err := AggregateCurves([][]float64{{1, 2}, {1}}, 0); err == nil || !strings.Contains(err.Error(), "curve 1 has 1 points") {
		t.Errorf("ragged error: %v", err)
	}
	if _, err := AggregateCurves(nil, 0); err == nil {
		t.Errorf("no curves: no error")
	}
}

func BenchmarkARC(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 100000
	u, correct := make([]float64, n), make([]bool, n)
	for i := range u {
		u[i] = math.Round(rng.Float64()*1000) / 1000
		correct[i] = rng.Float64() > u[i]
	}
	for b.Loop() {
		if _, err := ARC(u, correct); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAUROC(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	id, ood := make([]float64, 90000), make([]float64, 10000)
	for i := range id {
		id[i] = rng.NormFloat64()
	}
	for i := range ood {
		ood[i] = rng.NormFloat64() + 1
	}
	for b.Loop() {
		if _, err := AUROC(id, ood); err != nil {
			b.Fatal(err)
		}
	}
}

// RejectionOrder is ARC's order: descending, ties in input order, NaN last.
func TestRejectionOrder(t *testing.T) {
	got := RejectionOrder([]float64{0.2, math.NaN(), 0.5, 0.2, 0.9, math.NaN()})
	if want := []int{4, 2, 0, 3, 1, 5}; !slices.Equal(got, want) {
		t.Errorf("RejectionOrder = %v, want %v", got, want)
	}
	if got := RejectionOrder(nil); len(got) != 0 {
		t.Errorf("RejectionOrder(nil) = %v", got)
	}
}

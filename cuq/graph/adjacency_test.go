package graph

import (
	"math"
	"testing"
)

func TestToUndirectedCoalesces(t *testing.T) {
	// Duplicates (0,1) twice plus its reverse, a one-way (2,1), a self loop.
	a := csr(t, 3, 3,
		[3]float64{0, 1, 3.5}, [3]float64{0, 1, 2}, [3]float64{1, 0, 1},
		[3]float64{2, 1, 0.5}, [3]float64{2, 2, 4})
	u := ToUndirected(a)
	assertWellFormed(t, "ToUndirected", u)
	if u.NNZ() != 5 {
		t.Errorf("NNZ = %d, want 5", u.NNZ())
	}
	assertDense(t, "ToUndirected", u.ToDense(), 3, 3, []float64{
		0, 1, 0,
		1, 0, 1,
		0, 1, 1,
	}, 0)
}

func TestToUndirectedNonSquare(t *testing.T) {
	u := ToUndirected(csr(t, 2, 3, [3]float64{0, 2, 1}))
	assertDense(t, "ToUndirected", u.ToDense(), 3, 3, []float64{0, 0, 1, 0, 0, 0, 1, 0, 0}, 0)
}

func TestSelfLoops(t *testing.T) {
	a := csr(t, 3, 3,
		[3]float64{0, 0, 5}, [3]float64{0, 1, 1},
		[3]float64{1, 0, 1},
		[3]float64{2, 1, 1})
	withLoops := AddRemainingSelfLoops(a, 0.5)
	assertWellFormed(t, "AddRemainingSelfLoops", withLoops)
	assertDense(t, "AddRemainingSelfLoops", withLoops.ToDense(), 3, 3, []float64{
		5, 1, 0, // the existing loop keeps its weight
		1, 0.5, 0,
		0, 1, 0.5,
	}, 0)
	noLoops := RemoveSelfLoops(withLoops)
	assertWellFormed(t, "RemoveSelfLoops", noLoops)
	assertDense(t, "RemoveSelfLoops", noLoops.ToDense(), 3, 3, []float64{0, 1, 0, 1, 0, 0, 0, 1, 0}, 0)
	if noLoops.NNZ() != 3 {
		t.Errorf("NNZ = %d, want 3", noLoops.NNZ())
	}
	// A loop in a row whose other entries are all to its left or right.
	b := AddRemainingSelfLoops(csr(t, 3, 3, [3]float64{0, 2, 1}, [3]float64{2, 0, 1}), 1)
	assertWellFormed(t, "AddRemainingSelfLoops", b)
	assertDense(t, "AddRemainingSelfLoops", b.ToDense(), 3, 3, []float64{1, 0, 1, 0, 1, 0, 1, 0, 1}, 0)
}

func TestSymNormPath(t *testing.T) {
	// Path 0–1–2 with self loops: degrees 2, 3, 2.
	n := SymNorm(undirected(t, 3, [2]int{0, 1}, [2]int{1, 2}))
	assertWellFormed(t, "SymNorm", n)
	r6 := 1 / math.Sqrt(6)
	assertDense(t, "SymNorm", n.ToDense(), 3, 3, []float64{
		1.0 / 2, r6, 0,
		r6, 1.0 / 3, r6,
		0, r6, 1.0 / 2,
	}, 1e-15)
}

func TestSymNormDirectedWeightedAndZeroDegree(t *testing.T) {
	// One edge with weight 2 whose messages flow from 1 to 0, and node 2
	// isolated with an explicit zero self loop (degree 0).
	a := csr(t, 3, 3, [3]float64{0, 1, 2}, [3]float64{2, 2, 0})
	n := SymNorm(a)
	// d0 = 1 + 2 = 3 (in-degree, loop included), d1 = 1, d2 = 0.
	assertDense(t, "SymNorm", n.ToDense(), 3, 3, []float64{
		1.0 / 3, 2 / math.Sqrt(3), 0,
		0, 1, 0,
		0, 0, 0,
	}, 1e-15)
	for _, v := range n.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite weight %v", v)
		}
	}
}

func TestRWNorm(t *testing.T) {
	n := RWNorm(undirected(t, 4, [2]int{0, 1}, [2]int{1, 2}))
	assertDense(t, "RWNorm", n.ToDense(), 4, 4, []float64{
		1.0 / 2, 1.0 / 2, 0, 0,
		1.0 / 3, 1.0 / 3, 1.0 / 3, 0,
		0, 1.0 / 2, 1.0 / 2, 0,
		0, 0, 0, 1, // isolated node: its self loop only
	}, 1e-15)
	// A zero row sum (explicit zero loop) gives a zero row, not NaN.
	z := RWNorm(csr(t, 2, 2, [3]float64{1, 1, 0}))
	assertDense(t, "RWNorm zero row", z.ToDense(), 2, 2, []float64{1, 0, 0, 0}, 0)
}

func TestSelfLoopsNonSquare(t *testing.T) {
	// A 2×3 matrix is read as 3 nodes whose third row is empty.
	a := csr(t, 2, 3, [3]float64{0, 2, 1}, [3]float64{1, 1, 7})
	l := AddRemainingSelfLoops(a, 1)
	assertWellFormed(t, "AddRemainingSelfLoops", l)
	assertDense(t, "AddRemainingSelfLoops", l.ToDense(), 3, 3, []float64{1, 0, 1, 0, 7, 0, 0, 0, 1}, 0)
	r := RemoveSelfLoops(a)
	assertDense(t, "RemoveSelfLoops", r.ToDense(), 3, 3, []float64{0, 0, 1, 0, 0, 0, 0, 0, 0}, 0)
}

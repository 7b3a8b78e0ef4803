package graph

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func TestBinarize(t *testing.T) {
	s := csr(t, 2, 3, [3]float64{0, 0, 0.5}, [3]float64{0, 1, -2}, [3]float64{1, 2, 3})
	got, ok := Binarize(s).(*tensor.CSR)
	if !ok {
		t.Fatalf("Binarize(CSR) is a %T, want *tensor.CSR", Binarize(s))
	}
	assertWellFormed(t, "Binarize", got)
	if got.NNZ() != 2 {
		t.Errorf("NNZ = %d, want 2 (the negative entry dropped)", got.NNZ())
	}
	assertDense(t, "Binarize(CSR)", got.ToDense(), 2, 3, []float64{1, 0, 0, 0, 0, 1}, 0)
	if s.At(0, 1) != -2 {
		t.Error("Binarize modified its input")
	}

	d := tensor.MustFromSlice(2, 2, []float64{0.1, -1, 0, 7})
	gd, ok := Binarize(d).(*tensor.Dense)
	if !ok {
		t.Fatalf("Binarize(Dense) is a %T, want *tensor.Dense", Binarize(d))
	}
	assertDense(t, "Binarize(Dense)", gd, 2, 2, []float64{1, 0, 0, 1}, 0)
	if d.At(0, 0) != 0.1 {
		t.Error("Binarize modified its input")
	}
}

func TestNormalizeFeaturesNegativeShift(t *testing.T) {
	// Global minimum −1; shifted rows [0 2], [0 0], [3 1] with sums 2, 0, 4.
	x := tensor.MustFromSlice(3, 2, []float64{-1, 1, -1, -1, 2, 0})
	got := NormalizeFeatures(x).(*tensor.Dense)
	assertDense(t, "NormalizeFeatures", got, 3, 2, []float64{0, 1, 0, 0, 0.75, 0.25}, 1e-15)

	// The same matrix stored sparsely: the implicit zero at (2,1) is shifted
	// too and the result is dense.
	s := tensor.DenseToCSR(x)
	gs, ok := NormalizeFeatures(s).(*tensor.Dense)
	if !ok {
		t.Fatalf("NormalizeFeatures(CSR with negatives) is a %T, want *tensor.Dense", NormalizeFeatures(s))
	}
	assertDense(t, "NormalizeFeatures(CSR)", gs, 3, 2, []float64{0, 1, 0, 0, 0.75, 0.25}, 1e-15)
}

func TestNormalizeFeaturesSmallAndZeroRows(t *testing.T) {
	// Row sums 4, 0.5 (< 1: left as is) and 0 (stays zero).
	x := tensor.MustFromSlice(3, 3, []float64{1, 0, 3, 0.2, 0.3, 0, 0, 0, 0})
	want := []float64{0.25, 0, 0.75, 0.2, 0.3, 0, 0, 0, 0}
	assertDense(t, "dense", NormalizeFeatures(x).(*tensor.Dense), 3, 3, want, 1e-15)
	s := tensor.DenseToCSR(x)
	gs, ok := NormalizeFeatures(s).(*tensor.CSR)
	if !ok {
		t.Fatalf("NormalizeFeatures(non-negative CSR) is a %T, want *tensor.CSR", NormalizeFeatures(s))
	}
	if gs.NNZ() != s.NNZ() {
		t.Errorf("pattern changed: %d stored entries, want %d", gs.NNZ(), s.NNZ())
	}
	assertDense(t, "sparse", gs.ToDense(), 3, 3, want, 1e-15)
	if s.Val[0] != 1 {
		t.Error("NormalizeFeatures modified its input")
	}
}

func TestNormalizeFeaturesFullCSRPositiveMin(t *testing.T) {
	// Every entry stored, minimum 1: shifted rows [0 1], [2 0].
	s := csr(t, 2, 2, [3]float64{0, 0, 1}, [3]float64{0, 1, 2}, [3]float64{1, 0, 3}, [3]float64{1, 1, 1})
	got := NormalizeFeatures(s).(*tensor.Dense)
	assertDense(t, "NormalizeFeatures", got, 2, 2, []float64{0, 1, 1, 0}, 1e-15)
}

func TestCompactFeatures(t *testing.T) {
	d := tensor.New(4, 4)
	d.Set(0, 0, 1)
	d.Set(1, 2, 2)
	d.Set(3, 3, 3) // density 3/16 < 0.25
	c, ok := CompactFeatures(d).(*tensor.CSR)
	if !ok {
		t.Fatalf("density 0.1875: got %T, want *tensor.CSR", CompactFeatures(d))
	}
	assertDense(t, "round trip", c.ToDense(), 4, 4, d.Data, 0)

	d.Set(2, 1, 4) // density exactly 0.25 stays dense
	if _, ok := CompactFeatures(d).(*tensor.Dense); !ok {
		t.Fatalf("density 0.25: got %T, want *tensor.Dense", CompactFeatures(d))
	}
	s := tensor.DenseToCSR(d)
	back, ok := CompactFeatures(s).(*tensor.Dense)
	if !ok {
		t.Fatalf("CSR at density 0.25: got %T, want *tensor.Dense", CompactFeatures(s))
	}
	assertDense(t, "CSR to dense", back, 4, 4, d.Data, 0)
	sparse := csr(t, 10, 10, [3]float64{1, 1, 1})
	if CompactFeatures(sparse) != tensor.Matrix(sparse) {
		t.Error("a sparse CSR should be returned as it is")
	}
}

// wrapped is a Matrix that is neither a *tensor.Dense nor a *tensor.CSR; the
// transforms read it through its product with the identity.
type wrapped struct{ *tensor.Dense }

func TestTransformsOnOtherMatrices(t *testing.T) {
	x := wrapped{tensor.MustFromSlice(2, 3, []float64{-1, 0, 2, 0, 0, 0})}
	assertDense(t, "Binarize", Binarize(x).(*tensor.Dense), 2, 3, []float64{0, 0, 1, 0, 0, 0}, 0)
	// Minimum −1: shifted rows [0 1 3] and [1 1 1].
	assertDense(t, "NormalizeFeatures", NormalizeFeatures(x).(*tensor.Dense), 2, 3,
		[]float64{0, 0.25, 0.75, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-15)
	c, ok := CompactFeatures(x).(*tensor.Dense)
	if !ok {
		t.Fatalf("CompactFeatures at density 1/3 gave %T, want *tensor.Dense", CompactFeatures(x))
	}
	assertDense(t, "CompactFeatures", c, 2, 3, x.Data, 0)
}

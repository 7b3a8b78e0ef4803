package graph

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// csr builds an n×n CSR matrix from (i, j, value) triplets.
func csr(t *testing.T, rows, cols int, entries ...[3]float64) *tensor.CSR {
	t.Helper()
	var ri, ci []int
	var v []float64
	for _, e := range entries {
		ri = append(ri, int(e[0]))
		ci = append(ci, int(e[1]))
		v = append(v, e[2])
	}
	m, err := tensor.FromCOO(rows, cols, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// undirected builds the 0/1 symmetric adjacency of the listed edges.
func undirected(t *testing.T, n int, edges ...[2]int) *tensor.CSR {
	t.Helper()
	var ri, ci []int
	for _, e := range edges {
		ri = append(ri, e[0], e[1])
		ci = append(ci, e[1], e[0])
	}
	m, err := tensor.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func assertDense(t *testing.T, what string, got *tensor.Dense, rows, cols int, want []float64, tol float64) {
	t.Helper()
	if got.Rows != rows || got.Cols != cols {
		t.Fatalf("%s: shape %s, want %dx%d", what, got.Shape(), rows, cols)
	}
	for k, w := range want {
		if math.Abs(got.Data[k]-w) > tol {
			t.Fatalf("%s: entry (%d,%d) = %.17g, want %.17g\ngot %v", what, k/cols, k%cols, got.Data[k], w, got)
		}
	}
}

// assertWellFormed checks that m passes tensor.NewCSR's validation.
func assertWellFormed(t *testing.T, what string, m *tensor.CSR) {
	t.Helper()
	if _, err := tensor.NewCSR(m.Rows, m.Cols, m.Ptr, m.Ind, m.Val); err != nil {
		t.Fatalf("%s: malformed CSR: %v", what, err)
	}
}

func assertErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", substr)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %q does not contain %q", err, substr)
	}
}

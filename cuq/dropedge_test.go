package cuq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// DropEdge drops undirected edges whole, with the asked probability, and
// keeps self loops and the weights of what stays.
func TestDropEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n, edges = 300, 6000
	var ri, ci []int
	var w []float64
	for range edges {
		i, j := r.IntN(n), r.IntN(n)
		if i == j {
			continue
		}
		v := 1 + r.Float64()
		ri, ci, w = append(ri, i, j), append(ci, j, i), append(w, v, v)
	}
	for i := 0; i < n; i += 3 {
		ri, ci, w = append(ri, i), append(ci, i), append(w, 2)
	}
	ri, ci, w = append(ri, 0), append(ci, n-1), append(w, 5) // one way
	adj, err := tensor.FromCOO(n, n, ri, ci, w)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	if same := dropEdges(adj, 0, rng); !equalCSR(same, adj) {
		t.Fatal("p = 0 dropped entries")
	}
	const p = 0.3
	out := dropEdges(adj, p, rng)
	if _, err := tensor.NewCSR(out.Rows, out.Cols, out.Ptr, out.Ind, out.Val); err != nil {
		t.Fatal(err)
	}
	pairs, dropped := 0, 0
	for i := 0; i < n; i++ {
		for e := adj.Ptr[i]; e < adj.Ptr[i+1]; e++ {
			j := adj.Ind[e]
			kept := out.At(i, j)
			switch {
			case kept != 0 && kept != adj.Val[e]:
				t.Fatalf("entry (%d, %d) kept with weight %v, was %v", i, j, kept, adj.Val[e])
			case i == j && kept == 0:
				t.Fatalf("self loop of %d dropped", i)
			case i < j && adj.At(j, i) != 0:
				if (kept == 0) != (out.At(j, i) == 0) {
					t.Fatalf("edge {%d, %d} dropped in one direction only", i, j)
				}
				pairs++
				if kept == 0 {
					dropped++
				}
			}
		}
	}
	// the dropped fraction is binomial: p ± 4 standard errors
	frac, se := float64(dropped)/float64(pairs), math.Sqrt(p*(1-p)/float64(pairs))
	if math.Abs(frac-p) > 4*se {
		t.Errorf("dropped %d of %d edges (%.3f), want %.2f ± %.3f", dropped, pairs, frac, p, 4*se)
	}
	if again := dropEdges(adj, p, rng); equalCSR(again, out) {
		t.Error("two draws dropped the same edges")
	}
}

func equalCSR(a, b *tensor.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols &&
		slices.Equal(a.Ptr, b.Ptr) && slices.Equal(a.Ind, b.Ind) && slices.Equal(a.Val, b.Val)
}

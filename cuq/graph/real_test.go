package graph_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func loadCoraML(t *testing.T) *graph.Graph {
	t.Helper()
	dir := testenv.RequireDatasets(t)
	g, err := datasets.LoadNPZ(filepath.Join(dir, "cora_ml.npz"), "CoraML")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCoraMLSplitsAndOOD(t *testing.T) {
	g := loadCoraML(t)
	if g.N != 2995 || g.NumClasses != 7 {
		t.Fatalf("CoraML: %d nodes, %d classes", g.N, g.NumClasses)
	}
	sizes := g.ClassCounts(nil)
	splits, err := g.Splits(graph.SplitSpec{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range splits {
		if err := s.Validate(g.N); err != nil {
			t.Fatal(err)
		}
		tr, va, te := g.ClassCounts(s.Train), g.ClassCounts(s.Val), g.ClassCounts(s.Test)
		for c, n := range sizes {
			wantTr := int(math.Floor(0.05 * float64(n)))
			wantVa := int(math.Floor(0.15 * float64(n-wantTr)))
			wantTe := int(math.Floor(0.80 * float64(n-wantTr-wantVa)))
			if tr[c] != wantTr || va[c] != wantVa || te[c] != wantTe {
				t.Errorf("split %d class %d (%d nodes): %d/%d/%d, want %d/%d/%d", k+1, c, n, tr[c], va[c], te[c], wantTr, wantVa, wantTe)
			}
		}
		// The reference's split formula (docs/guide/reference.md, "Splits"): about 64.6% test nodes, 15–16% unused.
		if f := float64(len(s.Test)) / float64(g.N); f < 0.63 || f > 0.65 {
			t.Errorf("test fraction %.3f, want ≈ 0.646", f)
		}
		if f := float64(len(s.Unused)) / float64(g.N); f < 0.15 || f > 0.17 {
			t.Errorf("unused fraction %.3f, want 0.15–0.17", f)
		}
	}

	spec, err := datasets.Info(g.Name)
	if err != nil || spec.LeftOutClasses != 3 {
		t.Fatalf("Info(%q): %d left-out classes, %v", g.Name, spec.LeftOutClasses, err)
	}
	loc, err := graph.LeaveOutClasses(g, splits[0], spec.LeftOutClasses)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Graph.NumClasses != 4 || len(loc.IDTest)+len(loc.OODTest) != len(splits[0].Test) {
		t.Errorf("LOC: %d classes, %d+%d test nodes of %d", loc.Graph.NumClasses, len(loc.IDTest), len(loc.OODTest), len(splits[0].Test))
	}

	p, err := graph.PerturbFeatures(g, splits[0], graph.Bernoulli, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	s := splits[0]
	want := len(s.Val)/10 + len(s.Test)/10 + len(s.Unused)/10 + len(s.Train)/10
	if len(p.Nodes) != want || len(p.OODTest) != len(s.Test)/10 {
		t.Errorf("perturbed %d nodes (%d test), want %d (%d)", len(p.Nodes), len(p.OODTest), want, len(s.Test)/10)
	}
}

func TestCoraMLPropagation(t *testing.T) {
	g := loadCoraML(t)
	p, err := graph.NewPPR(graph.RWNorm(g.Adj), 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	sp := p.SparsePruned(0.01)
	for i := 0; i < sp.Rows; i++ {
		sum := 0.0
		for k := sp.Ptr[i]; k < sp.Ptr[i+1]; k++ {
			sum += sp.Val[k]
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("row %d of the pruned Π sums to %v", i, sum)
		}
	}
	// The sym-normalised adjacency of an undirected graph is symmetric.
	a := graph.SymNorm(g.Adj)
	at := a.Transpose()
	for k := range a.Val {
		if a.Ind[k] != at.Ind[k] || math.Abs(a.Val[k]-at.Val[k]) > 1e-15 {
			t.Fatal("SymNorm(CoraML) is not symmetric")
		}
	}
	if a.NNZ() != g.NumEdges()+g.N {
		t.Errorf("SymNorm has %d entries, want edges + N = %d", a.NNZ(), g.NumEdges()+g.N)
	}
	t.Logf("CoraML: pruned Π keeps %d of %d² entries (%.2f%%)", sp.NNZ(), g.N, 100*sp.Density())
}

package kernelext

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// csbm returns a 3-class CSBM graph of n nodes drawn with the given seed,
// split by spec.
func csbm(t testing.TB, n int, seed uint64, spec graph.SplitSpec) (*graph.Graph, graph.Split) {
	t.Helper()
	return testenv.Split(t, datasets.CSBM(n, 3).Seed(seed).Done, spec)
}

// shiftsCase returns a 3-class CSBM graph of 150 nodes with its split, the
// paper's Gaussian noise on a tenth of its nodes, and its leave-out-classes
// setting with one class left out.
func shiftsCase(t testing.TB) (*graph.Graph, graph.Split, *graph.Perturbed, *graph.Shifted) {
	t.Helper()
	g, split := csbm(t, 150, 5, graph.Stratified(0.1, 0.2, 0.7).Seed(2))
	noisy, err := graph.PerturbFeatures(g, split, graph.Gaussian, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := graph.LookupSetting("loc")
	if err != nil {
		t.Fatal(err)
	}
	left, err := loc.Apply(g, split, graph.ShiftOptions{LeftOut: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g, split, noisy, left
}

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

package testenv

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// Split makes a graph with load, such as a dataset builder's Done or
// datasets.Synthetic, and splits it by spec, failing tb on an error of
// either.
func Split(tb testing.TB, load func() (*graph.Graph, error), spec graph.SplitSpec) (*graph.Graph, graph.Split) {
	tb.Helper()
	g, err := load()
	if err != nil {
		tb.Fatal(err)
	}
	s, err := g.Split(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return g, s
}

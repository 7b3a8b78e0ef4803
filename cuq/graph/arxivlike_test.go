package graph_test

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// BenchmarkPPRApplyArxivLike propagates a 40-column signal (APPNP's class
// scores) over the normalised adjacency of datasets.ArxivLike, the graph
// `cuq bench -dataset arxivlike` trains on: its heavy-tailed degrees and
// homophilous class blocks gather rows from the cache more often than
// the uniform random graph of BenchmarkPPRApplyArxivSize does.
func BenchmarkPPRApplyArxivLike(b *testing.B) {
	g, err := datasets.ArxivLike(1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := graph.NewPPR(graph.SymNorm(g.Adj), 0.1, 10)
	if err != nil {
		b.Fatal(err)
	}
	x, dst := tensor.New(g.N, g.NumClasses), tensor.New(g.N, g.NumClasses)
	for k := range x.Data {
		x.Data[k] = float64(k%7) - 3
	}
	for b.Loop() {
		if err := p.Apply(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}

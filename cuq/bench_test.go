package cuq_test

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

var paperPresets = []struct {
	name  string
	build cuq.ModelBuilder
}{
	{"appnp", cuq.APPNP()}, {"gpn", cuq.GPN()}, {"gpn_lop", cuq.LOPGPN()},
	{"cuq_ppr", cuq.CUQPPR()}, {"cuq_gcn", cuq.CUQGCN()}, {"cuq_gat", cuq.CUQGAT()},
}

// BenchmarkEpochCoraML times one training epoch (forward, backward, Adam
// step) and one evaluation pass of every paper model on CoraML, as `go run
// ./cmd/cuq bench` does in the format of the reference's PyTorch timings.
func BenchmarkEpochCoraML(b *testing.B) {
	g, split := coraML(b)
	benchmarkEpochs(b, g, split)
}

// BenchmarkEpochCiteSeer is BenchmarkEpochCoraML on CiteSeer (4,230 nodes,
// 602 sparse features, 6 classes), whose epochs take a few milliseconds:
// there the cost of handing a kernel's chunks to another core shows most.
func BenchmarkEpochCiteSeer(b *testing.B) {
	g, split := sharedDataset(b, "CiteSeer")
	benchmarkEpochs(b, g, split)
}

// BenchmarkEpochAmazonComputers is BenchmarkEpochCoraML on Amazon
// Computers, the largest of the shared datasets (13,752 nodes, 491,722
// edge entries, 767 features of which 35% are non-zero).
func BenchmarkEpochAmazonComputers(b *testing.B) {
	g, split := sharedDataset(b, "AmazonComputers")
	benchmarkEpochs(b, g, split)
}

// BenchmarkEpochArxivLike is BenchmarkEpochCoraML on datasets.ArxivLike,
// a synthetic graph of OGBN Arxiv's size (169,343 nodes, 2.3 M edges, 128
// dense features, 40 classes); it needs no data files. Select one model,
// as in -bench 'ArxivLike/appnp/', since each takes seconds per epoch.
func BenchmarkEpochArxivLike(b *testing.B) {
	g, split := testenv.Split(b, func() (*graph.Graph, error) { return datasets.ArxivLike(1) }, graph.Stratified(0.05, 0.15, 0.8))
	benchmarkEpochs(b, g, split)
}

// benchmarkEpochs builds each paper model inside its own sub-benchmark,
// so that -bench filters which models are built and trained.
func benchmarkEpochs(b *testing.B, g *graph.Graph, split graph.Split) {
	for _, p := range paperPresets {
		b.Run(p.name, func(b *testing.B) {
			m := must(p.build.Done(g))
			if _, err := m.Step(split); err != nil {
				b.Fatal(err)
			}
			b.Run("train", func(b *testing.B) {
				for b.Loop() {
					if _, err := m.Step(split); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("eval", func(b *testing.B) {
				out := tensor.New(g.N, g.NumClasses) // as cuq bench, one output for every pass
				for b.Loop() {
					if err := m.ForwardTo(out, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkEpochSyntheticGCN times one training epoch of CUQ-GCN (two GCN
// layers between the encoder and the PostNet head) on datasets.Synthetic,
// a graph shaped like CoraML (3000 nodes, 2879 sparse features, 7 classes);
// it needs no data files.
func BenchmarkEpochSyntheticGCN(b *testing.B) {
	g, split := testenv.Split(b, datasets.Synthetic, graph.Stratified(0.05, 0.15, 0.8))
	m := must(cuq.CUQGCN().Done(g))
	for b.Loop() {
		if _, err := m.Step(split); err != nil {
			b.Fatal(err)
		}
	}
}

package cuq_test

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

var paperPresets = []struct {
	name  string
	build func(*graph.Graph) *cuq.Builder
}{
	{"appnp", cuq.APPNPModel}, {"gpn", cuq.GPN}, {"gpn_lop", cuq.LOPGPN},
	{"cuq_ppr", cuq.CUQPPR}, {"cuq_gcn", cuq.CUQGCN}, {"cuq_gat", cuq.CUQGAT},
}

// BenchmarkEpochCoraML times one training epoch (forward, backward, Adam
// step) and one evaluation pass of every paper model on CoraML, as `go run
// ./cmd/cuq bench` does in the format of the reference's PyTorch timings.
func BenchmarkEpochCoraML(b *testing.B) {
	g, split := coraML(b)
	for _, p := range paperPresets {
		m := p.build(g).MustBuild()
		if _, err := m.Step(split); err != nil {
			b.Fatal(err)
		}
		b.Run(p.name+"/train", func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Step(split); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(p.name+"/eval", func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Forward(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEpochSyntheticGCN times one training epoch of CUQ-GCN (two GCN
// layers between the encoder and the PostNet head) on datasets.Synthetic,
// a graph shaped like CoraML (3000 nodes, 2879 sparse features, 7 classes);
// it needs no data files.
func BenchmarkEpochSyntheticGCN(b *testing.B) {
	g, split := testenv.Split(b, datasets.Synthetic, graph.Stratified(0.05, 0.15, 0.8))
	m := cuq.CUQGCN(g).MustBuild()
	for b.Loop() {
		if _, err := m.Step(split); err != nil {
			b.Fatal(err)
		}
	}
}

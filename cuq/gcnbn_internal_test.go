package cuq

import (
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// TestGCNBNKeepsBestBuffers checks that training restores the BatchNorms'
// running estimates of the best epoch with its parameters, and that State
// carries them.
func TestGCNBNKeepsBestBuffers(t *testing.T) {
	g, err := datasets.CSBM(150, 3).Homophily(0.8).Features(6).FeatureSignal(1).Seed(5).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	if err != nil {
		t.Fatal(err)
	}
	b := GCNBN()
	b.c.gcn = GCNConv(16).Layers(2).Activation(b.c.gcn.Act()).BatchNorm(true).Dropout(0.2)
	m, err := b.Done(g)
	if err != nil {
		t.Fatal(err)
	}
	var seen [][][]float64 // buffers after each epoch
	s := m.Schedule()
	s.LR, s.MaxEpochs, s.Patience = 0.05, 40, 40
	hist, err := m.Fit(split, s, OnEpoch(func(EpochStats) {
		var cp [][]float64
		for _, v := range m.buffers() {
			cp = append(cp, slices.Clone(v.Data.Data))
		}
		seen = append(seen, cp)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.buffers()) != 4 || hist.BestEpoch == len(seen) {
		t.Fatalf("%d buffers, best epoch %d of %d: the test needs an earlier best epoch", len(m.buffers()), hist.BestEpoch, len(seen))
	}
	st, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range m.buffers() {
		if !slices.Equal(v.Data.Data, seen[hist.BestEpoch-1][k]) {
			t.Fatalf("buffer %s is not the best epoch's (%d)", v.Name, hist.BestEpoch)
		}
		if !slices.Equal(st.Buffers[k], v.Data.Data) {
			t.Fatalf("State's buffer %d differs from %s", k, v.Name)
		}
	}
}

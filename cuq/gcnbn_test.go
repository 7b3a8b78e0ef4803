package cuq_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// pathGraph returns a path of n nodes with labels i mod 3 and noisy
// one-hot features, and a split of it.
func pathGraph(t *testing.T, n int) (*graph.Graph, graph.Split) {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	b := graph.NewBuilder(3).Name("path")
	for i := range n {
		x := []float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		x[i%3] += 2
		b.Node(i%3, x...)
		if i > 0 {
			b.Edge(i-1, i)
		}
	}
	g, err := b.Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.3, 0.3, 0.4))
	if err != nil {
		t.Fatal(err)
	}
	return g, split
}

// TestGCNBN checks GCNBN's parameters, that its prediction of a node uses
// the running estimates (a node 20 hops away changes nothing, where batch
// statistics would), that State carries them bit for bit, and the errors
// of its options.
func TestGCNBN(t *testing.T) {
	g, split := pathGraph(t, 40)
	m := must(cuq.GCNBN().Done(g))
	// 3 GCN layers (4→256, 256→256 twice), 3 BatchNorms (γ, β of 256), the
	// linear output 256→3
	if want := (4*256 + 256) + 2*(256*256+256) + 3*2*256 + (256*3 + 3); m.NumParams() != want {
		t.Fatalf("%d parameters, want %d", m.NumParams(), want)
	}
	s := m.Schedule()
	if s.LR != 3e-4 || s.WeightDecay != 1e-5 || s.MaxEpochs != 200 || s.Patience != 200 {
		t.Fatalf("schedule %+v", s)
	}
	s.MaxEpochs = 30
	fitted(t, m, split, s)
	p := must(m.Predict(nil))

	// node 30's features changed (to zeros: GCN-BN reads them binarised):
	// nodes 0–5, more than 3 hops away, keep their logits to the bit
	far := g.Clone()
	x, ok := far.Features.(*tensor.Dense)
	if !ok {
		t.Fatalf("features are %T", far.Features)
	}
	clear(x.Row(30))
	q := must(m.Predict(far))
	for i := range 6 {
		if !slices.Equal(p.Logits.Row(i), q.Logits.Row(i)) {
			t.Fatalf("node %d: logits %v, after changing node 30 %v", i, p.Logits.Row(i), q.Logits.Row(i))
		}
	}
	if slices.Equal(p.Logits.Row(30), q.Logits.Row(30)) {
		t.Fatal("node 30's logits did not change with its features")
	}

	// State round trip: a fresh model predicts the same bits
	// binary features: the same model as one reading a binarised copy
	bin := g.Clone()
	bin.Features = graph.Binarize(g.Features)
	plain := must(cuq.GCNBN().BinaryFeatures(false).Done(bin))
	if err := plain.SetState(must(m.State())); err != nil {
		t.Fatal(err)
	}
	if q := must(plain.Predict(nil)); !slices.Equal(q.Logits.Data, p.Logits.Data) {
		t.Fatal("GCN-BN differs from the same model on binarised features")
	}

	st := must(m.State())
	if len(st.Buffers) != 6 || len(st.Buffers[0]) != 256 {
		t.Fatalf("state holds %d buffers", len(st.Buffers))
	}
	fresh := must(cuq.GCNBN().Seed(99).Done(g))
	if err := fresh.SetState(st); err != nil {
		t.Fatal(err)
	}
	r := must(fresh.Predict(nil))
	if !slices.Equal(r.Logits.Data, p.Logits.Data) {
		t.Fatal("the restored model predicts other logits")
	}
	st.Buffers = st.Buffers[:5]
	if err := fresh.SetState(st); err == nil || !strings.Contains(err.Error(), "a state of 5 buffers for a model of 6") {
		t.Errorf("short state: error %v", err)
	}
	if err := must(cuq.GCN().Done(g)).SetState(must(m.State())); err == nil {
		t.Error("a GCN-BN state set into a GCN")
	}

	for _, tc := range []struct {
		b    *cuq.FirstOrderBuilder
		want string
	}{
		{cuq.APPNP().LinearOutput(true), "a linear output layer needs GCN layers (Conv)"},
		{cuq.APPNP().BinaryFeatures(true), "binary features are read by GCN layers (Conv)"},
		{cuq.GCN().Conv(cuq.GCNConv(8).Activation(nn.Activation(5))), "unknown activation Activation(5)"},
	} {
		if _, err := tc.b.Done(g); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestCUQGCNWithBatchNorm checks that a PostNet model's GCN convolution
// takes BatchNorm and GELU, and that its state carries the running
// estimates (one BatchNorm between two layers: two buffers).
func TestCUQGCNWithBatchNorm(t *testing.T) {
	g, split := pathGraph(t, 40)
	b := cuq.CUQGCN().Conv(cuq.GCNConv(16).Activation(nn.GELU).BatchNorm(true))
	m := must(b.Done(g))
	s := m.Schedule()
	s.MaxEpochs = 10
	fitted(t, m, split, s)
	st := must(m.State())
	if len(st.Buffers) != 2 || len(st.Buffers[0]) != 16 || st.Buffers[1][0] == 1 {
		t.Fatalf("buffers %v", st.Buffers)
	}
	p := must(m.Predict(nil))
	fresh := must(b.Seed(7).Done(g))
	if err := fresh.SetState(st); err != nil {
		t.Fatal(err)
	}
	if q := must(fresh.Predict(nil)); !slices.Equal(q.Alpha.Data, p.Alpha.Data) {
		t.Fatal("the restored CUQ-GCN predicts other pseudo-counts")
	}
}

// TestGCNBNWithMCDropout checks that MC dropout's predictions leave a
// GCN-BN's running estimates alone (the BatchNorms predict with them while
// dropout is on) and are the same on every call.
func TestGCNBNWithMCDropout(t *testing.T) {
	g, split := pathGraph(t, 40)
	m := must(cuq.GCNBN().MCDropout(4).Done(g))
	s := m.Schedule()
	s.MaxEpochs = 10
	fitted(t, m, split, s)
	before := must(m.State())
	p := must(m.Predict(nil))
	q := must(m.Predict(nil))
	after := must(m.State())
	for k := range before.Buffers {
		if !slices.Equal(before.Buffers[k], after.Buffers[k]) {
			t.Fatalf("prediction changed running estimate %d", k)
		}
	}
	if !slices.Equal(p.Prob.Data, q.Prob.Data) || p.Measures.EU == nil {
		t.Fatal("two MC-dropout predictions differ, or have no EU")
	}
}

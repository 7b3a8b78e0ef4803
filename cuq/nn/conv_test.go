package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// path returns the adjacency of the undirected path 0 − 1 − … − n−1, no
// self loops, unit weights.
func path(n int) *tensor.CSR {
	var ri, ci []int
	for i := 0; i+1 < n; i++ {
		ri, ci = append(ri, i, i+1), append(ci, i+1, i)
	}
	a, err := tensor.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		panic(err)
	}
	return a
}

// closeTo fails t unless got and want have the same shape and agree
// within 1e-12 element by element.
func closeTo(t *testing.T, name string, got, want *tensor.Dense) {
	t.Helper()
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %s, want %s", name, got.Shape(), want.Shape())
	}
	for i := range want.Data {
		if math.Abs(got.Data[i]-want.Data[i]) > 1e-12 {
			t.Fatalf("%s: element %d = %v, want %v", name, i, got.Data[i], want.Data[i])
		}
	}
}

// Each stack is its layers composed by hand: ReLU (GCN) or ELU (GAT)
// between layers, the projection after the last; in evaluation mode there
// is no dropout. APPNP is the propagation.
func TestConvStacksComposeTheirLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	adj := path(6)
	x := ad.Const(Uniform(rng, 6, 5, 1))
	proj := NewLinear("latent", 4, 3, true, rng)
	tp := ad.NewEvalTape()

	gcn, err := NewGCNConfig(4).Layers(3).New(5, rng)
	if err != nil {
		t.Fatal(err)
	}
	op, err := gcn.Operator(adj)
	if err != nil {
		t.Fatal(err)
	}
	norm := graph.SymNorm(adj)
	layers := gcn.(*GCNStack).Layers
	h := x
	for _, l := range layers[:2] {
		h = tp.ReLU(l.Forward(tp, norm, h))
	}
	closeTo(t, "GCN stack", gcn.ForwardProjected(tp, op, x, proj, nil).Data, proj.Forward(tp, layers[2].Forward(tp, norm, h)).Data)
	if gcn.Width() != 4 || len(gcn.Params()) != 6 {
		t.Errorf("GCN stack: width %d, %d parameters; want 4 and 6", gcn.Width(), len(gcn.Params()))
	}

	gat, err := NewGATConfig(2).Heads(2).New(5, rng)
	if err != nil {
		t.Fatal(err)
	}
	if op, err = gat.Operator(adj); err != nil {
		t.Fatal(err)
	}
	att := op.(*AttentionGraph)
	first, last := gat.(*GATStack).Layers[0], gat.(*GATStack).Layers[1]
	if !first.Concat || last.Concat || first.B.Data.Cols != 4 || gat.Width() != 2 {
		t.Fatalf("GAT stack: concat %v/%v, widths %d/%d; want the hidden layer's 2 heads concatenated, the last averaged", first.Concat, last.Concat, first.B.Data.Cols, gat.Width())
	}
	proj2 := NewLinear("latent", 2, 3, true, rng)
	want := proj2.Forward(tp, last.Forward(tp, att, tp.ELU(first.Forward(tp, att, x, nil)), nil))
	closeTo(t, "GAT stack", gat.ForwardProjected(tp, op, x, proj2, nil).Data, want.Data)

	appnp, err := APPNPConfig{K: 4, Teleport: 0.2}.New(5, rng)
	if err != nil {
		t.Fatal(err)
	}
	if op, err = appnp.Operator(adj); err != nil {
		t.Fatal(err)
	}
	ppr, err := graph.NewPPR(norm, 0.2, 4)
	if err != nil {
		t.Fatal(err)
	}
	proj5 := NewLinear("latent", 5, 3, true, rng)
	closeTo(t, "APPNP", appnp.ForwardProjected(tp, op, x, proj5, nil).Data, proj5.Forward(tp, Propagate(tp, ppr, x)).Data)
	if appnp.Width() != 5 || appnp.Params() != nil {
		t.Errorf("APPNP: width %d, parameters %v; want 5 and none", appnp.Width(), appnp.Params())
	}
}

// GATStack's operator has every edge of the graph and exactly one self
// loop per node, whether the adjacency had one or not.
func TestGATOperatorAddsOneSelfLoop(t *testing.T) {
	adj := path(4)
	withLoop, err := tensor.FromCOO(4, 4, []int{0, 1, 1, 2, 2, 2, 3}, []int{1, 0, 2, 1, 2, 3, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gat, err := NewGATConfig(3).New(2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*tensor.CSR{adj, withLoop} {
		op, err := gat.Operator(a)
		if err != nil {
			t.Fatal(err)
		}
		p := op.(*AttentionGraph).Pattern
		if p.NNZ() != adj.NNZ()+4 {
			t.Errorf("%d stored entries, want the %d edges and 4 self loops", p.NNZ(), adj.NNZ())
		}
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				if want := i == j || adj.At(i, j) != 0; (p.At(i, j) != 0) != want {
					t.Errorf("entry (%d, %d) stored: %v, want %v", i, j, p.At(i, j) != 0, want)
				}
			}
		}
	}
}

func TestAttentionGraphErrors(t *testing.T) {
	rect, _ := tensor.FromCOO(2, 3, []int{0, 1}, []int{0, 1}, nil)
	if _, err := NewAttentionGraph(rect); err == nil || !strings.Contains(err.Error(), "want square") {
		t.Errorf("2x3 pattern: err = %v", err)
	}
	if _, err := NewAttentionGraph(path(3)); err == nil || !strings.Contains(err.Error(), "node 0 has no self loop") {
		t.Errorf("pattern without self loops: err = %v", err)
	}
}

func TestConvConfigErrors(t *testing.T) {
	cases := []struct {
		c    ConvConfig
		want string
	}{
		{NewGCNConfig(8).Layers(0), "0 convolution layers of width 8"},
		{NewGCNConfig(0), "2 convolution layers of width 0"},
		{NewGCNConfig(8).Dropout(1), "convolution dropout 1 not in [0, 1)"},
		{NewGATConfig(8).Heads(0), "0 attention heads; GAT needs at least one"},
		{NewGATConfig(8).AttentionDropout(-0.1), "attention dropout -0.1 not in [0, 1)"},
		{NewGATConfig(8).Layers(-1), "-1 convolution layers"},
		{APPNPConfig{K: -1, Teleport: 0.1}, "APPNP K = -1"},
		{APPNPConfig{K: 10, Teleport: 1.5}, "teleport 1.5"},
		{APPNPConfig{K: 10, Teleport: math.NaN()}, "teleport NaN"},
	}
	for _, c := range cases {
		if _, err := c.c.New(4, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v: err = %v, want one mentioning %q", c.c, err, c.want)
		}
	}
}

// A stack copies its configuration: changing the configuration after New
// changes the next stack only.
func TestConvCopiesItsConfiguration(t *testing.T) {
	c := NewGATConfig(4).Dropout(0.3).NegativeSlope(0.1)
	s, err := c.New(3, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	c.Dropout(0.6).NegativeSlope(0.4).Layers(5)
	gat := s.(*GATStack)
	if gat.Dropout != 0.3 || gat.Layers[0].NegativeSlope != 0.1 || len(gat.Layers) != 2 {
		t.Errorf("after changing the configuration: dropout %v, slope %v, %d layers; want 0.3, 0.1, 2", gat.Dropout, gat.Layers[0].NegativeSlope, len(gat.Layers))
	}
}

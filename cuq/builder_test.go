package cuq_test

import (
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// parameters returns a copy of m's parameters, flows first.
func parameters(m *cuq.Model) [][]float64 {
	flows, others := m.Parameters()
	var out [][]float64
	for _, p := range append(flows, others...) {
		out = append(out, slices.Clone(p.Data.Data))
	}
	return out
}

func equalParameters(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, slices.Equal[[]float64])
}

// One preset done on a graph and on its leave-out-classes graph gives two
// models that both train; Done leaves the builder as it was, and changing
// the builder afterwards changes no model built before.
func TestDoneOnTwoGraphs(t *testing.T) {
	g, split := smallGraph(t)
	loc, err := graph.LeaveOutClasses(g, split, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := cuq.GPN()
	clean := must(b.Done(g))
	left := must(b.Done(loc.Graph))
	before := parameters(clean)
	if again := parameters(must(b.Done(g))); !equalParameters(again, before) {
		t.Fatal("a second Done on the same graph, after one on another, initialised other parameters")
	}
	b.Init(2)
	if !equalParameters(parameters(clean), before) {
		t.Fatal("Init(2) on the builder changed the parameters of a model built before")
	}
	if equalParameters(parameters(must(b.Done(g))), before) {
		t.Error("a Done after Init(2) has init 1's parameters")
	}
	for _, c := range []struct {
		m     *cuq.Model
		g     *graph.Graph
		split graph.Split
	}{{clean, g, split}, {left, loc.Graph, loc.Split}} {
		hist, err := c.m.Fit(c.split, cuq.MaxEpochs(3))
		if err != nil {
			t.Fatalf("%s on %q: %v", c.m.Name(), c.g.Name, err)
		}
		if len(hist.Epochs) == 0 {
			t.Errorf("%s on %q trained no epoch", c.m.Name(), c.g.Name)
		}
		pred := must(c.m.Predict(nil))
		if pred.Graph != c.g || pred.Classes != c.g.NumClasses {
			t.Errorf("%s on %q predicts %d classes on %q, want %d on its own graph", c.m.Name(), c.g.Name, pred.Classes, pred.Graph.Name, c.g.NumClasses)
		}
	}
	if loc.Graph.NumClasses != g.NumClasses-1 {
		t.Fatalf("the leave-out-classes graph has %d classes, want %d", loc.Graph.NumClasses, g.NumClasses-1)
	}
}

// Predict takes a graph with the model's nodes and feature width, and
// refuses one with other nodes or another feature width.
func TestPredictChecksGraph(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.APPNP().Done(g))
	if _, err := m.Fit(split, cuq.MaxEpochs(2)); err != nil {
		t.Fatal(err)
	}
	noisy, err := graph.PerturbFeatures(g, split, graph.Gaussian, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(noisy.Graph); err != nil {
		t.Errorf("prediction on other features: %v", err)
	}
	other, err := graph.NewBuilder(2).Node(0, 1).Node(1, 0).Edge(0, 1).Done()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(other); err == nil {
		t.Error("prediction on a graph with other nodes accepted")
	}
	wide := *g
	wide.Features = tensor.New(g.N, g.NumFeatures()+1)
	if _, err := m.Predict(&wide); err == nil {
		t.Error("prediction on a graph with another feature width accepted")
	}
}

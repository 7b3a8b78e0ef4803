package cuq_test

import (
	"math"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// A model trained on the clean graph predicts on a DICE-perturbed graph
// (structure evasion): the propagation is derived again for the new
// adjacency, the perturbed nodes' outputs change, and predicting on the
// clean graph afterwards gives the clean prediction again, bit for bit.
func TestPredictOnPerturbedStructure(t *testing.T) {
	g, split := smallGraph(t)
	pert, err := graph.PerturbStructure(g, split, graph.DICE, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []cuq.ModelBuilder{cuq.APPNP(), cuq.CUQGCN()} {
		m := must(b.Done(g))
		clean := fitPredict(t, m, split, cuq.MaxEpochs(30))
		shifted, err := m.Predict(pert.Graph)
		if err != nil {
			t.Fatalf("%s on the perturbed graph: %v", m.Name(), err)
		}
		if shifted.Graph != pert.Graph {
			t.Errorf("%s: the prediction names another graph", m.Name())
		}
		changed := 0
		for _, i := range pert.Nodes {
			if shifted.TU[i] != clean.TU[i] {
				changed++
			}
		}
		if changed < len(pert.Nodes)*9/10 {
			t.Errorf("%s: only %d of %d perturbed nodes changed their total uncertainty", m.Name(), changed, len(pert.Nodes))
		}
		// A copy of the clean graph (another adjacency pointer, the same
		// edges) and the clean graph itself give the clean prediction.
		for _, h := range []*graph.Graph{g.Clone(), nil} {
			again, err := m.Predict(h)
			if err != nil {
				t.Fatal(err)
			}
			for i := range clean.TU {
				if math.Float64bits(again.TU[i]) != math.Float64bits(clean.TU[i]) || again.Class[i] != clean.Class[i] {
					t.Fatalf("%s: node %d after predicting on the perturbed graph: TU %v class %d, want %v and %d",
						m.Name(), i, again.TU[i], again.Class[i], clean.TU[i], clean.Class[i])
				}
			}
		}
	}
}

package cuq_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// TestPredictNodes checks that PredictNodes gives, for the nodes asked
// for, the bits of Predict's rows in every per-node field, and NaN (class
// −1) for every other node: on the model families and on LOP-GPN, whose
// mixture it forms for those nodes alone.
func TestPredictNodes(t *testing.T) {
	g, err := datasets.CSBM(200, 3).Features(8).Seed(4).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := []int{150, 3, 77, 199, 0}
	kept := map[int]bool{}
	for _, i := range nodes {
		kept[i] = true
	}
	for _, b := range []cuq.ModelBuilder{cuq.APPNP(), cuq.GKDE(), cuq.GPN(), cuq.LOPGPN(), cuq.CUQPPR(), cuq.CUQGAT()} {
		m := trained(t, b, g, split)
		full, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		part, err := m.PredictNodes(nil, nodes)
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Class) != g.N {
			t.Fatalf("%s: %d classes for %d nodes", m.Name(), len(part.Class), g.N)
		}
		// row returns node i's values of every per-node field.
		row := func(p *cuq.Prediction, i int) []float64 {
			out := []float64{float64(p.Class[i])}
			for _, u := range full.Available() {
				out = append(out, p.Get(u)[i])
			}
			if p.EUFeat != nil {
				out = append(out, p.EUFeat[i])
			}
			out = append(out, p.Prob.Row(i)...)
			if p.Alpha != nil {
				out = append(out, p.Alpha.Row(i)...)
			}
			if p.Logits != nil {
				out = append(out, p.Logits.Row(i)...)
			}
			return out
		}
		if !slices.Equal(full.Available(), part.Available()) {
			t.Fatalf("%s: measures %v, PredictNodes %v", m.Name(), full.Available(), part.Available())
		}
		for i := range g.N {
			got := row(part, i)
			if kept[i] {
				if want := row(full, i); !tensor.SameBits(got, want) {
					t.Fatalf("%s: node %d: PredictNodes %v, Predict %v", m.Name(), i, got, want)
				}
				continue
			}
			if got[0] != -1 {
				t.Fatalf("%s: node %d not asked for has class %v", m.Name(), i, got[0])
			}
			for _, v := range got[1:] {
				if !math.IsNaN(v) {
					t.Fatalf("%s: node %d not asked for has values %v", m.Name(), i, got)
				}
			}
		}
	}
	m := trained(t, cuq.LOPGPN(), g, split)
	if _, err := m.PredictNodes(nil, []int{2, g.N}); err == nil || !strings.Contains(err.Error(), "node 200 outside") {
		t.Fatalf("node %d: err %v", g.N, err)
	}
}

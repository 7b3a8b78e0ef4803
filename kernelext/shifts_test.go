package kernelext

import (
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestEvaluateShifts(t *testing.T) {
	t.Cleanup(func() { Forget("shifts"); Forget("train") })
	g, split, noisy, left := shiftsCase(t)
	iso, err := graph.PerturbFeaturesIsolated(g, split, graph.FeatureShift{Noise: graph.Gaussian, Budget: 0.1, Severity: 1, Seed: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	preset, epochs := cuq.GPN(), MaxEpochs(8)
	runs, err := EvaluateShifts(preset, g, split, noisy, epochs, left, iso.Shifted("gaussian_isolated"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs, want the clean graph's and 3 shifts'", len(runs))
	}
	for k, r := range runs {
		if r.Label != "GPN" {
			t.Errorf("run %d: label %q, want GPN", k, r.Label)
		}
	}

	// The same model trained by Train, predicting on each graph: the
	// reference values of every run.
	ref, err := Train(preset, g, split, EvaluateOn("noisy", noisy.Graph), epochs, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want *cuq.Prediction, nodes []int) {
		t.Helper()
		for _, m := range []uq.Measure{uq.TU, uq.AU, uq.EU, uq.EUPC} {
			a, b := got.Get(m), want.Get(m)
			for _, i := range nodes {
				if a[i] != b[i] {
					t.Fatalf("%s: node %d: %s %v, want %v", what, i, m, a[i], b[i])
				}
			}
		}
		for _, i := range nodes {
			if got.Class[i] != want.Class[i] {
				t.Fatalf("%s: node %d: class %d, want %d", what, i, got.Class[i], want.Class[i])
			}
		}
	}
	clean := runs[0]
	if !slices.Equal(clean.Nodes, split.Test) || clean.OOD != nil || clean.Pred.(*cuq.Prediction).Graph != g {
		t.Errorf("clean run: %d nodes, %d OOD, graph %p; want the %d test nodes on %p", len(clean.Nodes), len(clean.OOD), clean.Pred.(*cuq.Prediction).Graph, len(split.Test), g)
	}
	same("clean", clean.Pred.(*cuq.Prediction), ref.Pred, split.Test)
	if r := runs[1]; !slices.Equal(r.Nodes, noisy.IDTest) || !slices.Equal(r.OOD, noisy.OODTest) {
		t.Errorf("perturbed run: nodes %v / %v, want %v / %v", r.Nodes, r.OOD, noisy.IDTest, noisy.OODTest)
	}
	same("perturbed", runs[1].Pred.(*cuq.Prediction), ref.On["noisy"], split.Test)

	// Leave-out classes: a model of its own, trained on the graph without
	// the left-out class.
	locRef, err := Train(preset, left.Train, left.Split, epochs, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if want := g.Name + ", leave-out class"; !strings.HasPrefix(locRef.Stats.Graph, want) {
		t.Errorf("leave-out run on graph %q, want one named %q…", locRef.Stats.Graph, want)
	}
	r := runs[2]
	if p := r.Pred.(*cuq.Prediction); p.Classes != g.NumClasses-1 || p.OnGraph() != left.Train {
		t.Errorf("leave-out run: %d classes on %p, want %d on %p", p.Classes, p.OnGraph(), g.NumClasses-1, left.Train)
	}
	same("leave-out classes", r.Pred.(*cuq.Prediction), locRef.Pred, left.IDTest)

	// Isolated: each perturbed node from the prediction on its own graph,
	// every other node from the clean one.
	r = runs[3]
	id := slices.DeleteFunc(slices.Clone(split.Test), func(i int) bool { return slices.Contains(iso.Nodes, i) })
	if !slices.Equal(r.Nodes, id) || !slices.Equal(r.OOD, iso.Nodes) || len(id) != len(split.Test)-3 {
		t.Errorf("isolated run: nodes %v / %v, want %v / %v", r.Nodes, r.OOD, id, iso.Nodes)
	}
	same("isolated, ID", r.Pred.(*cuq.Prediction), ref.Pred, id)
	for k, i := range iso.Nodes {
		h, err := iso.Graph(k)
		if err != nil {
			t.Fatal(err)
		}
		one, err := Train(preset, g, split, EvaluateOn("one", h), epochs, Quiet())
		if err != nil {
			t.Fatal(err)
		}
		same("isolated, OOD", r.Pred.(*cuq.Prediction), one.On["one"], []int{i})
		if one.On["one"].TU[i] == ref.Pred.TU[i] {
			t.Errorf("node %d: the perturbation left its TU unchanged", i)
		}
	}
	// The clean prediction is not changed by the splicing.
	same("clean after splicing", clean.Pred.(*cuq.Prediction), ref.Pred, iso.Nodes)
}

func TestEvaluateShiftsErrors(t *testing.T) {
	g, split := csbm(t, 60, 1, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	preset := cuq.APPNP()
	for _, c := range []struct {
		name   string
		shifts []any
		want   string
	}{
		{"a split", []any{split}, "shift 0 is a graph.Split, want a *graph.Shifted or a *graph.Perturbed"},
		{"nil shifted", []any{(*graph.Shifted)(nil)}, "shift 0: a nil or empty *graph.Shifted"},
		{"nil perturbed", []any{(*graph.Perturbed)(nil)}, "shift 0: a nil *graph.Perturbed"},
	} {
		if _, err := EvaluateShifts(preset, g, split, append(c.shifts, MaxEpochs(2))...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := EvaluateShifts(nil, g, split); err == nil || !strings.Contains(err.Error(), "nil model preset") {
		t.Errorf("nil preset: error %v", err)
	}
}

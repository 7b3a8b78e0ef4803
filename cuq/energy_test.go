package cuq_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// energyGraph returns a small CSBM graph and a split of it.
func energyGraph(t *testing.T) (*graph.Graph, graph.Split) {
	t.Helper()
	g, err := datasets.CSBM(200, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(3).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	if err != nil {
		t.Fatal(err)
	}
	return g, split
}

func fitted(t *testing.T, c cuq.Classifier, split graph.Split, opts ...cuq.FitOption) {
	t.Helper()
	if _, err := c.Fit(split, opts...); err != nil {
		t.Fatal(err)
	}
}

// TestPredictionLogits checks that softmax(Logits) is the prediction's p
// for APPNP and GCN, that an ensemble's Logits are its members' mean, and
// that the Dirichlet models have none.
func TestPredictionLogits(t *testing.T) {
	g, split := energyGraph(t)
	for _, b := range []*cuq.FirstOrderBuilder{cuq.GCN(), cuq.APPNP()} {
		m := must(b.Done(g))
		fitted(t, m, split, cuq.MaxEpochs(30))
		p, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Logits == nil || p.Logits.Rows != g.N || p.Logits.Cols != g.NumClasses {
			t.Fatalf("%s: logits %v", m.Name(), p.Logits)
		}
		for i := range g.N {
			z := p.Logits.Row(i)
			s := 0.0
			for _, v := range z {
				s += math.Exp(v)
			}
			for k, v := range z {
				if want := math.Exp(v) / s; math.Abs(p.Prob.At(i, k)-want) > 1e-12 {
					t.Fatalf("%s: node %d class %d: p = %v, softmax(z) = %v", m.Name(), i, k, p.Prob.At(i, k), want)
				}
			}
		}
	}
	ens := must(cuq.Ensemble(cuq.GCN(), 2).Done(g))
	fitted(t, ens, split, cuq.MaxEpochs(20))
	p, err := ens.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	var members [2][]float64
	for k, m := range ens.Members() {
		q, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		members[k] = q.Logits.Data
	}
	for j, v := range p.Logits.Data {
		if want := (members[0][j] + members[1][j]) / 2; math.Abs(v-want) > 1e-12 {
			t.Fatalf("ensemble logit %d: %v, members' mean %v", j, v, want)
		}
	}
	gpn := must(cuq.GPN().Done(g))
	s := gpn.Schedule()
	s.MaxEpochs, s.WarmupEpochs = 2, 1
	fitted(t, gpn, split, s)
	if q, err := gpn.Predict(nil); err != nil || q.Logits != nil {
		t.Errorf("GPN: logits %v, error %v; want nil", q.Logits, err)
	}
}

// TestEnergyScores checks the presets' scores against the formulas applied
// to the wrapped model's logits: the free energy, and GNNSafe with a dense
// D⁻¹A built here.
func TestEnergyScores(t *testing.T) {
	g, split := energyGraph(t)
	base := must(cuq.GCN().Done(g))
	fitted(t, base, split, cuq.MaxEpochs(30))
	bp, err := base.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	n, c := g.N, g.NumClasses
	free := make([]float64, n)
	for i := range n {
		s := 0.0
		for _, z := range bp.Logits.Row(i) {
			s += math.Exp(z / 2)
		}
		free[i] = -2 * math.Log(s)
	}
	adj := g.Adj.ToDense()
	p := make([][]float64, n)
	for i := range n {
		p[i] = make([]float64, n)
		deg := 0.0
		for j := range n {
			deg += adj.At(i, j)
		}
		for j := range n {
			if deg > 0 {
				p[i][j] = adj.At(i, j) / deg
			}
		}
	}
	safe := append([]float64(nil), free...)
	for range 3 {
		next := make([]float64, n)
		for i := range n {
			s := 0.0
			for j := range n {
				s += p[i][j] * safe[j]
			}
			next[i] = 0.4*safe[i] + 0.6*s
		}
		safe = next
	}
	for _, tc := range []struct {
		b    *cuq.EnergyBuilder
		m    uq.Measure
		want []float64
	}{
		{cuq.Energy(cuq.GCN()).Temperature(2), uq.Energy, free},
		{cuq.GNNSafe(cuq.GCN()).Temperature(2).Alpha(0.4).Steps(3), uq.GNNSafe, safe},
	} {
		em, err := tc.b.Of(base)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := em.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pred.Uncertainty(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.want {
			if math.Abs(got[i]-tc.want[i]) > 1e-12*max(1, math.Abs(tc.want[i])) {
				t.Fatalf("%v of node %d: %v, want %v", tc.m, i, got[i], tc.want[i])
			}
		}
		if av := pred.Available(); len(av) != 3 || av[0] != uq.TU || av[1] != uq.LC || av[2] != tc.m {
			t.Errorf("%s: available %v, want [TU LC %v]", pred.Model, av, tc.m)
		}
		tu, _ := pred.Uncertainty(uq.TU)
		for i := range tu {
			if tu[i] != bp.TU[i] || pred.Class[i] != bp.Class[i] {
				t.Fatalf("%s changed the base model's prediction at node %d", pred.Model, i)
			}
		}
		if _, err := pred.AUROC(tc.m, split.Test[:10], split.Test[10:20]); err != nil {
			t.Errorf("%s: AUROC: %v", pred.Model, err)
		}
		if c != pred.Logits.Cols {
			t.Errorf("%s: logits of %d columns", pred.Model, pred.Logits.Cols)
		}
	}
	if pred, _ := must(cuq.Energy(cuq.GCN()).Done(g)).Base().(*cuq.Model); pred == nil {
		t.Error("Base of an energy preset on a builder is not its *Model")
	}
}

func TestEnergyErrors(t *testing.T) {
	g, split := energyGraph(t)
	for _, tc := range []struct {
		b    *cuq.EnergyBuilder
		want string
	}{
		{cuq.Energy(cuq.GPN()), "GPN has no logits"},
		{cuq.GEBM(cuq.CUQPPR()), "CUQ-PPR has no logits"},
		{cuq.GNNSafe(cuq.GKDE()), "GKDE has no logits"},
		{cuq.GEBM(cuq.MCDropoutGCN()), "samples its predictions (MC dropout)"},
		{cuq.Energy(cuq.GCN()).Steps(3), "the energy score has no propagation"},
		{cuq.GNNSafe(cuq.GCN()).Correction(1), "Correction is GEBM's"},
		{cuq.GNNSafe(cuq.GCN()).Alpha(1.5), "α = 1.5"},
		{cuq.GEBM(cuq.GCN()).Steps(-1), "-1 propagation steps"},
		{cuq.Energy(cuq.GCN()).Temperature(0), "temperature 0"},
		{cuq.Energy((*cuq.FirstOrderBuilder)(nil)), "no model builder"},
	} {
		if _, err := tc.b.Done(g); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	gebm := must(cuq.GEBM(cuq.GCN()).Done(g))
	if _, err := gebm.Predict(nil); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("untrained: error %v", err)
	}
	fitted(t, gebm.Base(), split, cuq.MaxEpochs(5))
	if _, err := gebm.Predict(nil); err == nil || !strings.Contains(err.Error(), "not fitted: call Fit or FitScores first") {
		t.Errorf("unfitted GEBM: error %v", err)
	}
	if err := gebm.FitScores(split); err != nil {
		t.Fatal(err)
	}
	if _, err := gebm.Predict(nil); err != nil {
		t.Error(err)
	}
	if _, err := must(cuq.Energy(cuq.GCN()).Done(g)).GEBMComponents(nil); err == nil || !strings.Contains(err.Error(), "is not GEBM") {
		t.Errorf("components of Energy: error %v", err)
	}
}

// TestEnergyLeaveOutClassesCoraML trains one GCN on CoraML with the last
// three classes left out and checks that the three energy scores detect
// the left-out test nodes better than chance; GEBM's components sum to
// its score.
func TestEnergyLeaveOutClassesCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a GCN on CoraML")
	}
	g, err := datasets.LoadNPZ(filepath.Join(testenv.RequireDatasets(t), "cora_ml.npz"), "CoraML")
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.05, 0.15, 0.8).Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := graph.LeaveOutClasses(g, split, 3)
	if err != nil {
		t.Fatal(err)
	}
	gebm := must(cuq.GEBM(cuq.GCN()).Done(loc.Graph))
	if _, err := gebm.Fit(loc.Split); err != nil {
		t.Fatal(err)
	}
	base := gebm.Base()
	for _, b := range []*cuq.EnergyBuilder{cuq.Energy(cuq.GCN()), cuq.GNNSafe(cuq.GCN()), nil} {
		m := gebm
		if b != nil {
			if m, err = b.Of(base); err != nil {
				t.Fatal(err)
			}
		}
		pred, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		auc, err := pred.AUROC(m.Measure(), loc.IDTest, loc.OODTest)
		if err != nil {
			t.Fatal(err)
		}
		tu, _ := pred.AUROC(uq.TU, loc.IDTest, loc.OODTest)
		t.Logf("%s: AUROC %v %.1f%% (TU %.1f%%), ID accuracy %.1f%%", m.Name(), m.Measure(), 100*auc, 100*tu, 100*pred.Accuracy(loc.IDTest))
		if auc <= 0.5 {
			t.Errorf("%s: AUROC %v, want > 0.5", m.Name(), auc)
		}
	}
	s, err := gebm.GEBMComponents(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Total {
		if d := s.Independent[i] + s.Local[i] + s.Group[i] - s.Total[i]; math.Abs(d) > 1e-9 {
			t.Fatalf("node %d: components sum to %v off the total", i, d)
		}
	}
}

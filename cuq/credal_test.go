package cuq_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// TestCredalOfEnsemble checks an ensemble's credal sets against hulls built
// from its members' own predictions, the credal measures in Uncertainty,
// ARC and AUROC, and the order H_* ≤ AU ≤ TU ≤ H* that the hull implies
// (the lowest member entropy, the mean entropy, the entropy of the mean, the
// highest entropy in the hull).
func TestCredalOfEnsemble(t *testing.T) {
	g, split := smallGraph(t)
	ens, err := cuq.Ensemble(cuq.GCN(), 3).Done(g)
	if err != nil {
		t.Fatal(err)
	}
	_, pred := train(t, ens, split, quick)
	if _, err := pred.Uncertainty(uq.EUCredal); err == nil || !strings.Contains(err.Error(), "need AddCredal") {
		t.Errorf("EU_CREDAL before AddCredal: error %v", err)
	}
	if err := pred.AddCredal(0); err != nil {
		t.Fatal(err)
	}
	if got := pred.Available(); !slices.Equal(got, append([]uq.Measure{uq.TU, uq.AU, uq.EU, uq.LC}, uq.CredalMeasures...)) {
		t.Errorf("measures after AddCredal: %v", got)
	}
	var members [][]float64
	for _, m := range ens.Members() {
		p, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, p.Prob.Data)
	}
	sets, err := pred.CredalSets(0)
	if err != nil {
		t.Fatal(err)
	}
	k := g.NumClasses
	for _, i := range []int{0, 17, 123, g.N - 1} {
		rows := make([][]float64, len(members))
		for s, m := range members {
			rows[s] = m[i*k : (i+1)*k]
		}
		hull, err := uq.NewHull(rows...)
		if err != nil {
			t.Fatal(err)
		}
		up, _ := hull.UpperEntropy()
		gh, _ := hull.GeneralizedHartley()
		if math.Abs(pred.HUpper[i]-up) > 1e-12 || math.Abs(pred.HLower[i]-hull.LowerEntropy()) > 1e-12 ||
			math.Abs(pred.GH[i]-gh) > 1e-12 || math.Abs(pred.CredalSize[i]-hull.Size()) > 1e-12 {
			t.Errorf("node %d: credal measures %v %v %v %v, hull of the members %v %v %v %v", i,
				pred.HUpper[i], pred.HLower[i], pred.GH[i], pred.CredalSize[i], up, hull.LowerEntropy(), gh, hull.Size())
		}
		if !slices.Equal(sets[i].Lower(), hull.Lower()) || !slices.Equal(sets[i].Upper(), hull.Upper()) {
			t.Errorf("node %d: bounds %v–%v, members' %v–%v", i, sets[i].Lower(), sets[i].Upper(), hull.Lower(), hull.Upper())
		}
	}
	const slack = 1e-9
	for i := range g.N {
		if !(pred.HLower[i] <= pred.AU[i]+slack && pred.AU[i] <= pred.TU[i]+slack && pred.TU[i] <= pred.HUpper[i]+slack) ||
			math.Abs(pred.EUCredal[i]-(pred.HUpper[i]-pred.HLower[i])) > 1e-15 {
			t.Fatalf("node %d: H_* %v, AU %v, TU %v, H* %v, EU_CREDAL %v", i, pred.HLower[i], pred.AU[i], pred.TU[i], pred.HUpper[i], pred.EUCredal[i])
		}
	}
	if _, err := pred.ARC(uq.EUCredal, split.Test); err != nil {
		t.Error(err)
	}
	if auroc, err := pred.AUROC(uq.GH, split.Val, split.Test); err != nil || !(auroc >= 0 && auroc <= 1) {
		t.Errorf("AUROC of GH = %v, %v", auroc, err)
	}
	checkCredalSetsHoldPrediction(t, pred, split.Test)
}

// checkCredalSetsHoldPrediction checks that every credal prediction set
// holds the predicted class — the largest p̄_c is at most its upper bound
// and at least every lower bound when p̄ lies in the credal set — so that
// coverage is at least accuracy.
func checkCredalSetsHoldPrediction(t *testing.T, pred *cuq.Prediction, nodes []int) {
	t.Helper()
	r, err := pred.CredalPredictionSets(0, nodes)
	if err != nil {
		t.Fatal(err)
	}
	for n, i := range nodes {
		if !slices.Contains(r.Sets[n], pred.Class[i]) {
			t.Fatalf("%s: node %d: set %v misses the predicted class %d", pred.Model, i, r.Sets[n], pred.Class[i])
		}
	}
	if acc := pred.Accuracy(nodes); r.Coverage < acc || r.MeanSize < 1 || r.EmptyRate != 0 {
		t.Errorf("%s: coverage %v below accuracy %v, or mean size %v", pred.Model, r.Coverage, acc, r.MeanSize)
	}
}

// TestCredalOfDirichletModels checks the IDM of GPN and GKDE against α
// (β₀ + s = α₀ for s = C: lower = (α − 1)/α₀, upper = (α − 1 + C)/α₀,
// GH = C/α₀ · log₂ C), and for them and LOP-GPN that the mean prediction
// lies in the credal set, as it must for s = C: the Dirichlet mean
// (β + 1)/(β₀ + C) is the IDM's point with t uniform, and LOP-GPN's mean is
// the pool of its components' means.
func TestCredalOfDirichletModels(t *testing.T) {
	g, split := smallGraph(t)
	k := float64(g.NumClasses)
	for _, b := range []cuq.ModelBuilder{cuq.GPN(), cuq.GKDE(), cuq.LOPGPN()} {
		m, err := b.Done(g)
		if err != nil {
			t.Fatal(err)
		}
		pred := fitPredict(t, m, split, short(m, 60, 10))
		if err := pred.AddCredal(0); err != nil {
			t.Fatal(err)
		}
		sets, err := pred.CredalSets(0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.N {
			lower, upper := sets[i].Lower(), sets[i].Upper()
			for c, p := range pred.Prob.Row(i) {
				if p < lower[c]-1e-12 || p > upper[c]+1e-12 {
					t.Fatalf("%s: node %d: p̄ = %v outside [%v, %v]", m.Name(), i, pred.Prob.Row(i), lower, upper)
				}
			}
			if m.Name() == "LOP-GPN" {
				continue
			}
			alpha := pred.Alpha.Row(i)
			var a0 float64
			for _, a := range alpha {
				a0 += a
			}
			for c, a := range alpha {
				if math.Abs(lower[c]-(a-1)/a0) > 1e-12 || math.Abs(upper[c]-(a-1+k)/a0) > 1e-12 {
					t.Fatalf("%s: node %d: bounds %v–%v for α = %v", m.Name(), i, lower, upper, alpha)
				}
			}
			if want := k / a0 * math.Log2(k); math.Abs(pred.GH[i]-want) > 1e-12 || math.Abs(pred.CredalSize[i]-k*k/a0) > 1e-12 {
				t.Fatalf("%s: node %d: GH %v size %v, want %v and %v", m.Name(), i, pred.GH[i], pred.CredalSize[i], want, k*k/a0)
			}
		}
		// A stronger prior widens every interval.
		wide, err := pred.CredalSets(4 * k)
		if err != nil {
			t.Fatal(err)
		}
		if w, n := wide[0].Size(), sets[0].Size(); !(w > n) {
			t.Errorf("%s: size %v with s = 4C, %v with s = C", m.Name(), w, n)
		}
		checkCredalSetsHoldPrediction(t, pred, split.Test)
	}
}

func TestCredalOfFirstOrderModel(t *testing.T) {
	g, split := smallGraph(t)
	m, err := cuq.GCN().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	pred := fitPredict(t, m, split, quick)
	for _, err := range []error{pred.AddCredal(0), second(pred.CredalSets(0)), second(pred.CredalPredictionSets(0, split.Test))} {
		if err == nil || !strings.Contains(err.Error(), "GCN has no credal sets: a first-order prediction") {
			t.Errorf("first-order credal: error %v", err)
		}
	}
	if pred.HUpper != nil {
		t.Errorf("a failed AddCredal set H_UPPER")
	}
}

func second[T any](_ T, err error) error { return err }

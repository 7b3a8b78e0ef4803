package cuq_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// quick is a short schedule of the GCN preset for the small graph.
var quick = func() cuq.Schedule {
	s := cuq.FirstOrderSchedule(5e-4)
	s.MaxEpochs, s.Patience = 80, 10
	return s
}()

// train fits c on split with opts and returns the history and c's
// prediction on its graph.
func train(t *testing.T, c cuq.Classifier, split graph.Split, opts ...cuq.FitOption) (*cuq.History, *cuq.Prediction) {
	t.Helper()
	h, err := c.Fit(split, opts...)
	if err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	return h, predict(t, c)
}

// predict returns c's prediction on its graph.
func predict(t *testing.T, c cuq.Classifier) *cuq.Prediction {
	t.Helper()
	p, err := c.Predict(nil)
	if err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	return p
}

// maxAbsDiff returns the largest |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// checkSampled checks the measures of a sampled prediction: TU, AU, EU and
// LC, EU = max(TU − AU, 0) ≥ 0, and reports whether some EU is positive.
func checkSampled(t *testing.T, p *cuq.Prediction) (someEU bool) {
	t.Helper()
	if got := p.Available(); len(got) != 4 || got[0] != uq.TU || got[1] != uq.AU || got[2] != uq.EU || got[3] != uq.LC {
		t.Fatalf("%s provides %v, want [TU AU EU LC]", p.Model, got)
	}
	for i, eu := range p.EU {
		if eu < 0 || math.Abs(eu-max(p.TU[i]-p.AU[i], 0)) > 1e-15 {
			t.Fatalf("%s: node %d: EU %v, TU %v, AU %v", p.Model, i, eu, p.TU[i], p.AU[i])
		}
		someEU = someEU || eu > 1e-6
	}
	return someEU
}

// checkDisagreeing checks that the samples of p disagree on some node
// (positive EU) and that p has at least accuracy minAcc on the test nodes.
func checkDisagreeing(t *testing.T, p *cuq.Prediction, test []int, minAcc float64) {
	t.Helper()
	if !checkSampled(t, p) {
		t.Errorf("%s: no node has positive EU: the samples agree everywhere", p.Model)
	}
	if acc := p.Accuracy(test); acc < minAcc {
		t.Errorf("%s: test accuracy %.3f, want ≥ %v", p.Model, acc, minAcc)
	}
}

// The GCN baseline learns the small graph and, being first-order, has TU
// and LC only.
func TestGCN(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.GCN().Done(g))
	pred := fitPredict(t, m, split, quick)
	if acc := pred.Accuracy(split.Test); acc < 0.8 {
		t.Errorf("GCN test accuracy %.3f, want ≥ 0.8", acc)
	}
	if got := pred.Available(); len(got) != 2 || got[0] != uq.TU || got[1] != uq.LC {
		t.Errorf("GCN provides %v, want [TU LC]", got)
	}
	// Kipf's two layers: F×64 + 64 and 64×C + C parameters.
	_, f := g.Features.Dims()
	if want := f*64 + 64 + 64*g.NumClasses + g.NumClasses; m.NumParams() != want {
		t.Errorf("GCN has %d parameters, want %d", m.NumParams(), want)
	}
}

// An ensemble predicts the mean of its members, each trained alone from
// the init the ensemble assigns it; its EU is non-negative and somewhere
// positive. The history holds every member's epochs.
func TestEnsembleIsMeanOfMembers(t *testing.T) {
	g, split := smallGraph(t)
	const size, init = 3, 2
	e := must(cuq.Ensemble(cuq.GCN(), size).Init(init).Done(g))
	var seen []int
	hist, err := e.Fit(split, quick, cuq.OnEpoch(func(s cuq.EpochStats) { seen = append(seen, s.Member) }))
	if err != nil {
		t.Fatal(err)
	}
	pred := predict(t, e)
	mean := make([]float64, len(pred.Prob.Data))
	epochs := 0
	for m := 1; m <= size; m++ {
		member := must(cuq.GCN().Init((init-1)*size + m).Done(g))
		h, p := train(t, member, split, quick)
		if h.BestEpoch != hist.Members[m-1].BestEpoch || len(h.Epochs) != len(hist.Members[m-1].Epochs) {
			t.Errorf("member %d: best epoch %d of %d alone, %d of %d in the ensemble", m,
				h.BestEpoch, len(h.Epochs), hist.Members[m-1].BestEpoch, len(hist.Members[m-1].Epochs))
		}
		for k := epochs; k < epochs+len(h.Epochs); k++ {
			if hist.Epochs[k].Member != m || seen[k] != m {
				t.Fatalf("epoch %d of the history is member %d (OnEpoch: %d), want %d", k, hist.Epochs[k].Member, seen[k], m)
			}
		}
		epochs += len(h.Epochs)
		for j, v := range p.Prob.Data {
			mean[j] += v / size
		}
	}
	if len(hist.Epochs) != epochs || len(seen) != epochs || len(hist.Members) != size {
		t.Errorf("history of %d epochs (%d reported, %d members), want %d", len(hist.Epochs), len(seen), len(hist.Members), epochs)
	}
	if d := maxAbsDiff(pred.Prob.Data, mean); d > 1e-12 {
		t.Errorf("ensemble probabilities differ from the members' mean by %g", d)
	}
	checkDisagreeing(t, pred, split.Test, 0.8)
	if !(hist.BestValCE > 0) || math.IsInf(hist.BestValCE, 0) || hist.Reason != cuq.EarlyStopping {
		t.Errorf("history: validation CE %v, reason %v", hist.BestValCE, hist.Reason)
	}
}

// An ensemble of one member is that member, with EU = 0 exactly.
func TestEnsembleOfOne(t *testing.T) {
	g, split := smallGraph(t)
	_, pred := train(t, must(cuq.Ensemble(cuq.GCN(), 1).Done(g)), split, quick)
	alone := fitPredict(t, must(cuq.GCN().Done(g)), split, quick)
	if d := maxAbsDiff(pred.Prob.Data, alone.Prob.Data); d != 0 {
		t.Errorf("one-member ensemble differs from its member by %g", d)
	}
	for i, eu := range pred.EU {
		if eu != 0 || pred.TU[i] != alone.TU[i] {
			t.Fatalf("node %d: EU %v, TU %v (member's TU %v)", i, eu, pred.TU[i], alone.TU[i])
		}
	}
}

// MC dropout trains as the plain model, predicts the same for the same
// seed, and differs from the dropout-off prediction.
func TestMCDropout(t *testing.T) {
	g, split := smallGraph(t)
	mc := must(cuq.GCN().MCDropout(8).Done(g))
	first := fitPredict(t, mc, split, quick)
	again := predict(t, mc)
	twin := fitPredict(t, must(cuq.GCN().MCDropout(8).Done(g)), split, quick)
	if d := maxAbsDiff(first.Prob.Data, again.Prob.Data) + maxAbsDiff(first.Prob.Data, twin.Prob.Data); d != 0 {
		t.Errorf("MC dropout is not deterministic: predictions differ by %g", d)
	}
	plain := fitPredict(t, must(cuq.GCN().Done(g)), split, quick)
	out, err := mc.Forward(nil)
	if err != nil {
		t.Fatal(err)
	}
	var logp []float64
	for _, v := range plain.Prob.Data {
		logp = append(logp, math.Log(v))
	}
	if d := maxAbsDiff(out.Data, logp); d > 1e-12 {
		t.Errorf("MC dropout changed training: Forward differs from the plain model by %g", d)
	}
	if d := maxAbsDiff(first.Prob.Data, plain.Prob.Data); d < 1e-3 {
		t.Errorf("MC dropout prediction equals the dropout-off one (difference %g)", d)
	}
	checkDisagreeing(t, first, split.Test, 0.8)
}

// DropEdge with p = 0 is the plain model; with p > 0 it trains on other
// graphs and its samples disagree.
func TestDropEdge(t *testing.T) {
	g, split := smallGraph(t)
	hp, pp := train(t, must(cuq.GCN().Done(g)), split, quick)
	hz, pz := train(t, must(cuq.GCN().DropEdge(0, 3).Done(g)), split, quick)
	last := func(h *cuq.History) float64 { return h.Epochs[len(h.Epochs)-1].Loss }
	if len(hp.Epochs) != len(hz.Epochs) || last(hp) != last(hz) {
		t.Fatalf("DropEdge(0) trained differently: %d epochs, last loss %v; plain %d, %v",
			len(hz.Epochs), last(hz), len(hp.Epochs), last(hp))
	}
	if d := maxAbsDiff(pp.Prob.Data, pz.Prob.Data); d > 1e-12 {
		t.Errorf("DropEdge(0) predicts differently from the plain model: %g", d)
	}
	if checkSampled(t, pz) {
		t.Error("DropEdge(0) samples disagree")
	}

	de := must(cuq.GCN().DropEdge(0.5, 6).Done(g))
	hd, pd := train(t, de, split, quick)
	if hd.Epochs[1].Loss == hp.Epochs[1].Loss {
		t.Error("DropEdge(0.5) trained on the full graph")
	}
	if d := maxAbsDiff(pd.Prob.Data, predict(t, de).Prob.Data); d != 0 {
		t.Errorf("DropEdge prediction not deterministic: %g", d)
	}
	checkDisagreeing(t, pd, split.Test, 0.75)
}

// Cancelling the context stops the committee in its first member.
func TestCommitteeCancel(t *testing.T) {
	g, split := smallGraph(t)
	e := must(cuq.Ensemble(cuq.GCN(), 3).Done(g))
	ctx, cancel := context.WithCancel(context.Background())
	hist, err := e.Fit(split, quick, cuq.WithContext(ctx), cuq.OnEpoch(func(s cuq.EpochStats) {
		if s.Epoch == 2 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "member 1") {
		t.Fatalf("error %v, want member 1 cancelled", err)
	}
	if len(hist.Epochs) != 2 || hist.Reason != cuq.Interrupted {
		t.Errorf("history after cancelling: %d epochs, %v", len(hist.Epochs), hist.Reason)
	}
	if _, err := e.Predict(nil); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("Predict after a cancelled Fit: %v", err)
	}
}

// A built committee owns its configuration: changing the builders
// afterwards changes the next Done only.
func TestBuiltCommitteeOwnsItsConfiguration(t *testing.T) {
	g, split := smallGraph(t)
	losses := func(c *cuq.Committee) []float64 {
		h, err := c.Fit(split, cuq.MaxEpochs(5))
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, e := range h.Epochs {
			out = append(out, e.Loss)
		}
		return out
	}
	build := func(conv *cuq.FirstOrderBuilder) *cuq.EnsembleBuilder {
		return cuq.Ensemble(conv, 2)
	}
	want := losses(must(build(cuq.GCN().Conv(cuq.GCNConv(16).Layers(1))).Done(g)))

	conv := cuq.GCNConv(16).Layers(1)
	member := cuq.GCN().Conv(conv)
	e := build(member)
	c := must(e.Done(g))
	conv.Dropout(0)
	member.Seed(7)
	e.Init(3)
	got := losses(c)
	if len(got) != len(want) || maxAbsDiff(got, want) != 0 {
		t.Fatalf("losses after changing the builders: %v, want %v as built", got, want)
	}
	if again := losses(must(e.Done(g))); len(again) != 10 || again[0] == want[0] {
		t.Errorf("a Done after the change ignored it: %d epochs, first loss %v", len(again), again[0])
	}
}

func TestCommitteeErrors(t *testing.T) {
	g, _ := smallGraph(t)
	for _, c := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"no members", func() error { _, err := cuq.Ensemble(cuq.GCN(), 0).Done(g); return err }, "0 members"},
		{"nil member", func() error { _, err := cuq.Ensemble(nil, 2).Done(g); return err }, "no member builder"},
		{"init 0", func() error { _, err := cuq.Ensemble(cuq.GCN(), 2).Init(0).Done(g); return err }, "init 0"},
		{"sampling members", func() error { _, err := cuq.Ensemble(cuq.MCDropoutGCN(), 2).Done(g); return err }, "members with MC dropout"},
		{"bad schedule", func() error {
			bad := quick
			bad.LR = -1
			_, err := must(cuq.Ensemble(cuq.GCN(), 2).Done(g)).Fit(graph.Split{}, bad)
			return err
		}, "member 1: cuq: GCN: learning rate -1"},
		{"no samples", func() error { _, err := cuq.GCN().MCDropout(0).Done(g); return err }, "MC dropout with 0 samples"},
		{"DropEdge p = 1", func() error { _, err := cuq.GCN().DropEdge(1, 5).Done(g); return err }, "DropEdge probability 1 not in [0, 1)"},
		{"MC dropout without dropout", func() error {
			_, err := cuq.GCN().Conv(cuq.GCNConv(64).Layers(1).Dropout(0)).MCDropout(5).Done(g)
			return err
		}, "MC dropout needs dropout"},
		{"untrained", func() error { _, err := must(cuq.Ensemble(cuq.GCN(), 2).Done(g)).Predict(nil); return err }, "not trained"},
	} {
		err := c.build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// meanOf returns the mean of v.
func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// leftOutEU trains the committee e describes on g with the last two
// classes left out and returns its ID test accuracy and mean EU on the ID
// and OOD test nodes.
func leftOutEU(t *testing.T, g *graph.Graph, split graph.Split, e *cuq.EnsembleBuilder, opts ...cuq.FitOption) (acc, id, ood float64) {
	t.Helper()
	loc, err := graph.LeaveOutClasses(g, split, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Done(loc.Graph)
	if err != nil {
		t.Fatal(err)
	}
	_, pred := train(t, c, loc.Split, opts...)
	euID, err := pred.UncertaintyOf(uq.EU, loc.IDTest)
	if err != nil {
		t.Fatal(err)
	}
	euOOD, err := pred.UncertaintyOf(uq.EU, loc.OODTest)
	if err != nil {
		t.Fatal(err)
	}
	return pred.Accuracy(loc.IDTest), meanOf(euID), meanOf(euOOD)
}

// With classes left out, an ensemble's members disagree more on the
// left-out classes' nodes than on the known ones.
func TestEnsembleEUHigherOnLeftOutClasses(t *testing.T) {
	g, split := smallGraph(t)
	acc, id, ood := leftOutEU(t, g, split, cuq.Ensemble(cuq.GCN(), 5), quick)
	t.Logf("ID accuracy %.3f, mean EU: ID %.4f, OOD %.4f", acc, id, ood)
	if acc < 0.8 || ood <= id {
		t.Errorf("ID accuracy %.3f, mean EU on OOD nodes %.4f, on ID %.4f: want accuracy ≥ 0.8 and more EU on OOD", acc, ood, id)
	}
}

// On CoraML a short Ensemble-GCN (3 members, at most 150 epochs each,
// about 15 s) classifies well and has more EU on the left-out classes.
func TestEnsembleGCNOnCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("trains an ensemble on CoraML")
	}
	g, split := coraML(t)
	start := time.Now()
	acc, id, ood := leftOutEU(t, g, split, cuq.Ensemble(cuq.GCN(), 3).Name("Ensemble-GCN"), cuq.MaxEpochs(150))
	t.Logf("%v; ID accuracy %.3f, mean EU: ID %.4f, OOD %.4f", time.Since(start), acc, id, ood)
	if acc < 0.8 || ood <= id {
		t.Errorf("ID accuracy %.3f, mean EU on OOD nodes %.4f, on ID %.4f: want accuracy ≥ 0.8 and more EU on OOD", acc, ood, id)
	}
}

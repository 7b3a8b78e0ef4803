package cuq_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// smallGraph is a homophilous 4-class CSBM graph small enough to train
// every model in well under a second.
func smallGraph(t testing.TB) (*graph.Graph, graph.Split) {
	t.Helper()
	return testenv.Split(t, datasets.CSBM(400, 4).Homophily(0.9).AvgDegree(6).Features(16).FeatureSignal(2).Seed(3).Done,
		graph.Stratified(0.1, 0.2, 0.8).Seed(5))
}

// predictGaussianNoise returns g with the reference's Gaussian feature
// noise (budget 0.1, seed 42) and m's prediction on it.
func predictGaussianNoise(t *testing.T, m *cuq.Model, g *graph.Graph, split graph.Split) (*graph.Perturbed, *cuq.Prediction) {
	t.Helper()
	noisy, err := graph.PerturbFeatures(g, split, graph.Gaussian, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(noisy.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return noisy, pred
}

// fitPredict fits m on split and returns its prediction on its graph.
func fitPredict(t *testing.T, m *cuq.Model, split graph.Split, opts ...cuq.FitOption) *cuq.Prediction {
	t.Helper()
	if _, err := m.Fit(split, opts...); err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	pred, err := m.Predict(nil)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	return pred
}

var allPresets = []struct {
	name  string
	build cuq.ModelBuilder
}{
	{"APPNP", cuq.APPNP()}, {"GKDE", cuq.GKDE()}, {"GPN", cuq.GPN()}, {"LOP-GPN", cuq.LOPGPN()},
	{"CUQ-PPR", cuq.CUQPPR()}, {"CUQ-GCN", cuq.CUQGCN()}, {"CUQ-GAT", cuq.CUQGAT()},
}

// short returns m's schedule with at most epochs epochs and the given
// patience.
func short(m *cuq.Model, epochs, patience int) cuq.Schedule {
	s := m.Schedule()
	s.MaxEpochs, s.Patience = epochs, patience
	return s
}

func TestPresetsTrainAndPredict(t *testing.T) {
	g, split := smallGraph(t)
	for _, p := range allPresets {
		m, err := p.build.Done(g)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if m.Name() != p.name {
			t.Errorf("preset name %q, want %q", m.Name(), p.name)
		}
		if _, err := m.Predict(nil); err == nil {
			t.Errorf("%s: Predict before Fit should fail", p.name)
		}
		hist, err := m.Fit(split, short(m, 150, 20))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		pred, err := m.Predict(nil)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		// 4 balanced classes: chance is 25%; the graph and features make
		// the task easy.
		if acc := pred.Accuracy(split.Test); acc < 0.7 {
			t.Errorf("%s: test accuracy %.3f after %d epochs (%s)", p.name, acc, len(hist.Epochs), hist.Stopped)
		}
		for i := 0; i < g.N; i++ {
			s := 0.0
			for _, v := range pred.Prob.Row(i) {
				s += v
			}
			if math.Abs(s-1) > 1e-9 {
				t.Fatalf("%s: probabilities of node %d sum to %v", p.name, i, s)
			}
		}
		want := []uq.Measure{uq.TU, uq.AU, uq.EU, uq.EUPC, uq.EUSO, uq.LC}
		if p.name == "APPNP" {
			want = []uq.Measure{uq.TU, uq.LC}
			if _, err := pred.Uncertainty(uq.EU); err == nil || !strings.Contains(err.Error(), "APPNP has no EU") {
				t.Errorf("APPNP EU: err = %v", err)
			}
		}
		if got := pred.Available(); len(got) != len(want) {
			t.Errorf("%s: measures %v, want %v", p.name, got, want)
		}
	}
}

// Early stopping restores the parameters of the best validation epoch, so
// the validation cross entropy after Fit equals the best one recorded.
func TestEarlyStoppingRestoresBest(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.CUQGCN().Done(g))
	hist, err := m.Fit(split, short(m, 300, 10))
	if err != nil {
		t.Fatal(err)
	}
	if hist.Reason != cuq.EarlyStopping {
		t.Fatalf("stopped because %v (%q)", hist.Reason, hist.Stopped)
	}
	last := hist.Epochs[len(hist.Epochs)-1]
	if last.Epoch != hist.BestEpoch+10 {
		t.Errorf("stopped at epoch %d, best %d, patience 10", last.Epoch, hist.BestEpoch)
	}
	pred, _ := m.Predict(nil)
	ce := 0.0
	for _, i := range split.Val {
		ce -= math.Log(pred.Prob.At(i, g.Labels[i]))
	}
	ce /= float64(len(split.Val))
	if math.Abs(ce-hist.BestValCE) > 1e-9 {
		t.Errorf("validation CE after restore %v, best recorded %v", ce, hist.BestValCE)
	}
	warm := 0
	for _, e := range hist.Epochs {
		if e.Phase == cuq.WarmupPhase {
			warm++
		}
	}
	if warm != 5 {
		t.Errorf("%d warm-up epochs, want 5", warm)
	}
}

func TestSameSeedSameResult(t *testing.T) {
	g, split := smallGraph(t)
	run := func(init int) []float64 {
		m := must(cuq.GPN().Init(init).Done(g))
		if _, err := m.Fit(split, cuq.MaxEpochs(20)); err != nil {
			t.Fatal(err)
		}
		p, _ := m.Predict(nil)
		return p.EUPC
	}
	a, b, c := run(1), run(1), run(2)
	same := func(x, y []float64) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("the same seed and init must reproduce a run exactly")
	}
	if same(a, c) {
		t.Error("different inits gave identical models")
	}
}

func TestFitErrors(t *testing.T) {
	g, split := smallGraph(t)
	// finite features whose products overflow
	huge := g.Clone()
	for i, v := range huge.Features.(*tensor.Dense).Data {
		huge.Features.(*tensor.Dense).Data[i] = math.Copysign(math.MaxFloat64, v)
	}
	m := must(cuq.APPNP().Done(huge))
	_, err := m.Fit(split)
	if err == nil || !strings.Contains(err.Error(), "epoch") || !strings.Contains(err.Error(), "loss is") {
		t.Errorf("a diverging run should stop with the epoch and the loss: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m2 := must(cuq.GPN().Done(g))
	if _, err := m2.Fit(split, cuq.WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: err = %v", err)
	}
	bad := split
	bad.Train = append([]int{g.N + 3}, split.Train...)
	if _, err := must(cuq.GPN().Done(g)).Fit(bad); err == nil {
		t.Error("out-of-range training node accepted")
	}
}

func TestBuilderValidation(t *testing.T) {
	g, _ := smallGraph(t)
	cases := []struct {
		b    cuq.ModelBuilder
		want string
	}{
		{cuq.CUQ().Latent(0).Conv(cuq.GCNConv(64)), "latent dimension"},
		{cuq.CUQGAT().Conv(cuq.GATConv(8).Heads(0)), "CUQ-GAT: 0 attention heads"},
		{cuq.CUQ().Conv(cuq.GATConv(8).Heads(-2)), "CUQ-GNN: -2 attention heads"},
		{cuq.CUQ().Conv(cuq.GCNConv(8).Dropout(1)), "dropout"},
		{cuq.CUQ().Encoder(cuq.MLP()), "encoder"},
		{cuq.GKDE().Sigma(0), "sigma"},
		{cuq.CUQGCN().Init(0), "init"},
	}
	for _, c := range cases {
		_, err := c.b.Done(g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Done error %v, want one mentioning %q", err, c.want)
		}
	}
	if _, err := cuq.GPN().Done(nil); err == nil || !strings.Contains(err.Error(), "GPN: no graph") {
		t.Errorf("Done(nil) error %v, want one saying there is no graph", err)
	}
	var none *cuq.PostNetBuilder
	if _, err := cuq.ClassifierBuilder(none).Classifier(g); err == nil || !strings.Contains(err.Error(), "no model builder") {
		t.Errorf("a nil builder's Classifier: error %v", err)
	}
}

// Fit refuses a schedule it cannot run and leaves the model untrained; the
// options apply in any order, MaxEpochs capping whichever schedule runs.
func TestScheduleValidation(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.GPN().Done(g))
	for _, c := range []struct {
		edit func(*cuq.Schedule)
		want string
	}{
		{func(s *cuq.Schedule) { s.LR = 0 }, "GPN: learning rate 0 must be positive"},
		{func(s *cuq.Schedule) { s.Patience = 0 }, "patience 0"},
		{func(s *cuq.Schedule) { s.WarmupEpochs = -1 }, "warm-up -1"},
		{func(s *cuq.Schedule) { s.FlowWeightDecay = -1 }, "negative weight decay"},
	} {
		s := m.Schedule()
		c.edit(&s)
		if _, err := m.Fit(split, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit error %v, want one containing %q", err, c.want)
		}
	}
	if _, err := m.Predict(nil); err == nil {
		t.Error("Predict after refused Fits should fail: the model is untrained")
	}
	if got, want := m.Schedule(), cuq.PostNetSchedule(); got != want {
		t.Errorf("GPN's schedule %+v, want PostNetSchedule %+v", got, want)
	}
	s := m.Schedule()
	s.WarmupEpochs, s.MaxEpochs = 2, 50
	hist, err := m.Fit(split, cuq.MaxEpochs(3), s)
	if err != nil {
		t.Fatal(err)
	}
	if hist.WarmupEpochs() != 2 || hist.TrainEpochs() != 3 {
		t.Errorf("Fit(MaxEpochs(3), schedule with 2 warm-up and 50 epochs) ran %d warm-up and %d epochs, want 2 and 3", hist.WarmupEpochs(), hist.TrainEpochs())
	}
}

// Multi-head GAT: the hidden layer concatenates its heads (the second layer
// sees heads·hidden features) and the last layer averages them, so the
// latent projection reads hidden features as with one head.
func TestMultiHeadGAT(t *testing.T) {
	g, split := smallGraph(t)
	const hidden, heads = 8, 3
	build := func(h int) *cuq.Model {
		return must(cuq.CUQ().Conv(cuq.GATConv(hidden).Heads(h)).Done(g))
	}
	one, m := build(1), build(heads)
	// per layer: W, a_src and a_dst, bias
	layer := func(in, h int, concat bool) int {
		n := in*h*hidden + 2*h*hidden + hidden
		if concat {
			n += (h - 1) * hidden
		}
		return n
	}
	want := layer(64, heads, true) + layer(heads*hidden, heads, false) - layer(64, 1, true) - layer(hidden, 1, false)
	if got := m.NumParams() - one.NumParams(); got != want {
		t.Errorf("%d heads add %d parameters, want %d", heads, got, want)
	}
	if acc := fitPredict(t, m, split, short(m, 100, 20)).Accuracy(split.Test); acc < 0.7 {
		t.Errorf("%d-head GAT: accuracy %.3f", heads, acc)
	}
}

// Parts recombine: a GCN before the head together with evidence pooling
// (log-linear) or a mixture (linear) trains like the presets.
func TestConvolutionWithEvidencePooling(t *testing.T) {
	g, split := smallGraph(t)
	for _, pool := range []cuq.Pooling{cuq.LogLinear, cuq.Linear} {
		m, err := cuq.CUQ().Conv(cuq.GCNConv(16).Layers(1)).Pooling(pool).Done(g)
		if err != nil {
			t.Fatal(err)
		}
		if acc := fitPredict(t, m, split, cuq.MaxEpochs(100)).Accuracy(split.Test); acc < 0.7 {
			t.Errorf("GCN with %s pooling: accuracy %.3f", pool, acc)
		}
	}
}

// Predict evaluates a trained model on a graph with perturbed features
// (evasion), as the feature-noise OOD settings do.
func TestPredictOnPerturbedGraph(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.CUQGCN().Done(g))
	clean := fitPredict(t, m, split, short(m, 100, 20))
	pert, noisy := predictGaussianNoise(t, m, g, split)
	changed := 0
	for _, i := range pert.Nodes {
		if noisy.EUPC[i] != clean.EUPC[i] {
			changed++
		}
	}
	if changed < len(pert.Nodes)/2 {
		t.Errorf("only %d of %d perturbed nodes changed their pseudo-counts", changed, len(pert.Nodes))
	}
	other, _ := datasets.CSBM(50, 4).Seed(1).Done()
	if _, err := m.Predict(other); err == nil {
		t.Error("a graph of another size was accepted")
	}
}

func TestPredictionARCAndAUROC(t *testing.T) {
	g, split := smallGraph(t)
	pred := fitPredict(t, must(cuq.CUQPPR().Done(g)), split, cuq.MaxEpochs(100))
	curve, err := pred.ARC(uq.EUPC, split.Test)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve.Acc) != 101 || math.Abs(curve.Acc[0]-pred.Accuracy(split.Test)) > 1e-12 {
		t.Errorf("ARC starts at %v, accuracy %v", curve.Acc[0], pred.Accuracy(split.Test))
	}
	// The ID set against itself is indistinguishable: AUROC 1/2.
	if auc, err := pred.AUROC(uq.TU, split.Test, split.Test); err != nil || math.Abs(auc-0.5) > 1e-12 {
		t.Errorf("AUROC of a set against itself = %v (%v)", auc, err)
	}
	if _, err := pred.ARC(uq.Measure(99), split.Test); err == nil {
		t.Error("unknown measure accepted")
	}
	nodes := []int{split.Test[3], split.Test[0], split.Test[3]}
	got, err := pred.UncertaintyOf(uq.EUPC, nodes)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range nodes {
		if got[k] != pred.EUPC[i] {
			t.Errorf("UncertaintyOf: value %d is %v, want EU_PC of node %d = %v", k, got[k], i, pred.EUPC[i])
		}
	}
	if _, err := pred.UncertaintyOf(uq.TU, []int{g.N}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d outside the %d nodes", g.N, g.N)) {
		t.Errorf("node out of range: err = %v", err)
	}
}

// A built model owns its configuration: changing the builder's parts (the
// encoder and convolution configurations) after Done leaves the model's
// training as it was built, and the next Done takes the change.
func TestBuiltModelOwnsItsConfiguration(t *testing.T) {
	g, split := smallGraph(t)
	steps := func(m *cuq.Model) []float64 {
		var losses []float64
		for range 3 {
			v, err := m.Step(split)
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, v)
		}
		return losses
	}
	want := steps(must(cuq.CUQ().Encoder(cuq.MLP(32)).Conv(cuq.GCNConv(16)).Done(g)))

	enc, conv := cuq.MLP(32), cuq.GCNConv(16)
	b := cuq.CUQ().Encoder(enc).Conv(conv)
	m := must(b.Done(g))
	enc.Dropout(0)
	conv.Dropout(0)
	got := steps(m)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("losses after changing the encoder and convolution configurations: %v, want %v as built", got, want)
		}
	}
	if again := steps(must(b.Done(g))); again[0] == want[0] {
		t.Errorf("a Done after the change ignored it: loss %v", again[0])
	}
}

// GKDE's evidence belongs to the graph it was fitted on; the other models
// run on any graph of the same size and feature width.
func TestGKDEStaysOnItsGraph(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.GKDE().Done(g))
	if _, err := m.Forward(nil); err == nil || !strings.Contains(err.Error(), "cuq: GKDE: not fitted") {
		t.Errorf("Forward before Fit: err = %v", err)
	}
	if _, err := m.Step(split); err == nil || !strings.Contains(err.Error(), "GKDE has no parameters to train") {
		t.Errorf("Step: err = %v", err)
	}
	hist, err := m.Fit(split)
	if err != nil || hist.Reason != cuq.NothingToTrain || len(hist.Epochs) != 0 {
		t.Fatalf("Fit: %+v, %v", hist, err)
	}
	alpha, err := m.Forward(nil)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range alpha.Data {
		if a != pred.Alpha.Data[i] {
			t.Fatalf("Forward and Predict disagree on α[%d]: %v, %v", i, a, pred.Alpha.Data[i])
		}
	}
	rewired := g.Clone()
	for _, f := range []func(*graph.Graph) error{
		func(h *graph.Graph) error { _, err := m.Forward(h); return err },
		func(h *graph.Graph) error { _, err := m.Predict(h); return err },
	} {
		if err := f(rewired); err == nil || !strings.Contains(err.Error(), "belongs to the graph it was fitted on") {
			t.Errorf("another adjacency: err = %v", err)
		}
	}
}

func TestUnknownPooling(t *testing.T) {
	g, _ := smallGraph(t)
	if _, err := cuq.CUQ().Pooling(cuq.Pooling(7)).Done(g); err == nil || !strings.Contains(err.Error(), "unknown pooling Pooling(7)") {
		t.Errorf("err = %v", err)
	}
}

// StopAt tells a progress bar when early stopping will end training if the
// validation loss stops improving.
func TestEpochStatsStopAt(t *testing.T) {
	g, split := smallGraph(t)
	var last cuq.EpochStats
	m := must(cuq.CUQPPR().Done(g))
	s := short(m, 400, 7)
	s.EvalEvery = 2
	hist, err := m.Fit(split, s, cuq.OnEpoch(func(e cuq.EpochStats) {
		if e.Phase == cuq.TrainPhase {
			if e.Best && e.StopAt != min(400, e.Epoch+14) {
				t.Errorf("epoch %d improved: StopAt %d, want %d", e.Epoch, e.StopAt, e.Epoch+14)
			}
			last = e
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if last.StopAt != last.Epoch {
		t.Errorf("training ended at epoch %d, the last StopAt was %d (%s)", last.Epoch, last.StopAt, hist.Stopped)
	}
}

// Progress lines print the phase with %s: "warmup" and "train".
func TestPhaseAndStopReasonNames(t *testing.T) {
	for v, want := range map[fmt.Stringer]string{
		cuq.WarmupPhase: "warmup", cuq.TrainPhase: "train", cuq.Phase(5): "Phase(5)",
		cuq.EarlyStopping: "early stopping", cuq.Interrupted: "interrupted", cuq.StopReason(9): "StopReason(9)",
	} {
		if got := v.String(); got != want {
			t.Errorf("%#v prints %q, want %q", v, got, want)
		}
	}
}

// A run gives the same numbers to the bit whatever the number of cores:
// every parallel kernel splits its work by fixed blocks of nodes and sums
// in a fixed order. (Before the radial flows summed their parameter
// gradients per worker, GPN's loss differed from the third epoch on
// between one and two cores.)
func TestSameResultOnAnyNumberOfCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	g, split := smallGraph(t)
	for _, p := range allPresets {
		if p.name == "GKDE" {
			continue
		}
		run := func(procs int) []float64 {
			runtime.GOMAXPROCS(procs)
			m := must(p.build.Done(g))
			if _, err := m.Fit(split, cuq.MaxEpochs(8)); err != nil {
				t.Fatal(err)
			}
			out, err := m.Forward(nil)
			if err != nil {
				t.Fatal(err)
			}
			return out.Data
		}
		want := run(1)
		for _, procs := range []int{2, 3} {
			for i, v := range run(procs) {
				if math.Float64bits(v) != math.Float64bits(want[i]) {
					t.Fatalf("%s on %d cores: output %d is %v, %v on one core", p.name, procs, i, v, want[i])
				}
			}
		}
	}
}

// must returns v, or panics with err: for builds that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

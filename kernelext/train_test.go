package kernelext

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func TestTrainCachesTheRun(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	g, split := csbm(t, 150, 3, graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	noisy, err := graph.PerturbFeatures(g, split, graph.Gaussian, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	model := func() *cuq.PostNetBuilder { return cuq.CUQPPR() }
	epochs := MaxEpochs(20)
	first, err := Train(model(), g, split, EvaluateOn("gaussian", noisy.Graph), epochs, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if first.Model != "CUQ-PPR" || first.Pred.Graph != g || first.On["gaussian"].Graph != noisy.Graph {
		t.Fatalf("run %s: graphs not attached", first.Model)
	}
	if first.Stats.TrainEpochs+first.Stats.WarmupEpochs != len(first.History.Epochs) || first.Stats.WarmupEpochs != 5 || first.Stats.PeakRSS <= 0 {
		t.Errorf("stats %+v do not match the history (%d epochs)", first.Stats, len(first.History.Epochs))
	}
	// The noisy graph's prediction differs from the clean one on the noisy
	// nodes only.
	i := noisy.OODTest[0]
	if first.On["gaussian"].TU[i] == first.Pred.TU[i] {
		t.Errorf("node %d: the same TU on the clean and the noisy graph", i)
	}
	again, err := Train(model(), g, split, EvaluateOn("gaussian", noisy.Graph), epochs, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if len(again.History.Epochs) != len(first.History.Epochs) || again.Stats.FitSeconds != first.Stats.FitSeconds {
		t.Error("the second Train trained again instead of reading the cached run")
	}
	for k := range first.Pred.TU {
		if math.Float64bits(again.Pred.TU[k]) != math.Float64bits(first.Pred.TU[k]) {
			t.Fatalf("cached TU differs at node %d", k)
		}
	}
	// Another seed trains again.
	other, err := Train(model().Seed(9), g, split, epochs, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if other.Stats.FitSeconds == first.Stats.FitSeconds && other.Pred.TU[0] == first.Pred.TU[0] {
		t.Error("a new seed returned the cached run")
	}
	shorter, err := Train(model(), g, split, MaxEpochs(3), Quiet())
	if err != nil || shorter.Stats.TrainEpochs != 3 {
		t.Errorf("MaxEpochs(3) trained %d epochs (error %v): the schedule is not part of the key", shorter.Stats.TrainEpochs, err)
	}
	bad := cuq.PostNetSchedule()
	bad.LR = -1
	if _, err := Train(model(), g, split, Schedule(bad), Quiet()); err == nil || !strings.Contains(err.Error(), "learning rate -1") {
		t.Errorf("a bad schedule: error %v", err)
	}
	if _, err := Train(model().Init(0), g, split, Quiet()); err == nil {
		t.Error("a bad builder trained")
	}
	if _, err := Train(model(), g, split, EvaluateOn("none", nil)); err == nil || !strings.Contains(err.Error(), `"none" is nil`) {
		t.Errorf("nil evaluation graph: error %v", err)
	}
	tb, err := first.Stats.Table("stats")
	if err != nil || len(tb.Rows) < 5 || !strings.Contains(tb.Rows[0][1], "150 nodes") {
		t.Errorf("stats table %v, %v", tb, err)
	}
}

// TestTrainEnsemble trains a deep ensemble through the same call, cached
// under its whole configuration: another ensemble size trains again.
func TestTrainEnsemble(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	g, split := csbm(t, 150, 3, graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	ensemble := func(m int) *cuq.EnsembleBuilder { return cuq.Ensemble(cuq.GCN(), m) }
	run, err := Train(ensemble(3), g, split, MaxEpochs(10), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	member, err := cuq.GCN().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	if run.Model != "Ensemble-GCN" || run.Params != 3*member.NumParams() || run.Pred.Graph != g || len(run.History.Members) != 3 {
		t.Fatalf("run %s with %d parameters, %d member histories", run.Model, run.Params, len(run.History.Members))
	}
	if run.Pred.EU == nil {
		t.Error("the ensemble's prediction has no EU")
	}
	again, err := Train(ensemble(3), g, split, MaxEpochs(10), Quiet())
	if err != nil || again.Stats.FitSeconds != run.Stats.FitSeconds {
		t.Errorf("the same ensemble trained again: %v", err)
	}
	bigger, err := Train(ensemble(4), g, split, MaxEpochs(10), Quiet())
	if err != nil || len(bigger.History.Members) != 4 {
		t.Errorf("a larger ensemble: %v", err)
	}
	var none *cuq.EnsembleBuilder
	if _, err := Train(none, g, split); err == nil || !strings.Contains(err.Error(), "no ensemble builder") {
		t.Errorf("nil ensemble builder: %v", err)
	}
}

// TestTrainUnwritableCacheReturnsTheRun checks that Train returns a run it
// finished, with a warning, when the cache cannot hold it.
func TestTrainUnwritableCacheReturnsTheRun(t *testing.T) {
	var warned bytes.Buffer
	defer func(w io.Writer) { warnings = w }(warnings)
	warnings = &warned
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cuqgnn-cache"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GONB_TMP_DIR", dir)
	g, split := csbm(t, 60, 1, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	run, err := Train(cuq.CUQPPR(), g, split, MaxEpochs(2), Quiet())
	if err != nil {
		t.Fatalf("Train: %v", err)
	}
	if run == nil || run.Pred == nil || run.Pred.Graph != g || len(run.Pred.TU) != g.N {
		t.Fatalf("Train returned run %+v without its prediction", run)
	}
	if !strings.Contains(warned.String(), "not cached") {
		t.Errorf("warning %q, want one saying the run is not cached", warned.String())
	}
}

// TestTrainCollapse checks the validation figures of a run and the warning
// of a collapsed one: on a graph whose features and edges carry nothing of
// the classes, a GPN trained to its early stop stays near chance, while a
// run cut by MaxEpochs is unfinished rather than collapsed, and GKDE, which
// does not train, never collapses.
func TestTrainCollapse(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	g, split := testenv.Split(t, datasets.CSBM(150, 3).Homophily(1.0/3).FeatureSignal(0).Seed(4).Done, graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	var warned bytes.Buffer
	defer func(w io.Writer) { warnings = w }(warnings)
	warnings = &warned
	patient := cuq.PostNetSchedule()
	patient.Patience = 5
	stuck, err := Train(cuq.GPN(), g, split, Schedule(patient), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[int]int{}
	top, right := 0, 0
	for _, n := range split.Val {
		counts[g.Labels[n]]++
		top = max(top, counts[g.Labels[n]])
		if stuck.Pred.Class[n] == g.Labels[n] {
			right++
		}
	}
	s := stuck.Stats
	if s.ValAccuracy != float64(right)/float64(len(split.Val)) || s.Chance != float64(top)/float64(len(split.Val)) {
		t.Errorf("validation accuracy %v, chance %v; want %d and %d of %d", s.ValAccuracy, s.Chance, right, top, len(split.Val))
	}
	if !s.Collapsed() || !strings.Contains(warned.String(), "GPN's training on "+g.Name+" collapsed") {
		t.Errorf("accuracy %v at chance %v: collapsed %v, warning %q", s.ValAccuracy, s.Chance, s.Collapsed(), warned.String())
	}
	table, err := s.Table("run")
	if err != nil {
		t.Fatal(err)
	}
	if html := table.HTML(); !strings.Contains(html, ": collapsed") {
		t.Errorf("the table does not mark the collapse:\n%s", html)
	}
	warned.Reset()
	for _, preset := range []cuq.ClassifierBuilder{cuq.GKDE(), cuq.GPN()} {
		r, err := Train(preset, g, split, MaxEpochs(2), Quiet())
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.Chance != 0 || r.Stats.Collapsed() || warned.Len() != 0 || r.Stats.ValAccuracy <= 0 {
			t.Errorf("%s (%s): validation accuracy %v, chance %v, warning %q", r.Model, r.History.Stopped, r.Stats.ValAccuracy, r.Stats.Chance, warned.String())
		}
	}
}

package kernelext

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// TestTrainInitsIsTrainPerInit trains three inits at once and checks each
// against the same init trained alone by Train, bit for bit; the inits
// differ from each other, a second call reads them from the cache, and the
// comparison displays give their mean ± standard error.
func TestTrainInitsIsTrainPerInit(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	g, split := csbm(t, 150, 5, graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	preset := func(k int) cuq.ClassifierBuilder { return cuq.CUQGCN().Init(k) }
	runs, err := TrainInits(preset, g, split, 3, MaxEpochs(15), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	again, err := TrainInits(preset, g, split, 3, MaxEpochs(15), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	Forget("train")
	for k, r := range runs {
		alone, err := Train(preset(k+1), g, split, MaxEpochs(15), Quiet())
		if err != nil {
			t.Fatal(err)
		}
		if r.Pred.Graph != g || again[k].Stats.FitSeconds != r.Stats.FitSeconds {
			t.Errorf("init %d: graph not attached, or trained again instead of read from the cache", k+1)
		}
		for _, m := range []uq.Measure{uq.TU, uq.AU, uq.EU} {
			a, err1 := r.Pred.Uncertainty(m)
			b, err2 := alone.Pred.Uncertainty(m)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("init %d, %v of node %d: %v trained with the others, %v alone", k+1, m, i, a[i], b[i])
				}
			}
		}
	}
	if runs[0].Pred.TU[0] == runs[1].Pred.TU[0] && runs[1].Pred.TU[0] == runs[2].Pred.TU[0] {
		t.Error("the three inits predict the same TU for node 0")
	}

	cr := ChartRuns(split.Test, nil, append(runs, nil)...)
	if len(cr) != 3 || cr[0].Label != "CUQ-GCN" || cr[2].Pred != runs[2].Pred || len(cr[1].Nodes) != len(split.Test) {
		t.Fatalf("chart runs %+v", cr)
	}
	var acc []float64
	for _, r := range cr {
		right, _, err := r.Pred.SplitByCorrectness(r.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		acc = append(acc, 100*float64(len(right))/float64(len(r.Nodes)))
	}
	tb, err := chart.Results("test accuracy").Add("CUQ-GCN", "", "acc", acc[0]).Add("CUQ-GCN", "", "acc", acc[1]).Add("CUQ-GCN", "", "acc", acc[2]).Done()
	if err != nil {
		t.Fatal(err)
	}
	mean := (acc[0] + acc[1] + acc[2]) / 3
	var ss float64
	for _, a := range acc {
		ss += (a - mean) * (a - mean)
	}
	want := []string{"CUQ-GCN", "3", strconv.FormatFloat(mean, 'f', 1, 64) + " ± " + strconv.FormatFloat(math.Sqrt(ss/2)/math.Sqrt(3), 'f', 1, 64)}
	if got := tb.Rows[0]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("results row %q, want %q", got, want)
	}
}

// TestTrainInitsErrors checks TrainInits' refusals, and that a failed init
// leaves the others' runs.
func TestTrainInitsErrors(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	g, split := csbm(t, 60, 1, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	gpn := func(k int) cuq.ClassifierBuilder { return cuq.GPN().Init(k) }
	shared := cuq.GPN()
	for _, c := range []struct {
		preset func(int) cuq.ClassifierBuilder
		n      int
		want   string
	}{
		{nil, 2, "nil preset"},
		{gpn, 0, "0 inits, want at least 1"},
		{func(int) cuq.ClassifierBuilder { return nil }, 2, "preset(1) gave no builder"},
		{func(k int) cuq.ClassifierBuilder { return shared.Init(k) }, 2, "preset(1) and preset(2) gave the same builder"},
		{func(int) cuq.ClassifierBuilder { return cuq.GPN() }, 3, "inits 1 and 2 describe the same model"},
		// Builders that are not comparable are compared by their keys.
		{func(k int) cuq.ClassifierBuilder { return listBuilder{k} }, 2, "2 of 2 inits failed: init 1: list builder [1] builds nothing\ninit 2: list builder [2] builds nothing"},
		{func(int) cuq.ClassifierBuilder { return listBuilder{} }, 1, "init 1: kernelext: the preset kernelext.listBuilder built no classifier"},
	} {
		if _, err := TrainInits(c.preset, g, split, c.n, MaxEpochs(2), Quiet()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := TrainInits(gpn, g, split, 2, EvaluateOn("none", nil)); err == nil || !strings.Contains(err.Error(), `kernelext.TrainInits: evaluation graph "none" is nil`) {
		t.Errorf("nil evaluation graph: error %v", err)
	}

	// Two-epoch runs may warn of a collapse: not in the test's output.
	defer func(w io.Writer) { warnings = w }(warnings)
	warnings = io.Discard
	// Init 2's dropout stream is out of range: it fails, 1 and 3 train.
	broken := func(k int) cuq.ClassifierBuilder {
		b := cuq.GPN().Init(k)
		if k == 2 {
			b.DropoutStream(1 << 30)
		}
		return b
	}
	runs, err := TrainInits(broken, g, split, 3, MaxEpochs(2), Quiet())
	if err == nil || !strings.Contains(err.Error(), "1 of 3 inits failed") || !strings.Contains(err.Error(), "init 2: ") {
		t.Fatalf("error %v, want one naming init 2", err)
	}
	if len(runs) != 3 || runs[0] == nil || runs[1] != nil || runs[2] == nil {
		t.Fatalf("runs %v: want those of inits 1 and 3", runs)
	}
}

// TestTrainInitsShowsWhatItTrains checks the cell output of TrainInits:
// a progress bar over the inits it trains, and one note naming those it
// read from the cache; no bar when it trains none.
func TestTrainInitsShowsWhatItTrains(t *testing.T) {
	t.Cleanup(func() { Forget("train") })
	cachedMu.Lock()
	cachedID, cachedNotes = "", nil
	cachedMu.Unlock()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// What earlier tests sent and no one read is not this test's output.
	for flushed := false; !flushed; {
		select {
		case <-messages:
		case <-time.After(100 * time.Millisecond):
			flushed = true
		}
	}
	g, split := csbm(t, 60, 2, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	gpn := func(k int) cuq.ClassifierBuilder { return cuq.GPN().Init(k) }
	if _, err := TrainInits(gpn, g, split, 1, MaxEpochs(3), Quiet()); err != nil {
		t.Fatal(err)
	}
	if _, err := TrainInits(gpn, g, split, 3, MaxEpochs(3), AtOnce(1)); err != nil {
		t.Fatal(err)
	}
	var bar, note string
	for bar == "" || note == "" {
		h := nextHTML(t)
		switch {
		case strings.Contains(h, "&#10003; training 2 inits on"):
			bar = h
		case strings.Contains(h, "trained earlier"):
			note = h
		case !strings.Contains(h, "training 2 inits on "+g.Name+", 1 at once"):
			t.Fatalf("unexpected output %q", h)
		}
	}
	if !strings.Contains(bar, "2 done in") || !strings.Contains(note, "GPN init 1: trained earlier") {
		t.Errorf("bar %q and note %q: want 2 inits trained and init 1 read from the cache", bar, note)
	}
	if _, err := TrainInits(gpn, g, split, 3, MaxEpochs(3)); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, "GPN init 1; GPN inits 1, 2, 3: trained earlier") {
		t.Errorf("output %q, want only the note of the three cached inits", h)
	}
}

// listBuilder is a builder that == cannot compare, and that builds nothing:
// an error, or no error and no classifier when empty.
type listBuilder []int

func (l listBuilder) Classifier(*graph.Graph) (cuq.Classifier, error) {
	if len(l) == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("list builder %v builds nothing", []int(l))
}

// TestEvaluateShiftsInits evaluates two inits under Gaussian noise and
// leave-out classes side by side and checks every run against
// EvaluateShifts of the same init, bit for bit; the AUROC table of a
// setting then averages the two inits.
func TestEvaluateShiftsInits(t *testing.T) {
	t.Cleanup(func() { Forget("shifts") })
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	g, split, noisy, left := shiftsCase(t)
	preset := func(k int) cuq.ClassifierBuilder { return cuq.CUQPPR().Init(k) }
	runs, err := EvaluateShiftsInits(preset, g, split, 2, noisy, MaxEpochs(6), left, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || len(runs[0]) != 2 || len(runs[1]) != 2 || len(runs[2]) != 2 {
		t.Fatalf("runs %v: want 3 settings of 2 inits", runs)
	}
	Forget("shifts")
	for k := range 2 {
		alone, err := EvaluateShifts(preset(k+1), g, split, noisy, MaxEpochs(6), left, Quiet())
		if err != nil {
			t.Fatal(err)
		}
		for s, want := range alone {
			got := runs[s][k]
			if got.Label != want.Label || !slices.Equal(got.Nodes, want.Nodes) || !slices.Equal(got.OOD, want.OOD) {
				t.Fatalf("setting %d, init %d: run %s with %d / %d nodes, want %s with %d / %d", s, k+1,
					got.Label, len(got.Nodes), len(got.OOD), want.Label, len(want.Nodes), len(want.OOD))
			}
			a, b := got.Pred.(*cuq.Prediction), want.Pred.(*cuq.Prediction)
			if a.Graph != b.Graph {
				t.Errorf("setting %d, init %d: predicted on another graph", s, k+1)
			}
			for _, m := range []uq.Measure{uq.TU, uq.AU, uq.EU} {
				if !slices.EqualFunc(a.Get(m), b.Get(m), func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
					t.Fatalf("setting %d, init %d: %v differs from EvaluateShifts'", s, k+1, m)
				}
			}
		}
	}
	if slices.Equal(runs[1][0].Pred.(*cuq.Prediction).TU, runs[1][1].Pred.(*cuq.Prediction).TU) {
		t.Error("the two inits predict the same TU under noise")
	}
	tb, err := chart.AUROCTableOfRuns(runs[2]...)
	if err != nil {
		t.Fatal(err)
	}
	if row := tb.Rows[0]; row[0] != "CUQ-PPR" || row[1] != "2" || !strings.Contains(row[2], " ± ") {
		t.Errorf("AUROC row %q, want CUQ-PPR over 2 runs with a standard error", row)
	}

	for _, c := range []struct {
		shifts []any
		n      int
		want   string
	}{
		{[]any{noisy}, 0, "0 inits, want at least 1"},
		{[]any{"loc"}, 2, "shift 0 is a string"},
	} {
		if _, err := EvaluateShiftsInits(preset, g, split, c.n, c.shifts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := EvaluateShiftsInits(preset, nil, split, 2); err == nil || !strings.Contains(err.Error(), "nil graph") {
		t.Errorf("nil graph: error %v", err)
	}
}

// BenchmarkTrainInits trains four inits of GPN on datasets.Synthetic (a
// CoraML-shaped graph) for 50 epochs each, one after another with Train
// and side by side with TrainInits; compare the two sub-benchmarks' times.
func BenchmarkTrainInits(b *testing.B) {
	g, split := testenv.Split(b, datasets.Synthetic, graph.Stratified(0.05, 0.15, 0.8))
	gpn := func(k int) cuq.ClassifierBuilder { return cuq.GPN().Init(k) }
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			Forget("train")
			for k := 1; k <= 4; k++ {
				if _, err := Train(gpn(k), g, split, MaxEpochs(50), Quiet()); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("side_by_side", func(b *testing.B) {
		for b.Loop() {
			Forget("train")
			if _, err := TrainInits(gpn, g, split, 4, MaxEpochs(50), Quiet()); err != nil {
				b.Fatal(err)
			}
		}
	})
	Forget("train")
}

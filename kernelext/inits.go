package kernelext

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// TrainInits trains inits 1 … n of one model on g and split, as Train
// trains each, and returns their runs in init order: preset(k) describes
// init k, a new builder each call, such as
//
//	func(k int) cuq.ClassifierBuilder { return cuq.GPN().Init(k) }
//
// The inits differ only in their initial parameters (cuq.Seeding.Init),
// so the spread of their results is what the initialisation alone moves,
// and ChartRuns gives the comparison displays their mean ± standard error
// s/√n, s the sample standard deviation.
//
// Up to GOMAXPROCS inits train at once, under one progress bar. A small
// graph's epoch leaves cores idle, so inits side by side finish sooner:
// four inits of GPN, CUQ-GCN or APPNP on CoraML or CiteSeer, two at a time
// on two cores, took 58–81% of their time one after another. Each run is
// that of Train with the same options, bit for bit, and is cached as Train
// caches it: the runs share only the graphs, which they read.
//
// TrainInits returns an error for n < 1, for a preset that gives no
// builder or one builder twice (a builder is changed by its options, so
// two inits would train the last one's settings), and for two inits that
// describe the same model (preset ignores k). When some inits fail, it
// returns the runs of the others, nil in place of the failed ones, with an
// error naming each failure.
func TrainInits(preset func(init int) cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, n int, opts ...TrainOption) ([]*Run, error) {
	const op = "kernelext.TrainInits"
	switch {
	case preset == nil || g == nil:
		return nil, fmt.Errorf("%s: nil preset or graph", op)
	case n < 1:
		return nil, fmt.Errorf("%s: %d inits, want at least 1", op, n)
	}
	o, err := trainOptionsOf(opts)
	if err != nil {
		return nil, err
	}
	// The builders and keys are taken one after the other, before any
	// training reads the graph.
	builders := make([]cuq.ClassifierBuilder, n)
	keys := make([]Key, n)
	initOf := map[Key]int{}
	for k := range builders {
		b := preset(k + 1)
		if b == nil {
			return nil, fmt.Errorf("%s: preset(%d) gave no builder", op, k+1)
		}
		for j, earlier := range builders[:k] {
			if sameBuilder(earlier, b) {
				return nil, fmt.Errorf("%s: preset(%d) and preset(%d) gave the same builder; build a new one for each init (cuq.GPN().Init(k))", op, j+1, k+1)
			}
		}
		builders[k], keys[k] = b, trainKey(b, g, split, o)
		if j, ok := initOf[keys[k]]; ok {
			return nil, fmt.Errorf("%s: inits %d and %d describe the same model; let preset set the init (its builder's Init(k))", op, j, k+1)
		}
		initOf[keys[k]] = k + 1
	}

	// The bar counts the inits not cached earlier.
	pending := make([]bool, n)
	toTrain := 0
	for k, key := range keys {
		if pending[k] = !stored(key); pending[k] {
			toTrain++
		}
	}
	at := min(n, runtime.GOMAXPROCS(0))
	var bar *Progress
	if toTrain > 0 && !o.quiet {
		bar = NewProgress(fmt.Sprintf("training %d %s on %s, %d at once", toTrain, initsWord(toTrain), g.Name, min(toTrain, at)))
		bar.unit = "trained"
		bar.Update(0, toTrain, "")
	}
	quiet := o
	quiet.quiet = true
	runs := make([]*Run, n)
	errs := make([]error, n)
	fresh := make([]bool, n)
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range at {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				runs[k], fresh[k], errs[k] = cachedTrain(keys[k], builders[k], g, split, quiet)
				if bar != nil && pending[k] {
					mu.Lock()
					done++
					bar.Update(done, toTrain, initNote(k+1, runs[k], errs[k]))
					mu.Unlock()
				}
			}
		}()
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()

	var failed []error
	var cached []string
	for k, err := range errs {
		switch {
		case err != nil:
			failed = append(failed, fmt.Errorf("init %d: %w", k+1, err))
		case !fresh[k]:
			cached = append(cached, fmt.Sprint(k+1))
		}
	}
	if len(cached) > 0 && !o.quiet {
		noteCached(fmt.Sprintf("%s %s %s", runName(runs), initsWord(len(cached)), strings.Join(cached, ", ")))
	}
	if len(failed) > 0 {
		return runs, fmt.Errorf("%s: %d of %d inits failed: %w", op, len(failed), n, errors.Join(failed...))
	}
	return runs, nil
}

// sameBuilder reports whether a and b are one builder, the same pointer.
// Builders of other kinds (values, which may not be comparable) are never
// the same.
func sameBuilder(a, b cuq.ClassifierBuilder) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && va.Type() == vb.Type() && va.Pointer() == vb.Pointer()
}

// initsWord is "init" for one init, "inits" for n.
func initsWord(n int) string {
	if n == 1 {
		return "init"
	}
	return "inits"
}

// initNote describes a finished init for the progress bar.
func initNote(init int, r *Run, err error) string {
	if err != nil {
		return fmt.Sprintf("init %d failed", init)
	}
	return fmt.Sprintf("init %d: %s, %d epochs, validation accuracy %.1f%%", init, r.Model, len(r.History.Epochs), 100*r.Stats.ValAccuracy)
}

// runName returns the model name of the first run that has one.
func runName(runs []*Run) string {
	for _, r := range runs {
		if r != nil {
			return r.Model
		}
	}
	return ""
}

// ChartRuns returns the predictions of runs on the training graph as runs
// of the comparison displays (chart.ARCOfRuns, chart.ReliabilityOfRuns,
// chart.AUROCTableOfRuns, ...), each labelled with its model's name and
// evaluated on nodes (with ood as its OOD nodes, which may be nil). Runs
// of one model, such as TrainInits gives, share a label, and the displays
// show their mean ± standard error. Nil runs (failed inits) are left out.
func ChartRuns(nodes, ood []int, runs ...*Run) []chart.Run {
	out := make([]chart.Run, 0, len(runs))
	for _, r := range runs {
		if r != nil {
			out = append(out, chart.Run{Label: r.Model, Pred: r.Pred, Nodes: nodes, OOD: ood})
		}
	}
	return out
}

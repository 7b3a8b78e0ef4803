package kernelext

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
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
// Up to GOMAXPROCS inits train at once (AtOnce sets another cap), under
// one progress bar. A small graph's epoch leaves cores idle, so inits side
// by side finish sooner: four inits of GPN, CUQ-GCN or APPNP on CoraML or
// CiteSeer, two at a time on two cores, took 58–81% of their time one
// after another (BenchmarkTrainInits times GPN on datasets.Synthetic).
// Each run is that of Train with the same options, bit for bit, and is
// cached as Train caches it: the runs share only the graphs, which they
// read.
//
// TrainInits returns an error for n < 1, for a preset that gives no
// builder or one builder twice (a builder is changed by its options, so
// two inits would train the last one's settings), and for two inits that
// describe the same model (preset ignores k). When some inits fail, it
// returns the runs of the others, nil in place of the failed ones, with an
// error naming each failure.
func TrainInits(preset func(init int) cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, n int, opts ...TrainOption) ([]*Run, error) {
	const op = "kernelext.TrainInits"
	if g == nil {
		return nil, fmt.Errorf("%s: nil graph", op)
	}
	o, err := trainOptionsOf(op, opts)
	if err != nil {
		return nil, err
	}
	builders, keys, err := initBuilders(op, preset, n, func(b cuq.ClassifierBuilder) Key { return trainKey(b, g, split, o) })
	if err != nil {
		return nil, err
	}
	quiet := o
	quiet.quiet = true
	runs := make([]*Run, n)
	cached, err := sideBySide(op, "training", g, keys, o, func(k int) (initDone, error) {
		run, fresh, err := cachedTrain(keys[k], builders[k], g, split, quiet)
		if err != nil {
			return initDone{}, err
		}
		runs[k] = run
		return initDone{model: run.Model, note: fmt.Sprintf("%d epochs, validation accuracy %.1f%%", len(run.History.Epochs), 100*run.Stats.ValAccuracy), fresh: fresh}, nil
	})
	if len(cached) > 0 && !o.quiet {
		inits := make([]string, len(cached))
		for k, i := range cached {
			inits[k] = strconv.Itoa(i)
		}
		noteCached(fmt.Sprintf("%s %s %s", runs[cached[0]-1].Model, initsWord(len(cached)), strings.Join(inits, ", ")))
	}
	return runs, err
}

// EvaluateShiftsInits is EvaluateShifts for inits 1 … n of one model,
// evaluated side by side as TrainInits trains them: preset(k) describes
// init k, a new builder each call. It returns the runs by setting:
// runs[0] holds the inits' runs on g (the test nodes of split), runs[s+1]
// theirs under the s-th shift, in init order, so that a display of one
// setting shows the model's mean ± standard error over its inits:
//
//	chart.AUROCTableOfRuns(runs[1]...)
//
// Each init's runs are those EvaluateShifts gives for it, bit for bit, and
// are cached as EvaluateShifts caches them. TrainOptions among the shifts
// act as for EvaluateShifts, AtOnce caps the inits evaluated at once, and
// with Quiet no progress bar is shown. Its
// errors are TrainInits'; when some inits fail, the runs of the others are
// returned with an error naming each failure.
func EvaluateShiftsInits(preset func(init int) cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, n int, shifts ...any) ([][]chart.Run, error) {
	const op = "kernelext.EvaluateShiftsInits"
	if g == nil {
		return nil, fmt.Errorf("%s: nil graph", op)
	}
	plan, err := planShifts(op, g, split, shifts)
	if err != nil {
		return nil, err
	}
	builders, keys, err := initBuilders(op, preset, n, plan.key)
	if err != nil {
		return nil, err
	}
	perInit := make([][]chart.Run, n)
	_, err = sideBySide(op, "evaluating", g, keys, plan.o, func(k int) (initDone, error) {
		fresh := false
		preds, err := Cache(keys[k], func() ([]*cuq.Prediction, error) {
			fresh = true
			return evaluateShifts(builders[k], g, split, plan.evals, plan.o.fitOptions(), true)
		})
		if err != nil {
			return initDone{}, err
		}
		if perInit[k], err = plan.runs(op, preds); err != nil {
			return initDone{}, err
		}
		return initDone{model: preds[0].Model, note: fmt.Sprintf("%d settings", len(preds)), fresh: fresh}, nil
	})
	runs := make([][]chart.Run, len(plan.evals)+1)
	for _, r := range perInit {
		for s := range r {
			runs[s] = append(runs[s], r[s])
		}
	}
	return runs, err
}

// initBuilders returns the builders preset gives for inits 1 … n and their
// keys, or an error, prefixed with op, for n < 1, no preset or builder,
// one builder twice or two inits of one key.
func initBuilders(op string, preset func(init int) cuq.ClassifierBuilder, n int, key func(cuq.ClassifierBuilder) Key) ([]cuq.ClassifierBuilder, []Key, error) {
	switch {
	case preset == nil:
		return nil, nil, fmt.Errorf("%s: nil preset", op)
	case n < 1:
		return nil, nil, fmt.Errorf("%s: %d inits, want at least 1", op, n)
	}
	// The builders and keys are taken one after the other, before any
	// training reads the graph.
	builders := make([]cuq.ClassifierBuilder, n)
	keys := make([]Key, n)
	initOf := map[Key]int{}
	for k := range builders {
		b := preset(k + 1)
		if b == nil {
			return nil, nil, fmt.Errorf("%s: preset(%d) gave no builder", op, k+1)
		}
		for j, earlier := range builders[:k] {
			if sameBuilder(earlier, b) {
				return nil, nil, fmt.Errorf("%s: preset(%d) and preset(%d) gave the same builder; build a new one for each init (cuq.GPN().Init(k))", op, j+1, k+1)
			}
		}
		builders[k], keys[k] = b, key(b)
		if j, ok := initOf[keys[k]]; ok {
			return nil, nil, fmt.Errorf("%s: inits %d and %d describe the same model; let preset set the init (its builder's Init(k))", op, j, k+1)
		}
		initOf[keys[k]] = k + 1
	}
	return builders, keys, nil
}

// initDone is what sideBySide's work reports of an init: its model's
// name, a few words for the progress bar, and whether the result was
// computed rather than read from the cache.
type initDone struct {
	model, note string
	fresh       bool
}

// sideBySide calls work(k) for the inits k = 0 … len(keys)−1, up to
// GOMAXPROCS (or o.atOnce) at once; unless o.quiet, a progress bar titled
// by what (and g's name) counts the inits whose keys are not cached. It
// returns the inits (1-based) whose results were read from the cache, and
// an error that names, prefixed with op, each init that failed.
func sideBySide(op, what string, g *graph.Graph, keys []Key, o trainOptions, work func(k int) (initDone, error)) (cached []int, err error) {
	n := len(keys)
	pending := make([]bool, n)
	toDo := 0
	for k, key := range keys {
		if pending[k] = !stored(key); pending[k] {
			toDo++
		}
	}
	at := min(n, runtime.GOMAXPROCS(0))
	if o.atOnce > 0 {
		at = min(n, o.atOnce)
	}
	var bar *Progress
	if toDo > 0 && !o.quiet {
		bar = NewProgress(fmt.Sprintf("%s %d %s on %s, %d at once", what, toDo, initsWord(toDo), g.Name, min(toDo, at)))
		bar.unit = "done"
		bar.Update(0, toDo, "")
	}
	dones := make([]initDone, n)
	errs := make([]error, n)
	var mu sync.Mutex
	done := 0
	eachConcurrently(n, at, func(k int) {
		dones[k], errs[k] = work(k)
		if bar == nil || !pending[k] {
			return
		}
		note := fmt.Sprintf("init %d: %s, %s", k+1, dones[k].model, dones[k].note)
		if errs[k] != nil {
			note = fmt.Sprintf("init %d failed", k+1)
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		bar.Update(done, toDo, note)
	})

	var failed []error
	for k, err := range errs {
		switch {
		case err != nil:
			failed = append(failed, fmt.Errorf("init %d: %w", k+1, err))
		case !dones[k].fresh:
			cached = append(cached, k+1)
		}
	}
	if len(failed) > 0 {
		return cached, fmt.Errorf("%s: %d of %d inits failed: %w", op, len(failed), n, errors.Join(failed...))
	}
	return cached, nil
}

// eachConcurrently calls f(k) for k = 0 … n−1 on the given number of
// goroutines, each taking the next k as it finishes one, and returns when
// every call has returned.
func eachConcurrently(n, goroutines int, f func(k int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				func() {
					// The inits share the cores: one kernel of each
					// on its own core rather than each split in two.
					defer tensor.ShareCores()()
					f(k)
				}()
			}
		}()
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
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

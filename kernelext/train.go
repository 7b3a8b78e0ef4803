package kernelext

import (
	"fmt"
	"runtime"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/internal/memstat"
)

// Run is what a notebook keeps of a trained model for its later cells: the
// model's name and size, its training history, its predictions and the
// time and memory they took. Train makes it.
type Run struct {
	Model   string
	Params  int
	History *cuq.History
	// Pred is the prediction on the training graph.
	Pred *cuq.Prediction
	// On holds the predictions on the graphs given with EvaluateOn, by
	// name.
	On    map[string]*cuq.Prediction
	Stats Stats
}

// Stats are the figures of a training run.
type Stats struct {
	Graph                     string
	Nodes, Edges, Features    int
	Classes                   int
	Train, Val, Test          int
	WarmupEpochs, TrainEpochs int
	// ValAccuracy is the trained model's accuracy on the validation
	// nodes; Chance, for a model whose training ended by early stopping
	// (not GKDE, nor a run cut by MaxEpochs), the share of their most
	// frequent class (eval.Chance). See Collapsed.
	ValAccuracy, Chance        float64
	WarmupSeconds, FitSeconds  float64 // FitSeconds includes the warm-up
	PredictSeconds             float64 // every prediction of the run
	PeakRSS, HeapInUse, GoHeap int64   // bytes; see Table
	CPUs                       int
}

// Collapsed reports whether the training collapsed: the model ended with a
// validation accuracy near chance (eval.Collapsed), as GPN on Amazon
// Photos sometimes does. Train then says so on standard error.
func (s Stats) Collapsed() bool { return s.Chance > 0 && eval.Collapsed(s.ValAccuracy, s.Chance) }

// Table returns the figures as a two-column table.
func (s Stats) Table(title string) (*chart.Table, error) {
	per := func(seconds float64, epochs int) string {
		if epochs == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f s", seconds/float64(epochs))
	}
	gib := func(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }
	rows := [][]string{
		{"graph", fmt.Sprintf("%s: %d nodes, %d stored edges, %d features, %d classes", s.Graph, s.Nodes, s.Edges, s.Features, s.Classes)},
		{"split", fmt.Sprintf("%d train, %d validation, %d test", s.Train, s.Val, s.Test)},
		{"warm-up epochs (flows only)", fmt.Sprintf("%d, %s each", s.WarmupEpochs, per(s.WarmupSeconds, s.WarmupEpochs))},
		{"training epochs", fmt.Sprintf("%d, %s each (evaluation included)", s.TrainEpochs, per(s.FitSeconds-s.WarmupSeconds, s.TrainEpochs))},
		{"training in total", fmt.Sprintf("%.1f s", s.FitSeconds)},
		{"validation accuracy", validation(s)},
		{"prediction (all measures)", fmt.Sprintf("%.2f s", s.PredictSeconds)},
		{"peak resident memory of the cell program", gib(s.PeakRSS)},
		{"Go heap in use at the end / obtained from the OS", gib(s.HeapInUse) + " / " + gib(s.GoHeap)},
		{"CPUs", fmt.Sprint(s.CPUs)},
	}
	return chart.NewTable(title, []string{"", "value"}, rows)
}

// validation formats the validation accuracy, with chance and a collapse
// where the model trains.
func validation(s Stats) string {
	v := fmt.Sprintf("%.1f%%", 100*s.ValAccuracy)
	if s.Chance > 0 {
		v += fmt.Sprintf(" (chance %.1f%%)", 100*s.Chance)
	}
	if s.Collapsed() {
		v += ": collapsed"
	}
	return v
}

// TrainOption changes what Train does.
type TrainOption func(*trainOptions)

type trainOptions struct {
	names  []string
	graphs []*graph.Graph
	quiet  bool
	atOnce int // > 0: TrainInits' and EvaluateShiftsInits' cap on inits at once
	schedule
}

// schedule is what the options say of the training schedule.
type schedule struct {
	own       *cuq.Schedule // nil: the model's
	maxEpochs int           // > 0: the cap of cuq.MaxEpochs
}

// fitOptions returns the options Fit takes for s.
func (s schedule) fitOptions() []cuq.FitOption {
	var opts []cuq.FitOption
	if s.own != nil {
		opts = append(opts, *s.own)
	}
	return append(opts, cuq.MaxEpochs(s.maxEpochs))
}

// Schedule makes Train (and EvaluateShifts) train with s instead of the
// model's own schedule (cuq.Model.Schedule).
func Schedule(s cuq.Schedule) TrainOption { return func(o *trainOptions) { o.own = &s } }

// MaxEpochs caps the training at n epochs (cuq.MaxEpochs); n ≤ 0 changes
// nothing.
func MaxEpochs(n int) TrainOption { return func(o *trainOptions) { o.maxEpochs = n } }

// QuickEpochs is MaxEpochs(n) in quick mode (Quick) and nothing in full
// mode: the cap that keeps a notebook's CI run short.
func QuickEpochs(n int) TrainOption {
	if !Quick() {
		n = 0
	}
	return MaxEpochs(n)
}

// EvaluateOn makes Train also predict on g, a variant of the training graph
// with the same nodes and feature width (perturbed features, or added and
// removed edges as graph.PerturbStructure makes them), kept as
// Run.On[name].
func EvaluateOn(name string, g *graph.Graph) TrainOption {
	return func(o *trainOptions) { o.names, o.graphs = append(o.names, name), append(o.graphs, g) }
}

// AtOnce makes TrainInits and EvaluateShiftsInits run at most k inits at
// once instead of up to GOMAXPROCS, as when each run needs a large share of
// the machine's memory (a few GB on OGBN Arxiv); k ≤ 0 changes nothing.
// Train and EvaluateShifts ignore it.
func AtOnce(k int) TrainOption { return func(o *trainOptions) { o.atOnce = k } }

// Quiet makes Train show nothing: no progress bar while it trains, and no
// note when it returns a run trained earlier in the kernel session (without
// Quiet, such notes take one line per cell).
func Quiet() TrainOption { return func(o *trainOptions) { o.quiet = true } }

// built is a classifier Train built on a graph, with its size.
type built struct {
	cuq.Classifier
	graph  *graph.Graph
	params int
}

// build builds the classifier preset describes on g.
func build(preset cuq.ClassifierBuilder, g *graph.Graph) (built, error) {
	c, err := preset.Classifier(g)
	if err != nil {
		return built{}, err
	}
	if c == nil {
		return built{}, fmt.Errorf("kernelext: the preset %T built no classifier", preset)
	}
	return built{c, g, numParams(c)}, nil
}

// numParams returns the number of parameters of a model, of a committee's
// members or of an energy model's base; 0 for other classifiers.
func numParams(c cuq.Classifier) int {
	switch c := c.(type) {
	case *cuq.Model:
		return c.NumParams()
	case *cuq.Committee:
		n := 0
		for _, m := range c.Members() {
			n += m.NumParams()
		}
		return n
	case *cuq.EnergyModel:
		return numParams(c.Base())
	}
	return 0
}

// Train builds the model preset describes on g (a graph-free preset:
// cuq.GPN(), cuq.EnsembleGCN(), cuq.GNNSafe(cuq.GCN()), ...), fits it on
// split with the model's schedule (or as Schedule, MaxEpochs and
// QuickEpochs say) and a progress bar in the cell that names the model and
// g, and predicts on g (and on the graphs of EvaluateOn).
// The Run is cached for the kernel session (see Cache) under a key of
// everything it depends on: the preset's whole configuration
// (architecture, seed), the schedule, the graph, the split and the
// evaluation graphs. A later cell that describes the same model on the
// same graph gets the Run back at once; changing the model, the graph, the
// split or the seed trains again.
// Forget("train") drops every cached Run. A cached Run whose file is
// damaged is reported and trained again; a Run that cannot be cached (a
// full disk) is returned with a warning on standard error.
func Train(preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, opts ...TrainOption) (*Run, error) {
	if preset == nil || g == nil {
		return nil, fmt.Errorf("kernelext.Train: nil preset or graph")
	}
	o, err := trainOptionsOf("kernelext.Train", opts)
	if err != nil {
		return nil, err
	}
	run, fresh, err := cachedTrain(trainKey(preset, g, split, o), preset, g, split, o)
	if err != nil {
		return nil, err
	}
	if !fresh && !o.quiet {
		noteCached(fmt.Sprintf("%s (%d epochs, %s)", run.Model, len(run.History.Epochs), run.History.Stopped))
	}
	return run, nil
}

// trainOptionsOf applies opts and checks the evaluation graphs; errors are
// prefixed with op.
func trainOptionsOf(op string, opts []TrainOption) (trainOptions, error) {
	var o trainOptions
	for _, opt := range opts {
		opt(&o)
	}
	for k, g := range o.graphs {
		if g == nil {
			return o, fmt.Errorf("%s: evaluation graph %q is nil", op, o.names[k])
		}
	}
	return o, nil
}

// trainKey is the cache key of the Run of preset on g and split with o.
func trainKey(preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, o trainOptions) Key {
	return KeyOf("train", preset, g, split, o.names, o.graphs, o.schedule)
}

// cachedTrain returns the Run cached under key, or trains it (train) and
// caches it, reporting whether it trained. It puts the graphs back into
// the predictions and warns on standard error when the training collapsed.
func cachedTrain(key Key, preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, o trainOptions) (run *Run, fresh bool, err error) {
	run, err = Cache(key, func() (*Run, error) {
		fresh = true
		return train(preset, g, split, o)
	})
	if err != nil {
		return nil, false, err
	}
	if run.Pred == nil || len(run.On) != len(o.names) {
		return nil, false, fmt.Errorf("kernelext.Train: the cached run of %s is incomplete; call kernelext.Forget(\"train\")", run.Model)
	}
	// Graphs are not stored with the run: they are the caller's.
	run.Pred.Graph = g
	for k, name := range o.names {
		run.On[name].Graph = o.graphs[k]
	}
	if run.Stats.Collapsed() {
		fmt.Fprintf(warnings, "warning: %s's training on %s collapsed: validation accuracy %.1f%%, near chance (%.1f%%, the largest class's share); "+
			"another init or dropout stream (the builder's Init, DropoutStream) usually trains normally (docs/records/faithfulness.md)\n",
			run.Model, g.Name, 100*run.Stats.ValAccuracy, 100*run.Stats.Chance)
	}
	return run, fresh, nil
}

// train does Train's work on a cache miss.
func train(preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, o trainOptions) (*Run, error) {
	m, err := build(preset, g)
	if err != nil {
		return nil, err
	}
	tf, err := fitTimed(m, split, o.quiet, o.fitOptions())
	if err != nil {
		return nil, err
	}
	hist := tf.hist
	t := time.Now()
	run := &Run{Model: m.Name(), Params: m.params, History: hist, On: map[string]*cuq.Prediction{}}
	if run.Pred, err = m.Predict(nil); err != nil {
		return nil, err
	}
	for k, name := range o.names {
		if run.On[name], err = m.Predict(o.graphs[k]); err != nil {
			return nil, fmt.Errorf("kernelext.Train: predicting on %q: %w", name, err)
		}
	}
	valAcc, chance, err := hist.Validation(run.Pred, g.Labels, split.Val)
	if err != nil {
		return nil, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	run.Stats = Stats{
		Graph: g.Name, Nodes: g.N, Edges: g.NumEdges(), Features: g.NumFeatures(), Classes: g.NumClasses,
		Train: len(split.Train), Val: len(split.Val), Test: len(split.Test),
		WarmupEpochs: tf.warmups, TrainEpochs: len(hist.Epochs) - tf.warmups,
		ValAccuracy: valAcc, Chance: chance,
		WarmupSeconds: tf.warmup.Seconds(), FitSeconds: tf.fit.Seconds(), PredictSeconds: time.Since(t).Seconds(),
		PeakRSS: memstat.PeakRSS(), HeapInUse: int64(ms.HeapInuse), GoHeap: int64(ms.Sys), CPUs: runtime.NumCPU(),
	}
	// Graphs are not stored with the run (Train puts them back).
	run.Pred.Graph = nil
	for _, p := range run.On {
		p.Graph = nil
	}
	return run, nil
}

// timedFit is a training's history, its time, and the time and number of
// its warm-up epochs.
type timedFit struct {
	hist        *cuq.History
	fit, warmup time.Duration
	warmups     int
}

// fitTimed trains m on split with opts, showing its progress unless quiet,
// and times it.
func fitTimed(m built, split graph.Split, quiet bool, opts []cuq.FitOption) (timedFit, error) {
	var bar *Training
	if !quiet {
		bar = NewTraining(fmt.Sprintf("training %s on %s (%d parameters)", m.Name(), m.graph.Name, m.params))
	}
	var tf timedFit
	last := time.Now()
	start := last
	onEpoch := cuq.OnEpoch(func(e cuq.EpochStats) {
		if e.Phase == cuq.WarmupPhase {
			tf.warmup += time.Since(last)
			tf.warmups++
		}
		last = time.Now()
		if bar != nil {
			bar.Epoch(e)
		}
	})
	hist, err := m.Fit(split, append(opts, onEpoch)...)
	if bar != nil {
		bar.Done(hist, err)
	}
	if err != nil {
		return timedFit{}, err
	}
	tf.hist, tf.fit = hist, time.Since(start)
	return tf, nil
}

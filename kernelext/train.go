package kernelext

import (
	"fmt"
	"runtime"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
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
	Graph                      string
	Nodes, Edges, Features     int
	Classes                    int
	Train, Val, Test           int
	WarmupEpochs, TrainEpochs  int
	WarmupSeconds, FitSeconds  float64 // FitSeconds includes the warm-up
	PredictSeconds             float64 // every prediction of the run
	PeakRSS, HeapInUse, GoHeap int64   // bytes; see Table
	CPUs                       int
}

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
		{"prediction (all measures)", fmt.Sprintf("%.2f s", s.PredictSeconds)},
		{"peak resident memory of the cell program", gib(s.PeakRSS)},
		{"Go heap in use at the end / obtained from the OS", gib(s.HeapInUse) + " / " + gib(s.GoHeap)},
		{"CPUs", fmt.Sprint(s.CPUs)},
	}
	return chart.NewTable(title, []string{"", "value"}, rows)
}

// TrainOption changes what Train does.
type TrainOption func(*trainOptions)

type trainOptions struct {
	names  []string
	graphs []*graph.Graph
	quiet  bool
}

// EvaluateOn makes Train also predict on g, a variant of the training graph
// with the same nodes and feature width (perturbed features, or added and
// removed edges as graph.PerturbStructure makes them), kept as
// Run.On[name].
func EvaluateOn(name string, g *graph.Graph) TrainOption {
	return func(o *trainOptions) { o.names, o.graphs = append(o.names, name), append(o.graphs, g) }
}

// Quiet makes Train show nothing: no progress bar while it trains, and no
// note when it returns a run trained earlier in the kernel session (without
// Quiet, such notes take one line per cell).
func Quiet() TrainOption { return func(o *trainOptions) { o.quiet = true } }

// Buildable is what Train trains: a model's builder (cuq.GPN(), ...) or
// a deep ensemble's (cuq.EnsembleGCN(), ...).
type Buildable interface {
	*cuq.Builder | *cuq.EnsembleBuilder
}

// built is a model or a committee Train built, with its graph and size.
type built struct {
	cuq.Classifier
	graph  *graph.Graph
	params int
}

// build builds the model or committee b (not nil) describes.
func build[B Buildable](b B) (built, error) {
	switch b := any(b).(type) {
	case *cuq.Builder:
		m, err := b.Build()
		if err != nil {
			return built{}, err
		}
		return built{m, m.Graph(), m.NumParams()}, nil
	case *cuq.EnsembleBuilder:
		c, err := b.Build()
		if err != nil {
			return built{}, err
		}
		n := 0
		for _, m := range c.Members() {
			n += m.NumParams()
		}
		return built{c, c.Graph(), n}, nil
	}
	return built{}, fmt.Errorf("kernelext.Train: unknown builder %T", b)
}

// graphOf returns the graph of the model b describes.
func graphOf[B Buildable](b B) *graph.Graph {
	if e, ok := any(b).(*cuq.EnsembleBuilder); ok {
		return e.Member().Graph()
	}
	return any(b).(*cuq.Builder).Graph()
}

// Train builds the model (or the ensemble) b describes, fits it on split
// with a progress bar in the cell, and predicts on its graph (and on the
// graphs of EvaluateOn).
// The Run is cached for the kernel session (see Cache) under a key of
// everything it depends on: the builder's whole configuration (graph,
// architecture, training schedule, seed), the split and the evaluation
// graphs. A later cell that describes the same model gets the Run back at
// once; changing the model, the split or the seed trains again.
// Forget("train") drops every cached Run. A cached Run whose file is
// damaged is reported and trained again; a Run that cannot be cached (a
// full disk) is returned with a warning on standard error.
func Train[B Buildable](b B, split graph.Split, opts ...TrainOption) (*Run, error) {
	if b == nil {
		return nil, fmt.Errorf("kernelext.Train: nil builder")
	}
	var o trainOptions
	for _, opt := range opts {
		opt(&o)
	}
	for k, g := range o.graphs {
		if g == nil {
			return nil, fmt.Errorf("kernelext.Train: evaluation graph %q is nil", o.names[k])
		}
	}
	fresh := false
	run, err := Cache(KeyOf("train", b, split, o.names, o.graphs), func() (*Run, error) {
		fresh = true
		return train(b, split, o)
	})
	if err != nil {
		return nil, err
	}
	if run.Pred == nil || len(run.On) != len(o.names) {
		return nil, fmt.Errorf("kernelext.Train: the cached run of %s is incomplete; call kernelext.Forget(\"train\")", run.Model)
	}
	// Graphs are not stored with the run: they are the caller's.
	run.Pred.Graph = graphOf(b)
	for k, name := range o.names {
		run.On[name].Graph = o.graphs[k]
	}
	if !fresh && !o.quiet {
		noteCached(fmt.Sprintf("%s (%d epochs, %s)", run.Model, len(run.History.Epochs), run.History.Stopped))
	}
	return run, nil
}

// train does Train's work on a cache miss.
func train[B Buildable](b B, split graph.Split, o trainOptions) (*Run, error) {
	m, err := build(b)
	if err != nil {
		return nil, err
	}
	g := m.graph
	var bar *Training
	if !o.quiet {
		bar = NewTraining(fmt.Sprintf("training %s on %s (%d parameters)", m.Name(), g.Name, m.params))
	}
	var warmup time.Duration
	var warmups int
	last := time.Now()
	start := last
	onEpoch := cuq.OnEpoch(func(e cuq.EpochStats) {
		if e.Phase == cuq.WarmupPhase {
			warmup += time.Since(last)
			warmups++
		}
		last = time.Now()
		if bar != nil {
			bar.Epoch(e)
		}
	})
	hist, err := m.Fit(split, onEpoch)
	if bar != nil {
		bar.Done(hist, err)
	}
	if err != nil {
		return nil, err
	}
	fit := time.Since(start)
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
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	run.Stats = Stats{
		Graph: g.Name, Nodes: g.N, Edges: g.NumEdges(), Features: g.NumFeatures(), Classes: g.NumClasses,
		Train: len(split.Train), Val: len(split.Val), Test: len(split.Test),
		WarmupEpochs: warmups, TrainEpochs: len(hist.Epochs) - warmups,
		WarmupSeconds: warmup.Seconds(), FitSeconds: fit.Seconds(), PredictSeconds: time.Since(t).Seconds(),
		PeakRSS: memstat.PeakRSS(), HeapInUse: int64(ms.HeapInuse), GoHeap: int64(ms.Sys), CPUs: runtime.NumCPU(),
	}
	// Graphs are not stored with the run (Train puts them back).
	run.Pred.Graph = nil
	for _, p := range run.On {
		p.Graph = nil
	}
	return run, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/memstat"
)

// arxivLikeName selects datasets.ArxivLike, the synthetic graph of OGBN
// Arxiv's size, in bench.
const arxivLikeName = "arxivlike"

// runBench times one training epoch (forward, backward, Adam step) and one
// evaluation pass of each model, in the output format of the PyTorch
// timing script the project compares against: "<model> train_ms=<x>
// eval_ms=<y>".
// With -fit it instead trains each model to early stopping and prints the
// time, the epochs, the test accuracy and the peak resident memory of the
// process. With -write-npz FILE it writes the benchmark graph as an .npz
// file (datasets.WriteNPZ) and times nothing, so that the PyTorch baseline
// can run on the very same graph; -dataset FILE.npz benches such a file.
// An interrupt (ctx) stops it after the current epoch.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "[-data DIR] [-dataset NAME|FILE.npz] [-models M,N] [-epochs N] [-fit | -write-npz FILE]", stderr)
	dataDir := fs.String("data", datasets.Dir(), "directory holding the dataset files ($CUQ_DATA, else the user cache directory)")
	name := fs.String("dataset", "CoraML", "dataset name, synthetic, "+arxivLikeName+" (synthetic, OGBN Arxiv's size), or a path: an .npz file, a directory of CSV files or an OGB directory")
	writeNPZ := fs.String("write-npz", "", "write the benchmark graph to this .npz file and time nothing")
	models := fs.String("models", strings.Join(experiment.Keys(experiment.AllModels), ","), "comma-separated models (the paper's by default)")
	epochs := fs.Int("epochs", 50, "timed training epochs per model (evaluation passes: epochs/5)")
	fit := fs.Bool("fit", false, "train each model to early stopping and report time and peak memory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *epochs < 1 {
		return fmt.Errorf("bench: -epochs must be positive")
	}
	if *fit && *writeNPZ != "" {
		return fmt.Errorf("bench: -fit and -write-npz exclude each other")
	}
	ms, err := experiment.ParseModels(*models)
	if err != nil {
		return err
	}
	g, split, err := benchGraph(*name, *dataDir, flagSet(fs, "dataset"), stderr)
	if err != nil {
		return err
	}
	if *writeNPZ != "" {
		if err := datasets.WriteNPZ(*writeNPZ, g); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d nodes, %d features, %d classes, %d edge entries) to %s\n", g.Name, g.N, g.NumFeatures(), g.NumClasses, g.NumEdges(), *writeNPZ)
		return nil
	}
	fmt.Fprintf(stdout, "cuqgnn nodes=%d features=%d classes=%d edges=%d kernels=%s\n", g.N, g.NumFeatures(), g.NumClasses, g.NumEdges(), tensor.Kernels())
	for _, mk := range ms {
		m, schedule, err := benchModel(mk, g)
		if err != nil {
			return err
		}
		if *fit {
			if err := fitAndReport(ctx, stdout, mk.Key(), m, split, schedule); err != nil {
				return err
			}
			continue
		}
		train, eval, err := timeModel(ctx, m, split, *epochs)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s train_ms=%.2f eval_ms=%.2f\n", mk.Key(), train, eval)
	}
	return nil
}

// benchModel builds model mk on g and returns it with the schedule to
// train it with: the preset's, and on a graph of more than 100,000 nodes
// the grid's on OGBN Arxiv (the reference's schedule there, and LOP-GPN's
// pruned mixture, whose dense Π would take hundreds of GB). Bench times
// single models, not committees.
func benchModel(mk experiment.Model, g *graph.Graph) (*cuq.Model, cuq.Schedule, error) {
	as := "" // no dataset's overrides
	if g.N > 100000 {
		as = "OGBNArxiv"
	}
	b, err := mk.Preset(as, cuq.DefaultSeeding())
	if err != nil {
		return nil, cuq.Schedule{}, err
	}
	mb, ok := b.(cuq.ModelBuilder)
	if !ok {
		return nil, cuq.Schedule{}, fmt.Errorf("bench: %v is not a single model", mk)
	}
	m, err := mb.Done(g)
	if err != nil {
		return nil, cuq.Schedule{}, err
	}
	return m, experiment.Schedule(as, m, 0), nil
}

// benchGraph loads the benchmark graph and its split: the official split
// when the dataset has one, else split 1 of the paper's stratified splits.
func benchGraph(name, dir string, explicit bool, stderr io.Writer) (*graph.Graph, graph.Split, error) {
	var g *graph.Graph
	var official *graph.Split
	var err error
	switch {
	case strings.EqualFold(name, arxivLikeName):
		if g, err = datasets.ArxivLike(1); err != nil {
			return nil, graph.Split{}, err
		}
	case isPath(name):
		l, err := loadPath(name)
		if err != nil {
			return nil, graph.Split{}, err
		}
		g, official = l.Graph, l.Split
	default:
		d, err := loadOrSynthetic(name, dir, explicit, stderr)
		if err != nil {
			return nil, graph.Split{}, err
		}
		g, official = d.Graph, d.Official
	}
	if official != nil {
		return g, *official, nil
	}
	split, err := g.Split(graph.Stratified(0.05, 0.15, 0.8).Seed(42))
	return g, split, err
}

// timeModel returns the mean milliseconds of a training epoch and of an
// evaluation pass after one untimed warm-up epoch. GKDE has no training:
// its "epoch" is the kernel evidence computation.
func timeModel(ctx context.Context, m *cuq.Model, split graph.Split, epochs int) (trainMs, evalMs float64, err error) {
	step := func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if !m.Trainable() {
			_, err := m.Fit(split)
			return err
		}
		_, err := m.Step(split)
		return err
	}
	if err := step(); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	for e := 0; e < epochs; e++ {
		if err := step(); err != nil {
			return 0, 0, err
		}
	}
	trainMs = float64(time.Since(start).Microseconds()) / 1e3 / float64(epochs)
	passes := max(1, epochs/5)
	// The passes write one output matrix (ForwardTo), as PyTorch's passes
	// each free the output tensor of the one before, whose memory its
	// allocator hands to the next: a new matrix per pass would be fresh
	// pages, on a virtual machine several microseconds per page to fault in.
	g := m.Graph()
	out := tensor.New(g.N, g.NumClasses)
	start = time.Now()
	for e := 0; e < passes; e++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, fmt.Errorf("bench: %w", err)
		}
		if err := m.ForwardTo(out, nil); err != nil {
			return 0, 0, err
		}
	}
	evalMs = float64(time.Since(start).Microseconds()) / 1e3 / float64(passes)
	return trainMs, evalMs, nil
}

// fitAndReport trains m with the full schedule s and prints
// "<model> fit_s=<s> epochs=<n> test_acc=<a> peak_rss_mb=<m>"; the peak is
// the process's maximum resident set so far (memstat.PeakRSS).
func fitAndReport(ctx context.Context, w io.Writer, key string, m *cuq.Model, split graph.Split, s cuq.Schedule) error {
	start := time.Now()
	hist, err := m.Fit(split, s, cuq.WithContext(ctx))
	if err != nil {
		return err
	}
	pred, err := m.Predict(nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s fit_s=%.1f epochs=%d test_acc=%.4f peak_rss_mb=%d\n", key, time.Since(start).Seconds(),
		len(hist.Epochs), pred.Accuracy(split.Test), memstat.PeakRSS()>>20)
	return nil
}

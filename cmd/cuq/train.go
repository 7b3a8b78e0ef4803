package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
)

// runTrain runs the train subcommand: one model on one split and init,
// evaluated in the classification and feature-noise settings (and, with
// -loc, trained again for leave-out classes).
func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	run := newRunFlags("train", "[-data DIR] -dataset NAME -model NAME [-split K] [-init K] [-loc]", experiment.ModelNames(), stderr)
	fs := run.fs
	loc := fs.Bool("loc", false, "also train on the leave-out-classes graph and report its OOD detection")
	maxEpochs := fs.Int("max-epochs", 0, "cap on training epochs (0: early stopping only)")
	quiet := fs.Bool("quiet", false, "no progress output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if run.model == "" {
		return fmt.Errorf("train: -model is required (valid: %s)", strings.Join(experiment.ModelNames(), ", "))
	}
	m, err := experiment.ParseModel(run.model)
	if err != nil {
		return err
	}
	if *maxEpochs < 0 {
		return fmt.Errorf("train: -max-epochs %d: want 0 (early stopping only) or a positive cap", *maxEpochs)
	}
	d, err := run.load(ctx, stderr)
	if err != nil {
		return err
	}
	jobs := []experiment.Job{{Dataset: d.Name, Model: m, Split: run.split, Init: run.init,
		Settings: []experiment.Setting{experiment.Classification, experiment.GaussianNoise, experiment.BernoulliNoise}}}
	if *loc {
		jobs = append(jobs, experiment.Job{Dataset: d.Name, Model: m, Split: run.split, Init: run.init, Trained: experiment.LeaveOutClasses,
			Settings: []experiment.Setting{experiment.LeaveOutClasses}})
	}
	fmt.Fprintf(stdout, "%s on %s (%d nodes, %d classes), split %d, init %d\n", m, d.Name, d.Graph.N, d.Graph.NumClasses, run.split, run.init)
	progress := !*quiet && isTerminal(stderr) && m != experiment.GKDE
	var results []*experiment.Record
	for _, j := range jobs {
		rec, err := trainJob(ctx, d, j, experiment.RunOptions{MaxEpochs: *maxEpochs}, progress, stdout, stderr)
		if err != nil {
			return err
		}
		results = append(results, rec)
	}
	cl := results[0].Results[experiment.Classification.String()]
	fmt.Fprintf(stdout, "test accuracy %.2f%%\n\n", 100*cl.Accuracy)
	return printAUROC(stdout, results)
}

// trainJob runs one job of the train subcommand, with a progress spinner
// on stderr when progress is set, and reports its training on stdout.
func trainJob(ctx context.Context, d *experiment.Dataset, j experiment.Job, opts experiment.RunOptions, progress bool, stdout, stderr io.Writer) (*experiment.Record, error) {
	var pb *progressbar.ProgressBar
	if progress {
		pb = progressbar.NewOptions(-1, progressbar.OptionSetWriter(stderr), progressbar.OptionSpinnerType(14),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		opts.OnEpoch = func(e cuq.EpochStats) {
			desc := fmt.Sprintf("%s epoch %d loss %.4g", e.Phase, e.Epoch, e.Loss)
			if !math.IsNaN(e.ValCE) {
				desc += fmt.Sprintf(" val CE %.4f acc %.3f", e.ValCE, e.ValAcc)
			}
			pb.Describe(desc)
			_ = pb.Add(1)
		}
	}
	rec, err := experiment.RunJob(ctx, d, j, opts)
	if pb != nil {
		_ = pb.Finish()
	}
	if err != nil {
		return nil, err
	}
	kind := "the full graph"
	if j.Trained == experiment.LeaveOutClasses {
		kind = fmt.Sprintf("the graph without the last %d classes", d.LeftOut)
	}
	fmt.Fprintf(stdout, "trained on %s: %d epochs including the warm-up, best at main epoch %d, in %.1f s\n", kind, rec.Epochs, rec.BestEpoch, rec.TrainSeconds)
	if rec.Collapsed() {
		fmt.Fprintf(stdout, "warning: the training collapsed: validation accuracy %.1f%%, near chance (%.1f%%); another -init usually trains normally (docs/records/faithfulness.md)\n",
			100*rec.ValAccuracy, 100*rec.ValChance)
	}
	return rec, nil
}

// runFlags are the flags of the commands that build one run (train,
// export): the dataset and the directory of its files, the model, the
// split and the initialisation.
type runFlags struct {
	fs                   *flag.FlagSet
	dataDir, name, model string
	split, init          int
}

// newRunFlags returns the flag set of a command that builds one run (see
// newFlagSet) with the run flags defined; models are the valid names of
// -model.
func newRunFlags(name, synopsis string, models []string, stderr io.Writer) *runFlags {
	fs := newFlagSet(name, synopsis, stderr)
	r := &runFlags{fs: fs}
	fs.StringVar(&r.dataDir, "data", datasets.Dir(), "directory holding the dataset files")
	fs.StringVar(&r.name, "dataset", "CoraML", "dataset ("+strings.Join(datasets.Names(), ", ")+", synthetic, or a path: an .npz file, a directory of CSV files or an OGB directory)")
	fs.StringVar(&r.model, "model", "", "model ("+strings.Join(models, ", ")+")")
	fs.IntVar(&r.split, "split", 1, "split number (1-based)")
	fs.IntVar(&r.init, "init", 1, "initialisation number (1-based)")
	return r
}

// load rejects a split or initialisation numbered below 1 and loads the
// chosen dataset (see loadOrSynthetic). An interrupt (ctx) ends the wait
// for a dataset that takes seconds to load.
func (r *runFlags) load(ctx context.Context, stderr io.Writer) (*experiment.Dataset, error) {
	switch {
	case r.split < 1:
		return nil, fmt.Errorf("%s: -split %d: splits are numbered from 1", r.fs.Name(), r.split)
	case r.init < 1:
		return nil, fmt.Errorf("%s: -init %d: initialisations are numbered from 1", r.fs.Name(), r.init)
	}
	type loaded struct {
		d   *experiment.Dataset
		err error
	}
	done := make(chan loaded, 1)
	explicit := flagSet(r.fs, "dataset")
	go func() {
		d, err := loadOrSynthetic(r.name, r.dataDir, explicit, stderr)
		done <- loaded{d, err}
	}()
	select {
	case l := <-done:
		return l.d, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: interrupted while loading %s: %w", r.fs.Name(), r.name, ctx.Err())
	}
}

// loadOrSynthetic loads the named dataset, or datasets.Synthetic with a
// notice when the name is "synthetic" or when the dataset was not named
// explicitly and its file is missing. A dataset the user named that
// cannot be loaded is an error.
func loadOrSynthetic(name, dir string, explicit bool, stderr io.Writer) (*experiment.Dataset, error) {
	if isPath(name) {
		return pathDataset(name, stderr)
	}
	if strings.EqualFold(name, experiment.SyntheticName) {
		fmt.Fprintln(stderr, "notice: running on the synthetic CoraML-like graph (datasets.Synthetic: CSBM, 3000 nodes, 7 classes)")
		return experiment.LoadDataset(experiment.SyntheticName, dir)
	}
	d, err := experiment.LoadDataset(name, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && explicit:
		return nil, fmt.Errorf("%w; run \"cuq download -data %s %s\" to fetch it, or pass -data DIR", err, dir, name)
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "notice: %v\nnotice: running on the synthetic CoraML-like graph instead (datasets.Synthetic); pass -data DIR or run \"cuq download %s\" to use the real data\n", err, name)
		return experiment.LoadDataset(experiment.SyntheticName, dir)
	}
	return d, err
}

// isPath reports whether a -dataset value names a file or directory (an
// .npz file, a directory of CSV files, an OGB directory; see
// datasets.IsPath) rather than a registered dataset.
func isPath(name string) bool { return datasets.IsPath(name) }

// loadPath loads the graph at path (datasets.LoadPath) as bench, train
// and grid take it: the graph is named after the file or directory, and
// the split is the file's when it has one.
func loadPath(path string) (*datasets.Loaded, error) { return datasets.LoadPath(path) }

// pathDataset loads the graph at path (see loadPath) as a dataset whose
// last ⌊(C−1)/2⌋ classes (at least one) are left out in the
// leave-out-classes setting, and whose split, if the files give one, is
// its only split; it says so, and what loading changed, on stderr.
func pathDataset(path string, stderr io.Writer) (*experiment.Dataset, error) {
	l, err := loadPath(path)
	if err != nil {
		return nil, err
	}
	g := l.Graph
	k := max(1, (g.NumClasses-1)/2)
	d, err := experiment.NewDataset(g, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(stderr, "notice: %s: %v\n", path, l.Report)
	fmt.Fprintf(stderr, "notice: %s: graph %s, leaving out the last %d of %d classes in the leave-out-classes setting\n", path, g.Name, k, g.NumClasses)
	if l.Split != nil {
		d.Official = l.Split
		fmt.Fprintf(stderr, "notice: %s: its split (%d training, %d validation, %d test nodes) is the only split\n", path, len(l.Split.Train), len(l.Split.Val), len(l.Split.Test))
	}
	return d, nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// printAUROC prints the ID accuracy and the AUROC of every measure in each
// OOD setting of the records.
func printAUROC(w io.Writer, records []*experiment.Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "OOD detection (%)\tID acc\t")
	for _, m := range uq.AllMeasures {
		fmt.Fprintf(tw, "%s AUROC\t", m)
	}
	fmt.Fprintln(tw)
	for _, s := range []experiment.Setting{experiment.LeaveOutClasses, experiment.GaussianNoise, experiment.BernoulliNoise} {
		for _, r := range records {
			res, ok := r.Results[s.String()]
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%.2f\t", s, 100**res.IDAccuracy)
			for _, m := range uq.AllMeasures {
				if v, ok := res.AUROC[m.String()]; ok {
					fmt.Fprintf(tw, "%.2f\t", 100*v)
				} else {
					fmt.Fprint(tw, "–\t")
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// Command export writes one training run of cuqgnn for the PyTorch
// replica of the reference implementation (scripts/replica/replica.py):
// the graph, the split, the initial weights and the hyperparameters of one
// (dataset, model, split, init), with dropout off unless -dropout. With
// -epochs N it also trains cuqgnn on the run for N main epochs after the
// warm-up and writes the result in the replica's format, for an
// epoch-by-epoch comparison.
//
// Usage:
//
//	go run ./scripts/replica/export [-data DIR] -dataset NAME -model NAME [-split K] [-init K] [-dropout P] [-epochs N] -out DIR
//
// It is part of the workshop (the differential check against the
// replica), not of the shipped command cuq.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "export:", err)
		}
		os.Exit(2)
	}
}

// options are the command's flags.
type options struct {
	dataDir, dataset, model, out string
	split, init, epochs          int
	dropout                      float64
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dataDir, "data", datasets.Dir(), "directory holding the dataset files")
	fs.StringVar(&o.dataset, "dataset", "CoraML", "dataset ("+strings.Join(datasets.Names(), ", ")+", or synthetic)")
	fs.StringVar(&o.model, "model", "", "model ("+strings.Join(replica.Models, ", ")+")")
	fs.IntVar(&o.split, "split", 1, "split number (1-based)")
	fs.IntVar(&o.init, "init", 1, "initialisation number (1-based)")
	fs.Float64Var(&o.dropout, "dropout", 0, "dropout probability where the reference has it (0: off, for a lock-step comparison)")
	fs.IntVar(&o.epochs, "epochs", 0, "also train cuqgnn for this many main epochs after the warm-up, writing OUT/cuqgnn/result.json (0: export only)")
	fs.StringVar(&o.out, "out", "", "output directory")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.model == "":
		return o, fmt.Errorf("-model is required (valid: %s)", strings.Join(replica.Models, ", "))
	case o.out == "":
		return o, fmt.Errorf("-out is required")
	case o.epochs < 0:
		return o, fmt.Errorf("-epochs %d: want 0 (export only) or a positive number", o.epochs)
	case o.split < 1:
		return o, fmt.Errorf("-split %d: splits are numbered from 1", o.split)
	case o.init < 1:
		return o, fmt.Errorf("-init %d: initialisations are numbered from 1", o.init)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	key, err := replica.ModelKey(o.model)
	if err != nil {
		return err
	}
	d, err := experiment.LoadDataset(o.dataset, o.dataDir)
	if err != nil {
		return err
	}
	s, err := d.Split(o.split)
	if err != nil {
		return err
	}
	seeding := cuq.DefaultSeeding()
	seeding.Init = o.init
	b, err := replica.Preset(d.Name, key, o.dropout, seeding)
	if err != nil {
		return err
	}
	m, err := b.Done(d.Graph)
	if err != nil {
		return err
	}
	schedule := experiment.Schedule(d.Name, m, o.epochs)
	if _, err := replica.Export(o.out, m, schedule, d.Name, key, 10, 0.1, s); err != nil {
		return err
	}
	drop := "dropout off"
	if o.dropout > 0 {
		drop = fmt.Sprintf("dropout %g (replica: --dropout %g --go-dropout %d,%d)", o.dropout, o.dropout, seeding.Seed, seeding.Init)
	}
	fmt.Fprintf(stdout, "exported %s on %s (%d nodes), split %d, init %d, %s, to %s\n", m.Name(), d.Name, d.Graph.N, o.split, o.init, drop, o.out)
	if o.epochs == 0 {
		return nil
	}
	r, err := replica.Train(m, s, schedule, cuq.WithContext(ctx))
	if err != nil {
		return err
	}
	dir := filepath.Join(o.out, "cuqgnn")
	if err := replica.WriteResult(dir, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained %d epochs (best %d, validation cross entropy %.6f), result in %s\n", len(r.Epochs), r.BestEpoch, r.BestValCE, dir)
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/experiment"
	"github.com/cuqgnn/cuqgnn/internal/replica"
)

// runExport runs the export subcommand: one run (dataset, model, split,
// init; dropout off unless -dropout) written for the PyTorch replica in
// scripts/replica, and with -epochs also cuqgnn's own training of it in
// the replica's result format. With -dropout, the replica's --go-dropout
// SEED,INIT (printed) draws the same dropout masks as cuqgnn.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	run := newRunFlags("export", "[-data DIR] -dataset NAME -model NAME [-split K] [-init K] [-dropout P] [-epochs N] -out DIR", replica.Models, stderr)
	fs := run.fs
	dropout := fs.Float64("dropout", 0, "dropout probability where the reference has it (0: off, for a lock-step comparison)")
	epochs := fs.Int("epochs", 0, "also train cuqgnn for this many main epochs after the warm-up, writing OUT/cuqgnn/result.json (0: export only)")
	out := fs.String("out", "", "output directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	key, err := exportKey(run.model)
	if err != nil {
		return err
	}
	switch {
	case *out == "":
		return fmt.Errorf("export: -out is required")
	case *epochs < 0:
		return fmt.Errorf("export: -epochs %d: want 0 (export only) or a positive number", *epochs)
	}
	d, err := run.load(ctx, stderr)
	if err != nil {
		return err
	}
	s, err := d.Split(run.split)
	if err != nil {
		return err
	}
	b, err := replica.Preset(d.Graph, key, *dropout)
	if err != nil {
		return err
	}
	if *epochs > 0 {
		b.MaxEpochs(*epochs)
	}
	m, err := b.Init(run.init).Build()
	if err != nil {
		return err
	}
	if _, err := replica.Export(*out, m, key, 10, 0.1, s); err != nil {
		return err
	}
	drop := "dropout off"
	if *dropout > 0 {
		drop = fmt.Sprintf("dropout %g (replica: --dropout %g --go-dropout %d,%d)", *dropout, *dropout, m.Training().Seed, m.Training().Init)
	}
	fmt.Fprintf(stdout, "exported %s on %s (%d nodes), split %d, init %d, %s, to %s\n", m.Name(), d.Name, d.Graph.N, run.split, run.init, drop, *out)
	if *epochs == 0 {
		return nil
	}
	r, err := replica.Train(m, s, cuq.WithContext(ctx))
	if err != nil {
		return err
	}
	dir := filepath.Join(*out, "cuqgnn")
	if err := replica.WriteResult(dir, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained %d epochs (best %d, validation cross entropy %.6f), result in %s\n", len(r.Epochs), r.BestEpoch, r.BestValCE, dir)
	return nil
}

// exportKey returns the replica's key of the model name, which may be a
// key or a display name the grid accepts.
func exportKey(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("export: -model is required (valid: %s)", strings.Join(replica.Models, ", "))
	}
	m, err := experiment.ParseModel(name)
	if err != nil {
		return "", err
	}
	if !slices.Contains(replica.Models, m.Key()) {
		return "", fmt.Errorf("export: the replica has no %s (valid: %s)", m, strings.Join(replica.Models, ", "))
	}
	return m.Key(), nil
}

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
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/replica"
)

// runExport runs the export subcommand: one run (dataset, model, split,
// init, all dropout off) written for the PyTorch replica in
// scripts/replica, and with -epochs also cuqgnn's own training of it in
// the replica's result format.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", "[-data DIR] -dataset NAME -model NAME [-split K] [-init K] [-epochs N] -out DIR", stderr)
	dataDir := fs.String("data", datasets.Dir(), "directory holding the dataset files")
	name := fs.String("dataset", "CoraML", "dataset ("+strings.Join(datasets.Names(), ", ")+", or synthetic)")
	modelName := fs.String("model", "", "model ("+strings.Join(replica.Models, ", ")+")")
	split := fs.Int("split", 1, "split number (1-based)")
	init := fs.Int("init", 1, "initialisation number (1-based)")
	epochs := fs.Int("epochs", 0, "also train cuqgnn for this many main epochs after the warm-up, writing OUT/cuqgnn/result.json (0: export only)")
	out := fs.String("out", "", "output directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("export: unexpected arguments %q", fs.Args())
	}
	key, err := exportKey(*modelName)
	if err != nil {
		return err
	}
	switch {
	case *out == "":
		return fmt.Errorf("export: -out is required")
	case *split < 1:
		return fmt.Errorf("export: -split %d: splits are numbered from 1", *split)
	case *init < 1:
		return fmt.Errorf("export: -init %d: initialisations are numbered from 1", *init)
	case *epochs < 0:
		return fmt.Errorf("export: -epochs %d: want 0 (export only) or a positive number", *epochs)
	}
	d, err := loadOrSynthetic(*name, *dataDir, flagSet(fs, "dataset"), stderr)
	if err != nil {
		return err
	}
	s, err := d.Split(*split)
	if err != nil {
		return err
	}
	b, err := replica.Preset(d.Graph, key, 0)
	if err != nil {
		return err
	}
	if *epochs > 0 {
		b.MaxEpochs(*epochs)
	}
	m, err := b.Init(*init).Build()
	if err != nil {
		return err
	}
	if _, err := replica.Export(*out, m, key, 10, 0.1, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s on %s (%d nodes), split %d, init %d, dropout off, to %s\n", m.Name(), d.Name, d.Graph.N, *split, *init, *out)
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

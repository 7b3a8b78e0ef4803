package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/datasets"
)

// runCLI runs the command line with args and returns its output and error.
func runCLI(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate" (valid: train, grid, merge, report, bench, download)`},
		{[]string{"grid", "-models", "gpn,mlp", "-out", dir}, `unknown model "mlp" (valid: appnp, gkde, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat,`},
		{[]string{"grid", "-settings", "loc,shuffle", "-out", dir}, `unknown setting "shuffle" (valid: classification, loc, gaussian, bernoulli, random_edges, dice, gaussian_sweep, bernoulli_sweep,`},
		{[]string{"grid", "-datasets", "CoraML,Karate", "-out", dir}, `unknown dataset "Karate" (known: CoraML, CiteSeer`},
		{[]string{"grid", "-shard", "4/4", "-out", dir}, `-shard "4/4": want i/n with 0 ≤ i < n`},
		{[]string{"grid", "-shard", "x", "-out", dir}, `-shard "x"`},
		{[]string{"grid", "-datasets", "CiteSeer", "-data", dir, "-out", dir}, "citeseer.npz: no such file or directory"},
		{[]string{"grid", "-splits", "0", "-out", dir}, "0 splits"},
		{[]string{"grid", "extra", "-out", dir}, "unexpected arguments"},
		{[]string{"train", "-dataset", "CoraML"}, "-model is required (valid: appnp, gkde"},
		{[]string{"train", "-model", "mlp"}, `unknown model "mlp"`},
		{[]string{"train", "-model", "gpn", "-dataset", "Karate"}, `unknown dataset "Karate"`},
		{[]string{"merge", dir}, "need -out OUT and at least one grid output directory"},
		{[]string{"merge", "-out", dir, dir}, "no runs directory"},
		{[]string{"report"}, "need at least one grid output directory"},
		{[]string{"grid", "-nosuchflag"}, "flag provided but not defined"},
		{[]string{"train", "-model", "gkde", "-max-epochs", "-5"}, "-max-epochs -5: want 0 (early stopping only) or a positive cap"},
		{[]string{"train", "-model", "gkde", "-split", "0"}, "-split 0: splits are numbered from 1"},
		{[]string{"train", "-model", "gkde", "-init", "-1"}, "-init -1: initialisations are numbered from 1"},
		{[]string{"grid", "-jobs", "0", "-out", dir}, "workers 0, need at least 1"},
		{[]string{"grid", "-models", "gpn,appnp,GPN", "-out", dir}, "model GPN given twice"},
		{[]string{"grid", "-datasets", "CoraML,cora_ml", "-out", dir}, "dataset CoraML given twice"},
		{[]string{"grid", "-datasets", " , ", "-out", dir}, `-datasets " , " names no dataset`},
		{[]string{"grid", "-out", ""}, "-out must name a directory"},
		{[]string{"grid", "-splits", "100000000000", "-out", dir}, "grid of more than 100000 jobs, the most one grid may have"},
		{[]string{"bench", "extra"}, "unexpected arguments"},
		{[]string{"download"}, "name at least one dataset"},
		{[]string{"download", "-data", dir, "CoraML,Karate"}, `unknown dataset "Karate"`},
		{[]string{"download", "-timeout", "0s", "CoraML"}, "-timeout 0s must be positive"},
	} {
		_, _, err := runCLI(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cuq %s: error %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestTrainSynthetic trains GKDE (no parameters, fast) on the synthetic
// graph because the data directory lacks CoraML, and checks the notice and
// the printed results.
func TestTrainSynthetic(t *testing.T) {
	out, errOut, err := runCLI("train", "-data", t.TempDir(), "-model", "GKDE", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "cora_ml.npz: no such file") || !strings.Contains(errOut, "running on the synthetic CoraML-like graph") {
		t.Errorf("no notice of the fallback:\n%s", errOut)
	}
	for _, want := range []string{"GKDE on Synthetic (3000 nodes, 7 classes), split 1, init 1", "test accuracy ", "gaussian", "bernoulli", "EU_PC AUROC"} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
}

// TestGridShardsMerge runs a two-model grid on the synthetic graph in two
// shards, merges them, and rebuilds the report.
func TestGridShardsMerge(t *testing.T) {
	root := t.TempDir()
	shards := []string{filepath.Join(root, "s0"), filepath.Join(root, "s1")}
	for i, dir := range shards {
		out, _, err := runCLI("grid", "-datasets", "synthetic", "-models", "gkde,appnp", "-settings", "classification,gaussian",
			"-splits", "1", "-inits", "1", "-max-epochs", "3", "-out", dir, "-shard", []string{"0/2", "1/2"}[i], "-quiet")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "1 jobs: 0 already finished, 1 run now, 0 failed") {
			t.Errorf("shard %d output:\n%s", i, out)
		}
		if !strings.Contains(out, "when all shards are done run: cuq merge") {
			t.Errorf("shard %d does not point to merge:\n%s", i, out)
		}
	}
	merged := filepath.Join(root, "merged")
	out, _, err := runCLI("merge", "-out", merged, shards[0], shards[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 records of 1 datasets and 2 models") {
		t.Errorf("merge output: %s", out)
	}
	csv, err := os.ReadFile(filepath.Join(merged, "tables", "id_ood.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(csv), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "0,Synthetic,APPNP,") || !strings.HasPrefix(lines[2], "1,Synthetic,GKDE,") {
		t.Errorf("id_ood.csv:\n%s", csv)
	}
	for _, f := range []string{"report.html", "figures/arc.png", "figures/arc.svg", "tables/acc_rej_sample_total_entropy_Synthetic.csv"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Error(err)
		}
	}
	if _, _, err := runCLI("report", "-out", filepath.Join(root, "rep"), shards[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "rep", "report.html")); err != nil {
		t.Error(err)
	}
	// The whole grid again in one directory holding both shards' records:
	// nothing is retrained and the tables are written.
	if err := os.CopyFS(filepath.Join(root, "all"), os.DirFS(shards[0])); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "all", "runs", "Synthetic", "appnp"), os.DirFS(filepath.Join(shards[1], "runs", "Synthetic", "appnp"))); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCLI("grid", "-datasets", "synthetic", "-models", "gkde,appnp", "-settings", "classification,gaussian",
		"-splits", "1", "-inits", "1", "-max-epochs", "3", "-out", filepath.Join(root, "all"), "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 jobs: 2 already finished, 0 run now, 0 failed") || !strings.Contains(out, "tables in ") {
		t.Errorf("resumed grid output:\n%s", out)
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		s    string
		i, n int
		ok   bool
	}{
		{"0/1", 0, 1, true}, {"3/4", 3, 4, true}, {"4/4", 0, 0, false}, {"-1/4", 0, 0, false}, {"1/0", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false},
	} {
		i, n, err := parseShard(c.s)
		if (err == nil) != c.ok || i != c.i || n != c.n {
			t.Errorf("parseShard(%q) = %d, %d, %v", c.s, i, n, err)
		}
	}
}

// bench prints one line per model in torch_reference.py's format.
func TestBenchOutputFormat(t *testing.T) {
	out, _, err := runCLI("bench", "-dataset", "synthetic", "-models", "gkde,appnp", "-epochs", "1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "cuqgnn nodes=3000 ") {
		t.Fatalf("bench output:\n%s", out)
	}
	for i, model := range []string{"gkde", "appnp"} {
		var train, eval float64
		if _, err := fmt.Sscanf(lines[i+1], model+" train_ms=%g eval_ms=%g", &train, &eval); err != nil || train <= 0 {
			t.Errorf("line %q: %v", lines[i+1], err)
		}
	}
	if _, _, err := runCLI("bench", "-models", "mlp"); err == nil || !strings.Contains(err.Error(), `unknown model "mlp"`) {
		t.Errorf("unknown model: %v", err)
	}
}

// An interrupted bench stops before its next epoch, timed or fitted, and
// says so, instead of running to the end after announcing that it stops.
func TestBenchStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"bench", "-dataset", "synthetic", "-models", "appnp", "-epochs", "1000000"},
		{"bench", "-dataset", "synthetic", "-models", "gpn", "-fit"},
	} {
		var out, errOut bytes.Buffer
		err := run(ctx, args, &out, &errOut)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: error %v, want context.Canceled", args, err)
		}
		if strings.Contains(out.String(), "train_ms=") || strings.Contains(out.String(), "fit_s=") {
			t.Errorf("%v: reported a model after the interrupt:\n%s", args, out.String())
		}
	}
}

// bench -write-npz writes the benchmark graph, and bench -dataset FILE.npz
// times on it: the graph the PyTorch baseline reads.
func TestBenchWritesAndReadsNPZ(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synthetic.npz")
	out, _, err := runCLI("bench", "-dataset", "synthetic", "-write-npz", path)
	if err != nil || !strings.Contains(out, "wrote Synthetic (3000 nodes, ") {
		t.Fatalf("write: %v\n%s", err, out)
	}
	out, _, err = runCLI("bench", "-dataset", path, "-models", "appnp", "-epochs", "1")
	if err != nil || !strings.HasPrefix(out, "cuqgnn nodes=3000 ") || !strings.Contains(out, "\nappnp train_ms=") {
		t.Fatalf("bench on the npz: %v\n%s", err, out)
	}
	if _, _, err := runCLI("bench", "-fit", "-write-npz", path); err == nil || !strings.Contains(err.Error(), "-fit and -write-npz exclude each other") {
		t.Errorf("-fit with -write-npz: %v", err)
	}
	if _, _, err := runCLI("bench", "-dataset", filepath.Join(t.TempDir(), "none.npz")); err == nil || !strings.Contains(err.Error(), "none.npz") {
		t.Errorf("missing npz: %v", err)
	}
}

// With no dataset file the grid runs on the synthetic graph, so the main
// job works on a fresh machine.
func TestGridFallsBackToSynthetic(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, err := runCLI("grid", "-data", t.TempDir(), "-models", "gkde", "-splits", "1", "-inits", "1", "-out", out, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "running on the synthetic CoraML-like graph") || !strings.Contains(stdout, "tables in") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "tables", "id_ood.csv")); err != nil {
		t.Error(err)
	}
}

func TestUsageAndExitCodes(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(out.String(), "  "+c.name+" ") {
			t.Errorf("usage lacks the command %s:\n%s", c.name, out.String())
		}
	}
	err := run(context.Background(), []string{"grid", "-h"}, &out, &errOut)
	if code := exitCode(err, &errOut); code != 0 {
		t.Errorf("cuq grid -h: exit status %d (error %v), want 0", code, err)
	}
	if code := exitCode(run(context.Background(), nil, &out, &errOut), &errOut); code != 2 {
		t.Errorf("cuq without a command: exit status %d, want 2", code)
	}
	err = run(context.Background(), []string{"fly"}, &out, &errOut)
	if code := exitCode(err, &errOut); code != 1 || !strings.Contains(err.Error(), "valid: train, grid, merge, report, bench, download") {
		t.Errorf("unknown command: status %d, error %v", code, err)
	}
}

// train and grid take an .npz file as their dataset, as bench does: the
// graph is named after the file, and its last ⌊(C−1)/2⌋ classes are left
// out in the leave-out-classes setting.
func TestTrainAndGridAcceptNPZ(t *testing.T) {
	g, err := datasets.CSBM(200, 4).Features(8).Seed(3).Name("ignored").Done()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mygraph.npz")
	if err := datasets.WriteNPZ(path, g); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI("train", "-dataset", path, "-model", "gkde", "-loc", "-quiet")
	if err != nil || !strings.Contains(out, "GKDE on mygraph (200 nodes, 4 classes)") {
		t.Fatalf("train on the npz: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "leaving out the last 1 of 4 classes") {
		t.Errorf("train: stderr %q, want the left-out classes", errOut)
	}
	dir := t.TempDir()
	out, errOut, err = runCLI("grid", "-datasets", path, "-models", "gkde", "-splits", "1", "-inits", "1", "-out", dir, "-quiet")
	if err != nil || !strings.Contains(out, "tables in") {
		t.Fatalf("grid on the npz: %v\n%s%s", err, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "mygraph", "gkde", "s01_i01_clean.json")); err != nil {
		t.Errorf("grid on the npz: %v", err)
	}
	if _, _, err := runCLI("train", "-dataset", filepath.Join(dir, "none.npz"), "-model", "gkde"); err == nil || !strings.Contains(err.Error(), "none.npz") {
		t.Errorf("missing npz: %v", err)
	}
}

// The grid shows its plan before it looks for records or loads data (a
// large grid printed nothing for 20 s).
func TestGridPrintsPlanFirst(t *testing.T) {
	out := t.TempDir()
	_, stderr, err := runCLI("grid", "-datasets", "synthetic", "-models", "gkde,gpn", "-settings", "classification,loc", "-splits", "2", "-inits", "3", "-max-epochs", "2", "-out", out)
	if err != nil {
		t.Fatal(err)
	}
	// GKDE has one init: 2 splits × (1 + 3 inits) × 2 (clean, loc) jobs.
	want := "grid: 16 jobs (1 datasets, 2 models, 2 splits, 3 inits; settings classification, loc) in " + out
	if first, _, _ := strings.Cut(stderr, "\n"); !strings.HasPrefix(first, want) {
		t.Errorf("first line of stderr %q, want %q", first, want)
	}
}

// A grid of a million jobs is refused at once with the bound, before it
// takes seconds and hundreds of MB to list and look for them.
func TestGridRefusesAbsurdSplits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := run(ctx, []string{"grid", "-datasets", "synthetic", "-models", "gkde", "-settings", "classification", "-inits", "1", "-splits", "1000000", "-out", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "grid of more than 100000 jobs, the most one grid may have") {
		t.Errorf("error %v, want the bound of 100000 jobs", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
}

// train and grid take a directory of CSV files as their dataset
// (datasets.LoadPath): the shipped sample graph, with its own split as the
// only split and what loading did on stderr.
func TestTrainAndGridOnCSVDirectory(t *testing.T) {
	dir := filepath.Join("..", "..", "notebooks", "data", "smallgraph")
	out, errOut, err := runCLI("train", "-dataset", dir, "-model", "gkde")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"300 nodes (15 unlabelled), 4 classes", "its split (27 training, 23 validation, 186 test nodes) is the only split"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "GKDE on smallgraph (300 nodes, 4 classes)") {
		t.Errorf("output:\n%s", out)
	}
	res := t.TempDir()
	if _, _, err := runCLI("grid", "-datasets", dir, "-models", "gkde", "-settings", "classification,loc", "-splits", "3", "-out", res); err != nil {
		t.Fatal(err)
	}
	runs, err := filepath.Glob(filepath.Join(res, "runs", "smallgraph", "gkde", "*.json"))
	if err != nil || len(runs) != 2 {
		t.Errorf("records %v (%v), want the clean and the loc run of the one split", runs, err)
	}
}

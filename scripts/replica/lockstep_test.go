package replica_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// lockStepEpochs is the number of main-phase epochs compared (after a
// PostNet's five warm-up epochs).
const lockStepEpochs = 20

// The float64 tolerances, relative, against the replica run with
// --exact-trigamma. With torch's own derivative of digamma, whose error is
// 4.8e-10 relative at 1 and 2e-10 at 3, the gradient norms drift to 2e-10
// (GPN, LOP-GPN, CUQ-PPR) and 1.5e-8 (CUQ-GCN, CUQ-GAT, from the epoch
// where some α come near 1); with a float64-accurate trigamma every loss
// agrees to 4e-15, every output to 1e-13, and every gradient norm to 6e-14
// but CUQ-GAT's a_dst, zero up to rounding: up to 4e-11 of the floor
// (replica.GradFloor) on CoraML, 4e-10 on Amazon Photos.
const (
	lossTol   = 1e-12
	gradTol   = 2e-9
	outputTol = 1e-10
	rankTol   = 0.999 // least Spearman ρ of every uncertainty measure
)

// python returns the interpreter that runs the replica ($CUQ_REPLICA_PYTHON
// or /usr/bin/python3), skipping the test when it cannot import torch.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv("CUQ_REPLICA_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	if out, err := exec.Command(py, "-c", "import torch, numpy").CombinedOutput(); err != nil {
		t.Skipf("the PyTorch replica needs %s with torch and numpy (set CUQ_REPLICA_PYTHON): %v: %s", py, err, out)
	}
	return py
}

// script returns the path of the replica script.
func script(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "replica.py")
}

// runReplica runs the replica on the exported run in dir with dtype and
// further flags, and reads its result.
func runReplica(t *testing.T, py, dir, dtype string, flags ...string) *replica.Result {
	out := filepath.Join(dir, dtype)
	cmd := exec.Command(py, append([]string{script(t), dir, "--dtype", dtype, "--epochs", fmt.Sprint(lockStepEpochs), "--out", out}, flags...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replica (%s): %v\n%s", dtype, err, b)
	}
	r, err := replica.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLockStep trains each model on CoraML split 1, init 1, with dropout
// off, in cuqgnn and in the PyTorch replica from the same exported initial
// weights, and requires the float64 runs (the replica's with
// --exact-trigamma) to agree epoch by epoch: the loss and the validation
// cross entropy to 1e-12 relative, every parameter's gradient norm to
// 2e-9 (see gradTol), the restored best epoch exactly, the final outputs
// to 1e-10 relative, and the final per-node uncertainty measures to a
// Spearman ρ ≥ 0.999. The replica's float32 run with torch's trigamma,
// the reference's, is reported for its drift. Skipped without python3
// and torch. $CUQ_REPLICA_LOCKSTEP names other shared datasets to check
// (comma-separated, e.g. CoraML,CiteSeer,AmazonPhotos,AmazonComputers);
// the default, CoraML, keeps the test suite's time down.
func TestLockStep(t *testing.T) {
	py := python(t)
	dir := testenv.RequireDatasets(t)
	for _, name := range env("CUQ_REPLICA_LOCKSTEP", "CoraML") {
		g, err := datasets.Load(name, datasets.FromDir(dir), datasets.NoDownload())
		if err != nil {
			t.Fatal(err)
		}
		split, err := g.SplitK(graph.Stratified(0.05, 0.15, 0.8), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, model := range replica.Models {
			sub := model
			if name != "CoraML" {
				sub = name + "/" + model
			}
			t.Run(sub, func(t *testing.T) { lockStep(t, py, name, g, model, split, 0) })
			t.Run(sub+"/dropout", func(t *testing.T) { lockStep(t, py, name, g, model, split, 0.5) })
		}
	}
}

// lockStep is TestLockStep for one model on g. With dropout, the replica
// draws cuqgnn's masks (--go-dropout), so both sides drop the same units;
// only the float64 runs are compared then.
func lockStep(t *testing.T, py, dataset string, g *graph.Graph, model string, split graph.Split, dropout float64) {
	b, err := replica.Preset(dataset, model, dropout, cuq.DefaultSeeding())
	if err != nil {
		t.Fatal(err)
	}
	dir, goSide, m := exportAndTrain(t, b, lockStepEpochs, dataset, g, model, split)
	flags := []string{"--exact-trigamma"}
	if dropout > 0 {
		s := m.Seeding()
		flags = append(flags, "--dropout", fmt.Sprint(dropout), "--go-dropout", fmt.Sprintf("%d,%d", s.Seed, s.Init))
	}
	r64 := runReplica(t, py, dir, "float64", flags...)
	d, err := replica.Compare(goSide, r64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("float64: max relative difference: loss %.2g, gradient norms %.2g (%s), val CE %.2g, output %.2g; gradient norms by epoch %.1e; 1 − Spearman ρ of the measures %v",
		d.Loss, d.GradNorm, d.WorstGrad, d.ValCE, d.Output, d.GradNormAt, rhos(d))
	if !(d.Loss <= lossTol && d.ValCE <= lossTol && d.GradNorm <= gradTol) {
		t.Errorf("float64 runs differ: loss %.3g, val CE %.3g (want ≤ %g), gradient norms %.3g (want ≤ %g)",
			d.Loss, d.ValCE, lossTol, d.GradNorm, gradTol)
	}
	if !(d.Output <= outputTol) {
		t.Errorf("final outputs differ by %.3g relative (want ≤ %g)", d.Output, outputTol)
	}
	for name, rho := range d.Rank {
		if !(rho >= rankTol) {
			t.Errorf("%s: Spearman ρ %.6f between the sides' final measures (want ≥ %g)", name, rho, rankTol)
		}
	}
	if r64.BestEpoch != goSide.BestEpoch {
		t.Errorf("best epoch: replica %d, cuqgnn %d", r64.BestEpoch, goSide.BestEpoch)
	}
	if dropout > 0 {
		return
	}
	d32, err := replica.Compare(goSide, runReplica(t, py, dir, "float32"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("float32: max relative difference: loss %.2g, gradient norms %.2g, val CE %.2g, output %.2g; loss by epoch %.1e; 1 − Spearman ρ %v",
		d32.Loss, d32.GradNorm, d32.ValCE, d32.Output, d32.LossAt, rhos(d32))
}

// rhos formats the rank correlations of d in the measures' order.
func rhos(d replica.Drift) string {
	var s []string
	for _, u := range []string{"TU", "AU", "EU", "EU_PC", "EU_SO"} {
		if rho, ok := d.Rank[u]; ok {
			s = append(s, fmt.Sprintf("%s %.1e", u, 1-rho))
		}
	}
	return strings.Join(s, ", ")
}

// exportAndTrain builds b's model on g, a graph of the named dataset,
// exports its run on split into a temporary directory and trains it in
// cuqgnn; it returns the directory, cuqgnn's result and the trained model.
func exportAndTrain(t *testing.T, b cuq.ModelBuilder, epochs int, dataset string, g *graph.Graph, model string, split graph.Split) (string, *replica.Result, *cuq.Model) {
	t.Helper()
	m, err := b.Done(g)
	if err != nil {
		t.Fatal(err)
	}
	s := experiment.Schedule(dataset, m, epochs)
	dir := t.TempDir()
	if _, err := replica.Export(dir, m, s, dataset, model, 10, 0.1, split); err != nil {
		t.Fatal(err)
	}
	r, err := replica.Train(m, split, s)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, m
}

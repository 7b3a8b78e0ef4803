package replica_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/replica"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// lockStepEpochs is the number of main-phase epochs compared (after a
// PostNet's five warm-up epochs).
const lockStepEpochs = 20

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
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "replica", "replica.py")
}

// rel is the relative difference of a and b.
func rel(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// goRun is cuqgnn's side of a lock-step run.
type goRun struct {
	epochs []cuq.EpochStats
	grads  []map[string]float64
	hist   *cuq.History
	output []float64
}

// trainGo trains m for the lock-step epochs, recording every epoch's loss
// and each parameter's gradient norm.
func trainGo(t *testing.T, m *cuq.Model, split graph.Split) *goRun {
	r := &goRun{}
	flows, others := m.Parameters()
	params := append(others, flows...)
	hist, err := m.Fit(split, cuq.OnEpoch(func(e cuq.EpochStats) {
		r.epochs = append(r.epochs, e)
		norms := map[string]float64{}
		for _, p := range params {
			s := 0.0
			if p.Grad != nil {
				for _, v := range p.Grad.Data {
					s += v * v
				}
			}
			norms[p.Name] = math.Sqrt(s)
		}
		r.grads = append(r.grads, norms)
	}))
	if err != nil {
		t.Fatal(err)
	}
	r.hist = hist
	out, err := m.Forward(nil)
	if err != nil {
		t.Fatal(err)
	}
	r.output = out.Data
	return r
}

// runReplica runs the replica on the exported run in dir with dtype and
// reads its result.
func runReplica(t *testing.T, py, dir, dtype string) *replica.Result {
	out := filepath.Join(dir, dtype)
	cmd := exec.Command(py, script(t), dir, "--dtype", dtype, "--epochs", fmt.Sprint(lockStepEpochs), "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replica (%s): %v\n%s", dtype, err, b)
	}
	r, err := replica.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// drift holds the largest relative differences of a replica run from
// cuqgnn's.
type drift struct {
	loss, grad, valCE, output float64
	lossAt                    []float64 // per epoch
}

func compare(t *testing.T, g *goRun, r *replica.Result) drift {
	t.Helper()
	var d drift
	if len(r.Epochs) != len(g.epochs) {
		t.Fatalf("replica ran %d epochs, cuqgnn %d", len(r.Epochs), len(g.epochs))
	}
	for i, re := range r.Epochs {
		ge := g.epochs[i]
		if re.Phase != ge.Phase.String() || re.Epoch != ge.Epoch {
			t.Fatalf("epoch %d: replica at %s %d, cuqgnn at %s %d", i, re.Phase, re.Epoch, ge.Phase, ge.Epoch)
		}
		l := rel(re.Loss, ge.Loss)
		d.lossAt = append(d.lossAt, l)
		d.loss = max(d.loss, l)
		if !math.IsNaN(ge.ValCE) {
			d.valCE = max(d.valCE, rel(re.ValCE, ge.ValCE))
		}
		for name, gn := range g.grads[i] {
			rn, ok := re.GradNorms[name]
			if !ok {
				t.Fatalf("replica reports no gradient of %s", name)
			}
			d.grad = max(d.grad, rel(rn, gn))
		}
	}
	if len(r.Values) != len(g.output) {
		t.Fatalf("replica output has %d values, cuqgnn %d", len(r.Values), len(g.output))
	}
	for i, v := range r.Values {
		d.output = max(d.output, rel(v, g.output[i]))
	}
	return d
}

// TestLockStep trains each model on CoraML split 1, init 1, with dropout
// off, in cuqgnn and in the PyTorch replica from the same exported initial
// weights, and requires the float64 runs to agree epoch by epoch: the
// loss, every parameter's gradient norm and the validation cross entropy
// to 1e-8 relative, the restored best epoch exactly, and the final
// outputs to 1e-6 relative. The replica's float32 run is reported for its
// drift. Skipped without python3 and torch.
func TestLockStep(t *testing.T) {
	py := python(t)
	g, err := datasets.Load("CoraML", datasets.FromDir(testenv.RequireDatasets(t)), datasets.NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.SplitK(graph.Stratified(0.05, 0.15, 0.8), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range replica.Models {
		t.Run(model, func(t *testing.T) {
			b, err := replica.Preset(g, model)
			if err != nil {
				t.Fatal(err)
			}
			m, err := b.MaxEpochs(lockStepEpochs).Build()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := replica.Export(dir, m, model, 10, 0.1, split); err != nil {
				t.Fatal(err)
			}
			goSide := trainGo(t, m, split)
			r64 := runReplica(t, py, dir, "float64")
			d := compare(t, goSide, r64)
			t.Logf("float64: max relative difference: loss %.2g, gradient norms %.2g, val CE %.2g, output %.2g",
				d.loss, d.grad, d.valCE, d.output)
			if d.loss > 1e-8 || d.grad > 1e-8 || d.valCE > 1e-8 {
				t.Errorf("float64 runs differ: loss %.3g, gradient norms %.3g, val CE %.3g (want ≤ 1e-8)", d.loss, d.grad, d.valCE)
			}
			if d.output > 1e-6 {
				t.Errorf("final outputs differ by %.3g relative (want ≤ 1e-6)", d.output)
			}
			if r64.BestEpoch != goSide.hist.BestEpoch {
				t.Errorf("best epoch: replica %d, cuqgnn %d", r64.BestEpoch, goSide.hist.BestEpoch)
			}
			r32 := runReplica(t, py, dir, "float32")
			d32 := compare(t, goSide, r32)
			t.Logf("float32: max relative difference: loss %.2g, gradient norms %.2g, val CE %.2g, output %.2g; loss by epoch %.1e",
				d32.loss, d32.grad, d32.valCE, d32.output, d32.lossAt)
		})
	}
}

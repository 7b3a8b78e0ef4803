package chart

import (
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// goldenCharts builds a chart of every prediction-based builder on the
// test predictions.
func goldenCharts(t *testing.T) map[string]*Chart {
	t.Helper()
	p, cp, sp := testPrediction(t), calibrationPrediction(t), setSizePrediction(t)
	all := []int{0, 1, 2, 3, 4}
	nan := math.NaN()
	h := &cuq.History{
		Epochs: []cuq.EpochStats{
			{Phase: cuq.WarmupPhase, Epoch: 1, Loss: 5, ValCE: nan},
			{Phase: cuq.TrainPhase, Epoch: 1, Loss: 3, ValCE: 1.2, ValAcc: 0.5},
			{Phase: cuq.TrainPhase, Epoch: 2, Loss: 2, ValCE: 0.9, ValAcc: 0.7},
		},
		BestEpoch: 2, Stopped: "early stopping",
	}
	builders := map[string]interface{ Done() (*Chart, error) }{
		"arc":           ARCOf(p, all),
		"arc-measures":  ARCOf(p, all).Measures(uq.EU, uq.TU),
		"decomposition": DecompositionOf(p, []int{0, 1, 4}).OOD([]int{2, 3}),
		"decomp-log":    DecompositionOf(p, all).LogEU(),
		"neighbourhood": NeighbourhoodOf(p, 2).Measures(uq.EU, uq.AU).Mark([]int{3}, "noisy"),
		"history":       HistoryOf(h),
		"reliability":   ReliabilityOf(cp, all).Bins(4),
		"risk-coverage": RiskCoverageOf(cp, all),
		"set-sizes":     SetSizesOf(sp, all).Scores(conformal.APS{}).Seed(3),
	}
	out := map[string]*Chart{}
	for name, b := range builders {
		c, err := b.Done()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = c
	}
	return out
}

// TestGoldenOptions checks that the charts of predictions keep their
// ECharts options: a change shows as a diff against testdata/golden.txt
// (go test -run TestGoldenOptions -update rewrites it).
func TestGoldenOptions(t *testing.T) {
	charts := goldenCharts(t)
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		var b strings.Builder
		for _, name := range sortedKeys(charts) {
			b.WriteString("== " + name + "\n" + charts[name].Option() + "\n")
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for k := 0; k+1 < len(lines); k += 2 {
		want[strings.TrimPrefix(lines[k], "== ")] = lines[k+1]
	}
	if len(want) != len(charts) {
		t.Errorf("%d golden options for %d charts", len(want), len(charts))
	}
	for name, c := range charts {
		if got := c.Option(); got != want[name] {
			t.Errorf("%s: option changed\ngot  %.300s\nwant %.300s", name, got, want[name])
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestNoModelImport checks that the package draws from interfaces and
// slices: it does not depend on package cuq, the models.
func TestNoModelImport(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/cuqgnn/cuqgnn/cuq" {
			t.Error("package chart depends on package cuq")
		}
	}
}

package cuq

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// metricsPrediction returns a two-class prediction on a path of six nodes
// with hand-computed metrics. Node 5 is unlabelled.
//
//	node  p̄          label  predicted  TU
//	0     0.9 0.1    0      0 right    0.1
//	1     0.2 0.8    0      1 wrong    0.4
//	2     0.6 0.4    0      0 right    0.4
//	3     0.45 0.55  1      1 right    0.8
//	4     0.3 0.7    0      1 wrong    0.9
//	5     0.5 0.5    -1     0          0.2
func metricsPrediction(t *testing.T) *Prediction {
	t.Helper()
	b := graph.NewBuilder(2)
	for _, y := range []int{0, 0, 0, 1, 0, -1} {
		b.Node(y, 1)
	}
	g, err := b.Chain(0, 1, 2, 3, 4, 5).Done()
	if err != nil {
		t.Fatal(err)
	}
	return &Prediction{
		Model: "Toy", Graph: g, Classes: 2, Class: []int{0, 1, 0, 1, 1, 0},
		Prob:     tensor.MustFromSlice(6, 2, []float64{0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.45, 0.55, 0.3, 0.7, 0.5, 0.5}),
		Measures: uq.Measures{TU: []float64{0.1, 0.4, 0.4, 0.8, 0.9, 0.2}},
	}
}

func TestPredictionCalibration(t *testing.T) {
	p := metricsPrediction(t)
	c, err := p.Calibration([]int{0, 1, 2, 3}, eval.CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// As eval's hand-computed case: confidences 0.9 ✓, 0.8 ✗, 0.6 ✓, 0.55 ✓.
	if c.Nodes != 4 || math.Abs(c.ECE-0.4375) > 1e-15 || c.MCE != 0.8 || math.Abs(c.Brier-0.50625) > 1e-15 {
		t.Errorf("calibration %+v, want ECE 0.4375, MCE 0.8, Brier 0.50625", c)
	}
	if _, err := p.Calibration(nil, eval.CalibrationOptions{}); err == nil || !strings.Contains(err.Error(), "cuq: Toy: eval: CalibrationOf: node 5 has label -1") {
		t.Errorf("unlabelled node: error %v", err)
	}
	p.Prob = nil
	if _, err := p.Calibration([]int{0}, eval.CalibrationOptions{}); err == nil || !strings.Contains(err.Error(), "needs class probabilities") {
		t.Errorf("no probabilities: error %v", err)
	}
}

func TestPredictionMisclassificationDetection(t *testing.T) {
	p := metricsPrediction(t)
	// Right: TU 0.1, 0.4, 0.8; wrong: 0.4, 0.9. Pairs wrong above right:
	// 0.9 beats all three, 0.4 beats 0.1 and ties 0.4: (3 + 1.5)/6.
	// From the top: 0.9 ✗ (precision 1), 0.8 ✓, then the tie 0.4 {✗, ✓}
	// (precision 2/4): AP = (1 + ½)/2. TPR 0.95 needs 1.9 of 2 wrong:
	// 0.9 of the way through the tie, FPR (1 + 0.9·1)/3.
	d, err := p.MisclassificationDetection(uq.TU, []int{0, 1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.AUROC-0.75) > 1e-15 || math.Abs(d.AUPRPositive-0.75) > 1e-15 || math.Abs(d.FPR95-1.9/3) > 1e-15 {
		t.Errorf("detection %+v, want AUROC 0.75, AUPR 0.75, FPR95 %v", d, 1.9/3)
	}
	for _, tc := range []struct {
		nodes []int
		u     uq.Measure
		want  string
	}{
		{[]int{0, 2}, uq.TU, "needs right and wrong predictions, got 2 right and 0 wrong"},
		{[]int{0, 5}, uq.TU, "node 5 has label -1"},
		{[]int{0, 6}, uq.TU, "node 6 has no prediction or label"},
		{[]int{0, 1}, uq.EU, "Toy has no EU"},
	} {
		if _, err := p.MisclassificationDetection(tc.u, tc.nodes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("nodes %v: error %v, want %q", tc.nodes, err, tc.want)
		}
	}
}

func TestPredictionOODDetection(t *testing.T) {
	p := metricsPrediction(t)
	d, err := p.OODDetection(uq.TU, []int{0, 1, 2}, []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	auroc, _ := p.AUROC(uq.TU, []int{0, 1, 2}, []int{3, 4})
	// OOD 0.8 and 0.9 above every ID node.
	if d.AUROC != auroc || d.AUROC != 1 || d.AUPRPositive != 1 || d.AUPRNegative != 1 || d.FPR95 != 0 {
		t.Errorf("detection %+v (AUROC %v), want a perfect separation", d, auroc)
	}
	if _, err := p.OODDetection(uq.TU, []int{0}, nil); err == nil || !strings.Contains(err.Error(), "cuq: Toy: eval: DetectionOf: need negatives and positives") {
		t.Errorf("no OOD nodes: error %v", err)
	}
	if _, err := p.OODDetection(uq.TU, []int{0}, []int{-1}); err == nil || !strings.Contains(err.Error(), "node -1 outside") {
		t.Errorf("bad OOD node: error %v", err)
	}
}

func TestPredictionRiskCoverage(t *testing.T) {
	p := metricsPrediction(t)
	rc, err := p.RiskCoverage(uq.TU, []int{0, 1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	// Kept by TU: 0.1 ✓, the tie 0.4 {✗, ✓} (½ error each), 0.8 ✓, 0.9 ✗.
	want := []float64{0, 0.5 / 2, 1.0 / 3, 1.0 / 4, 2.0 / 5}
	for k := range want {
		if math.Abs(rc.Risk[k]-want[k]) > 1e-15 {
			t.Errorf("risks %v, want %v", rc.Risk, want)
			break
		}
	}
	if _, err := p.RiskCoverage(uq.TU, []int{5}); err == nil || !strings.Contains(err.Error(), "node 5 has label -1") {
		t.Errorf("unlabelled node: error %v", err)
	}
	if _, err := p.RiskCoverage(uq.TU, nil); err == nil || !strings.Contains(err.Error(), "no nodes") {
		t.Errorf("no nodes: error %v", err)
	}
}

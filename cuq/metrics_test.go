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
}

// TestPredictionCalibrationByGraph checks the calibration by degree and by
// local homophily that Prediction.Calibration takes from its graph, the
// path 0 – 1 – … – 5, by hand for nodes 0 – 3: degree 1 holds node 0 (0.9
// ✓), degree 2 nodes 1 – 3 (0.8 ✗, 0.6 ✓, 0.55 ✓: accuracy ⅔, confidence
// 0.65, ECE (0.8 + 2·|1 − 0.575|)/3 = 0.55). Nodes 0 and 1 have both
// neighbours labelled alike (homophily 1: accuracy ½, confidence 0.85),
// node 2 one of two (½: 1, 0.6), node 3 none (0: 1, 0.55).
func TestPredictionCalibrationByGraph(t *testing.T) {
	p := metricsPrediction(t)
	c, err := p.Calibration([]int{0, 1, 2, 3}, eval.CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	d, h := c.ByDegree, c.ByHomophily
	if len(d) != 3 || d[0].Count != 0 || d[1].Count != 1 || !near(d[1].ECE, 0.1) ||
		d[2].Count != 3 || !near(d[2].Accuracy, 2.0/3) || !near(d[2].Confidence, 0.65) || !near(d[2].ECE, 0.55) {
		t.Errorf("by degree %+v", d)
	}
	if len(h) != 5 || h[0].Count != 1 || !near(h[0].Confidence, 0.55) || h[2].Count != 1 || !near(h[2].Confidence, 0.6) ||
		h[4].Count != 2 || h[4].Accuracy != 0.5 || !near(h[4].Confidence, 0.85) || h[1].Count+h[3].Count != 0 {
		t.Errorf("by homophily %+v", h)
	}
	// Covariates given by the caller replace the graph's.
	c, err = p.Calibration([]int{0, 1, 2, 3}, eval.CalibrationOptions{Degree: []int{0, 0, 0, 0, 0, 0}, Homophily: []float64{0, 0, 0, 0, 0, 0}, HomophilyBins: 2})
	if err != nil || len(c.ByDegree) != 1 || c.ByDegree[0].Count != 4 || len(c.ByHomophily) != 2 || c.ByHomophily[0].Count != 4 {
		t.Errorf("given covariates: %+v, %+v, %v", c.ByDegree, c.ByHomophily, err)
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
}

// errOf returns the error of a call that returns a value and an error.
func errOf[T any](_ T, err error) error { return err }

func TestPredictionMetricErrors(t *testing.T) {
	p := metricsPrediction(t)
	noProb := metricsPrediction(t)
	noProb.Prob = nil
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"calibration, unlabelled node", errOf(p.Calibration(nil, eval.CalibrationOptions{})), "cuq: Toy: eval: CalibrationOf: node 5 has label -1"},
		{"calibration, no probabilities", errOf(noProb.Calibration([]int{0}, eval.CalibrationOptions{})), "needs class probabilities"},
		{"misclassification, all right", errOf(p.MisclassificationDetection(uq.TU, []int{0, 2})), "needs right and wrong predictions, got 2 right and 0 wrong"},
		{"misclassification, unlabelled node", errOf(p.MisclassificationDetection(uq.TU, []int{0, 5})), "node 5 has label -1"},
		{"misclassification, node out of range", errOf(p.MisclassificationDetection(uq.TU, []int{0, 6})), "node 6 has no prediction or label"},
		{"misclassification, missing measure", errOf(p.MisclassificationDetection(uq.EU, []int{0, 1})), "Toy has no EU"},
		{"OOD, no OOD nodes", errOf(p.OODDetection(uq.TU, []int{0}, nil)), "cuq: Toy: eval: DetectionOf: need negatives and positives"},
		{"OOD, bad OOD node", errOf(p.OODDetection(uq.TU, []int{0}, []int{-1})), "node -1 outside"},
		{"risk-coverage, unlabelled node", errOf(p.RiskCoverage(uq.TU, []int{5})), "node 5 has label -1"},
		{"risk-coverage, no nodes", errOf(p.RiskCoverage(uq.TU, nil)), "no nodes"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

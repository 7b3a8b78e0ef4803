package eval_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

func ExampleCalibrationOf() {
	// Four nodes, two classes: class probabilities row by row.
	prob := []float64{
		0.9, 0.1,
		0.2, 0.8, // confident and wrong
		0.6, 0.4,
		0.45, 0.55,
	}
	labels := []int{0, 0, 0, 1}
	c, err := eval.CalibrationOf(prob, 2, labels, nil, eval.CalibrationOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("accuracy %.2f, confidence %.4f\n", c.Accuracy, c.Confidence)
	fmt.Printf("ECE %.4f, MCE %.2f, adaptive ECE %.4f\n", c.ECE, c.MCE, c.AdaptiveECE)
	fmt.Printf("Brier %.5f, NLL %.4f\n", c.Brier, c.NLL)
	for _, b := range c.Bins {
		if b.Count > 0 {
			fmt.Printf("(%.1f, %.1f]: %d nodes, confidence %.3f, accuracy %.1f\n", b.Lo, b.Hi, b.Count, b.Confidence, b.Accuracy)
		}
	}
	// Output:
	// accuracy 0.75, confidence 0.7125
	// ECE 0.4375, MCE 0.80, adaptive ECE 0.4375
	// Brier 0.50625, NLL 0.7059
	// (0.5, 0.6]: 2 nodes, confidence 0.575, accuracy 1.0
	// (0.7, 0.8]: 1 nodes, confidence 0.800, accuracy 0.0
	// (0.8, 0.9]: 1 nodes, confidence 0.900, accuracy 1.0
}

func ExampleDetectionOf() {
	// Uncertainties of ID (negative) and OOD (positive) nodes.
	id := []float64{0.1, 0.4, 0.4}
	ood := []float64{0.4, 0.8}
	d, err := eval.DetectionOf(id, ood)
	if err != nil {
		panic(err)
	}
	fmt.Printf("AUROC %.4f\n", d.AUROC)
	fmt.Printf("AUPR, OOD positive %.4f, ID positive %.4f\n", d.AUPRPositive, d.AUPRNegative)
	fmt.Printf("FPR at 95%% TPR %.2f\n", d.FPR95)
	// Output:
	// AUROC 0.8333
	// AUPR, OOD positive 0.7500, ID positive 0.8333
	// FPR at 95% TPR 0.60
}

func ExampleRiskCoverageOf() {
	uncertainty := []float64{0.9, 0.1, 0.7, 0.2, 0.3}
	correct := []bool{false, true, false, true, true}
	rc, err := eval.RiskCoverageOf(uncertainty, correct)
	if err != nil {
		panic(err)
	}
	for k := range rc.Risk {
		fmt.Printf("coverage %.1f: risk %.2f\n", rc.Coverage[k], rc.Risk[k])
	}
	fmt.Printf("AURC %.2f\n", rc.AURC())
	// The accuracy-rejection curve is 0.6 up to rejecting 20%, 0.75 from
	// 21% to 40% and 1 from 41%: its area is 0.2·0.6 + 0.01·0.675 +
	// 0.19·0.75 + 0.01·0.875 + 0.59·1.
	arc, _ := eval.ARC(uncertainty, correct)
	area, _ := arc.Area()
	fmt.Printf("area under the accuracy-rejection curve %.4f\n", area)
	// Output:
	// coverage 0.2: risk 0.00
	// coverage 0.4: risk 0.00
	// coverage 0.6: risk 0.00
	// coverage 0.8: risk 0.25
	// coverage 1.0: risk 0.40
	// AURC 0.13
	// area under the accuracy-rejection curve 0.8680
}

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

// The AUROC, as AUROC alone gives it, counts the pairs of a positive and a
// negative in which the positive is more uncertain, ties counting ½: here
// 5 of 6 pairs.
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

// Four nodes, two of them tied at the lowest uncertainty, one of those
// wrong. Keeping one node keeps either of the tied two, at random: half an
// error on average.
func ExampleRiskCoverageOf() {
	rc, err := eval.RiskCoverageOf(
		[]float64{0.2, 0.2, 0.5, 0.9},
		[]bool{true, false, true, false})
	if err != nil {
		panic(err)
	}
	for k := range rc.Risk {
		fmt.Printf("coverage %.2f: risk %.3f\n", rc.Coverage[k], rc.Risk[k])
	}
	fmt.Printf("AURC %.3f\n", rc.AURC())
	// Output:
	// coverage 0.25: risk 0.500
	// coverage 0.50: risk 0.500
	// coverage 0.75: risk 0.333
	// coverage 1.00: risk 0.500
	// AURC 0.458
}

// The classwise ECE looks at every class's probability, not only the top
// one: four nodes of three classes over two bins (TestClasswiseECEByHand
// has the hand computation, ⅙), against the top-label ECE: confidences
// 0.5 ✗ and 0.4 ✗ in the low bin (gap 0.45), 0.7 ✓ and 0.8 ✓ in the high
// one (gap 0.25), ECE 0.35.
func ExampleClasswiseECE() {
	prob := []float64{0.7, 0.2, 0.1, 0.5, 0.3, 0.2, 0.1, 0.1, 0.8, 0.4, 0.4, 0.2}
	labels := []int{0, 1, 2, 2}
	cw, err := eval.ClasswiseECE(prob, 3, labels, nil, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := eval.CalibrationOf(prob, 3, labels, nil, eval.CalibrationOptions{Bins: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("classwise ECE %.4f, ECE %.4f\n", cw, c.ECE)
	// Output:
	// classwise ECE 0.1667, ECE 0.3500
}

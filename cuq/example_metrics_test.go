package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Beyond accuracy-rejection curves and OOD AUROC: how calibrated a model's
// probabilities are, and how well its uncertainty flags its own mistakes.
// The prediction is made by hand: five nodes on a path, nodes 1 and 4
// predicted wrong, the most uncertain (TU 0.9) among them. Any model's
// Predict gives a prediction to use the same way.
func ExamplePrediction_Calibration() {
	g, _ := graph.NewBuilder(2).Nodes(3, 0, 1).Node(1, 1).Node(0, 1).Chain(0, 1, 2, 3, 4).Done()
	pred := &cuq.Prediction{Model: "Hand", Graph: g, Classes: 2, Class: []int{0, 1, 0, 1, 1},
		Prob:     tensor.MustFromSlice(5, 2, []float64{0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.45, 0.55, 0.3, 0.7}),
		Measures: uq.Measures{TU: []float64{0.1, 0.4, 0.4, 0.8, 0.9}}}
	nodes := []int{0, 1, 2, 3, 4}

	c, err := pred.Calibration(nodes, eval.CalibrationOptions{Bins: 10})
	if err != nil {
		panic(err)
	}
	// Predicting ½ for both classes would score Brier 0.5.
	fmt.Printf("accuracy %.2f, confidence %.2f, ECE %.2f, Brier %.3f\n", c.Accuracy, c.Confidence, c.ECE, c.Brier)

	d, err := pred.MisclassificationDetection(uq.TU, nodes)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("TU flags the mistakes: AUROC %.3f\n", d.AUROC)
	// Output:
	// accuracy 0.60, confidence 0.71, ECE 0.49, Brier 0.601
	// TU flags the mistakes: AUROC 0.750
}

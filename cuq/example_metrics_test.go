package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Beyond accuracy-rejection curves and OOD AUROC: how calibrated a trained
// model's probabilities are, and how well its uncertainty flags its own
// mistakes.
func ExamplePrediction_Calibration() {
	g, _ := datasets.CSBM(200, 2).Seed(2).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model := cuq.APPNPModel(g).MustBuild()
	if _, err := model.Fit(split); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)

	c, err := pred.Calibration(split.Test, eval.CalibrationOptions{Bins: 15})
	if err != nil {
		panic(err)
	}
	fmt.Println("test nodes:", c.Nodes == len(split.Test), "bins:", len(c.Bins))
	// Predicting ½ for both classes would score 0.5.
	fmt.Println("Brier below the uniform prediction's:", c.Brier < 0.5)

	d, err := pred.MisclassificationDetection(uq.TU, split.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("TU ranks mistakes above chance:", d.AUROC > 0.5)
	// Output:
	// test nodes: true bins: 15
	// Brier below the uniform prediction's: true
	// TU ranks mistakes above chance: true
}

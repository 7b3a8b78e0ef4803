package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Prediction sets for a trained model's test nodes: half of them calibrate,
// the other half get sets that hold their label with probability at least
// 90%, by APS, RAPS and DAPS on the same split.
func ExamplePrediction_Conformal() {
	g, _ := datasets.CSBM(300, 3).Seed(2).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	model := cuq.APPNPModel(g).MustBuild()
	if _, err := model.Fit(split); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)

	res, err := pred.Conformal(split.Test, conformal.Options{Alpha: 0.1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%-22s %d calibration, %d evaluation nodes, coverage ≥ 85%%: %v\n",
			r.Score, len(r.Calibration), len(r.Nodes), r.Coverage >= 0.85)
	}
	// Diffusing the scores over the graph shrinks the sets.
	fmt.Println("DAPS sets smaller than APS's:", res[2].MeanSize < res[0].MeanSize)
	// Output:
	// APS                    75 calibration, 75 evaluation nodes, coverage ≥ 85%: true
	// RAPS (λ 0.1, k_reg 1)  75 calibration, 75 evaluation nodes, coverage ≥ 85%: true
	// DAPS (λ 0.5)           75 calibration, 75 evaluation nodes, coverage ≥ 85%: true
	// DAPS sets smaller than APS's: true
}

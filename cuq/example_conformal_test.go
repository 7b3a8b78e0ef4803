package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Prediction sets for a prediction's test nodes: half of them calibrate,
// the other half get sets that hold their label with probability at least
// 1−α, here by non-randomised APS and by its diffusion over the graph
// (DAPS) on the same split. The prediction is made by hand: two
// communities on a path, the model unsure at their border (nodes 2, 3).
// The border nodes calibrate, and APS needs both classes everywhere to
// cover them; DAPS averages each node's scores with its neighbours', which
// agree away from the border, and gets singletons. Any model's Predict
// gives a prediction to use the same way.
func ExamplePrediction_Conformal() {
	g, _ := graph.NewBuilder(2).Nodes(3, 0, 1).Nodes(3, 1, 2).Chain(0, 1, 2, 3, 4, 5).Done()
	pred := &cuq.Prediction{Model: "Hand", Graph: g, Classes: 2, Class: []int{0, 0, 1, 0, 1, 1},
		Prob: tensor.MustFromSlice(6, 2, []float64{0.9, 0.1, 0.8, 0.2, 0.45, 0.55, 0.55, 0.45, 0.3, 0.7, 0.1, 0.9})}
	aps := conformal.APS{NonRandomized: true}
	res, err := pred.Conformal([]int{0, 1, 2, 3, 4, 5}, conformal.Options{
		Scores: []conformal.Score{aps, conformal.DAPS{Base: aps}},
		Alpha:  0.25,
		Seed:   1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: calibration %v, q̂ %.3f\n", r.Score, r.Calibration, r.Quantile)
		for k, node := range r.Nodes {
			fmt.Printf("  node %d: set %v\n", node, r.Sets[k])
		}
		fmt.Printf("  coverage %.2f, mean size %.2f\n", r.Coverage, r.MeanSize)
	}
	// Output:
	// APS (non-randomised): calibration [1 2 3], q̂ 1.000
	//   node 0: set [0 1]
	//   node 4: set [0 1]
	//   node 5: set [0 1]
	//   coverage 1.00, mean size 2.00
	// DAPS (λ 0.5) of APS (non-randomised): calibration [1 2 3], q̂ 0.875
	//   node 0: set [0]
	//   node 4: set [1]
	//   node 5: set [1]
	//   coverage 1.00, mean size 1.00
}

package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// GNNSafe on a GCN trained with its last class left out: the propagated
// energy of the left-out class's test nodes is higher.
func ExampleGNNSafe() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	loc, _ := graph.LeaveOutClasses(g, split, 1)
	model, err := cuq.GNNSafe(cuq.GCN()).Alpha(0.5).Steps(2).Done(loc.Graph)
	if err != nil {
		panic(err)
	}
	if _, err := model.Fit(loc.Split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	pred, err := model.Predict(nil)
	if err != nil {
		panic(err)
	}
	auroc, _ := pred.AUROC(uq.GNNSafe, loc.IDTest, loc.OODTest)
	fmt.Println(pred.Model, "measures:", pred.Available())
	fmt.Println("AUROC above 0.5:", auroc > 0.5)
	// Output:
	// GNNSafe-GCN measures: [TU LC GNNSAFE]
	// AUROC above 0.5: true
}

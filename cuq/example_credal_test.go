package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// A committee's credal sets are the hulls of its members' predictions: the
// credal measures join the others once added, and the classes no other
// class dominates form a prediction set beside the conformal ones.
func ExamplePrediction_AddCredal() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	ensemble, err := cuq.Ensemble(cuq.GCN(), 5).Done(g)
	if err != nil {
		panic(err)
	}
	if _, err := ensemble.Fit(split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	pred, err := ensemble.Predict(nil)
	if err != nil {
		panic(err)
	}
	// The strength s of the IDM matters to Dirichlet models only.
	if err := pred.AddCredal(0); err != nil {
		panic(err)
	}
	fmt.Println("measures:", pred.Available())
	arc, err := pred.ARC(uq.EUCredal, split.Test)
	if err != nil {
		panic(err)
	}
	fmt.Println("rejecting by EU_CREDAL raises accuracy:", arc.Acc[50] > arc.Acc[0])
	sets, err := pred.CredalPredictionSets(0, split.Test)
	if err != nil {
		panic(err)
	}
	fmt.Println("coverage at least accuracy:", sets.Coverage >= pred.Accuracy(split.Test))
	// Output:
	// measures: [TU AU EU LC H_UPPER H_LOWER EU_CREDAL GH CREDAL_SIZE]
	// rejecting by EU_CREDAL raises accuracy: true
	// coverage at least accuracy: true
}

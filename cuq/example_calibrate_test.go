package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// CaGCN learns a temperature per node with a GCN on the validation nodes;
// the classes stay.
func ExampleCaGCN() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model, _ := cuq.APPNP().Done(g)
	if _, err := model.Fit(split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)
	calibrated, temps, err := cuq.CaGCN().Seed(1).Done().Calibrate(pred, split)
	if err != nil {
		panic(err)
	}
	fmt.Println(calibrated.Model, "has one temperature per node:", len(temps) == g.N)
	fmt.Println("same accuracy:", calibrated.Accuracy(split.Test) == pred.Accuracy(split.Test))
	fmt.Println("measures:", calibrated.Available())
	// Output:
	// APPNP+CaGCN has one temperature per node: true
	// same accuracy: true
	// measures: [TU LC]
}

// GATS learns a temperature per node by attention over the neighbours,
// with the distance to the training nodes and the relative confidence.
func ExampleGATS() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model, _ := cuq.APPNP().Done(g)
	if _, err := model.Fit(split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)
	calibrated, temps, err := cuq.GATS().Seed(1).Done().Calibrate(pred, split)
	if err != nil {
		panic(err)
	}
	positive := true
	for _, t := range temps {
		positive = positive && t > 0
	}
	fmt.Println(calibrated.Model, "temperatures all positive:", positive)
	fmt.Println("same classes:", calibrated.Accuracy(split.Test) == pred.Accuracy(split.Test))
	// Output:
	// APPNP+GATS temperatures all positive: true
	// same classes: true
}

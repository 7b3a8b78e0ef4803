package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// A CUQ-GCN assembled from parts, trained with a schedule of its own and
// asked for its uncertainty.
func Example() {
	g, err := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	if err != nil {
		panic(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	if err != nil {
		panic(err)
	}
	model, err := cuq.CUQ().
		Encoder(cuq.MLP(32).Dropout(0.5)).
		Conv(cuq.GCNConv(32).Layers(2)).
		Latent(8).
		Flows(6).
		Done(g)
	if err != nil {
		panic(err)
	}
	schedule := model.Schedule() // the reference's: cuq.PostNetSchedule()
	schedule.MaxEpochs = 200
	if _, err := model.Fit(split, schedule); err != nil {
		panic(err)
	}
	pred, err := model.Predict(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("accuracy above 80%:", pred.Accuracy(split.Test) > 0.8)
	fmt.Println("measures:", pred.Available())
	eu, _ := pred.Uncertainty(uq.EU)
	fmt.Println("one EU per node:", len(eu) == g.N)
	// Output:
	// accuracy above 80%: true
	// measures: [TU AU EU EU_PC EU_SO LC]
	// one EU per node: true
}

// The paper's presets carry its hyperparameters; APPNP is first-order and
// has total uncertainty only.
func ExampleAPPNP() {
	g, _ := datasets.CSBM(200, 2).Seed(2).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model, _ := cuq.APPNP().Done(g)
	if _, err := model.Fit(split); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)
	_, err := pred.Uncertainty(uq.EU)
	fmt.Println(pred.Available())
	fmt.Println(err)
	// Output:
	// [TU LC]
	// cuq: APPNP has no EU; it provides [TU LC]
}

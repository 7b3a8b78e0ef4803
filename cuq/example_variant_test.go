package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// A GPN trained once, then asked with other propagations, as a notebook's
// sliders do: each variant shares the model's parameters, so nothing is
// trained again. With K = 0 it sees each node's own features only; the
// propagation of evidence over the homophilous graph makes it more
// accurate.
func ExampleModel_WithPropagation() {
	g, err := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(0.5).Seed(1).Done()
	if err != nil {
		panic(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	if err != nil {
		panic(err)
	}
	model, err := cuq.GPN().MaxEpochs(200).Done(g)
	if err != nil {
		panic(err)
	}
	if _, err := model.Fit(split); err != nil {
		panic(err)
	}
	acc := map[int]float64{}
	for _, k := range []int{0, 2, 10} {
		variant, err := model.WithPropagation(k, 0.1)
		if err != nil {
			panic(err)
		}
		pred, err := variant.Predict(nil)
		if err != nil {
			panic(err)
		}
		acc[k] = pred.Accuracy(split.Test)
		fmt.Println(variant.Name())
	}
	fmt.Println("propagation raises the accuracy:", acc[0] < acc[2] && acc[2] <= acc[10])
	_, err = model.WithPropagation(-1, 0.1)
	fmt.Println(err)
	// Output:
	// GPN, K = 0, t = 0.1
	// GPN, K = 2, t = 0.1
	// GPN
	// propagation raises the accuracy: true
	// cuq: GPN: WithPropagation(-1, 0.1): need K ≥ 0 and teleport t ∈ [0, 1]
}

// The GPN of the paper pools its nodes' opinions log-linearly; the same
// trained parameters pool them linearly as LOP-GPN does, or behaviourally
// as CUQ-PPR does, with the measures of those models.
func ExampleModel_WithPooling() {
	g, err := datasets.CSBM(200, 2).Seed(2).Done()
	if err != nil {
		panic(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	if err != nil {
		panic(err)
	}
	model, err := cuq.GPN().MaxEpochs(50).Done(g)
	if err != nil {
		panic(err)
	}
	if _, err := model.Fit(split); err != nil {
		panic(err)
	}
	for _, p := range []cuq.Pooling{cuq.LogLinear, cuq.Linear, cuq.Behavioral} {
		variant, err := model.WithPooling(p)
		if err != nil {
			panic(err)
		}
		pred, err := variant.Predict(nil)
		if err != nil {
			panic(err)
		}
		fmt.Println(variant.Name(), pred.Available(), len(pred.Get(uq.EUFeat)) == g.N)
	}
	gcn, err := cuq.CUQGCN().Done(g)
	if err != nil {
		panic(err)
	}
	_, err = gcn.WithPooling(cuq.Linear)
	fmt.Println(err)
	// Output:
	// GPN [TU AU EU EU_PC EU_SO LC] true
	// GPN, linear pooling [TU AU EU EU_PC EU_SO LC] true
	// GPN, behavioral pooling [TU AU EU EU_PC EU_SO LC] true
	// cuq: WithPooling: CUQ-GCN has no APPNP propagation (GCN layers); WithPooling applies to GPN, LOP-GPN and CUQ-PPR, whose parameters fit every pooling
}

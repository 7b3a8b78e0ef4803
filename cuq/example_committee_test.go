package cuq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// A deep ensemble of five GCNs: its measures are the entropy decomposition
// of the members' predictions.
func ExampleEnsemble() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	ensemble, err := cuq.Ensemble(cuq.GCN(), 5).Name("Ensemble-GCN").Done(g)
	if err != nil {
		panic(err)
	}
	hist, err := ensemble.Fit(split, cuq.MaxEpochs(100))
	if err != nil {
		panic(err)
	}
	pred, err := ensemble.Predict(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("members trained:", len(hist.Members))
	fmt.Println("accuracy above 80%:", pred.Accuracy(split.Test) > 0.8)
	fmt.Println("measures:", pred.Available())
	// Output:
	// members trained: 5
	// accuracy above 80%: true
	// measures: [TU AU EU LC]
}

// MC dropout keeps dropout on at prediction and averages the passes; the
// same seed gives the same prediction.
func ExampleFirstOrderBuilder_MCDropout() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model, _ := cuq.GCN().MCDropout(10).Done(g)
	if _, err := model.Fit(split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	first, _ := model.Predict(nil)
	second, _ := model.Predict(nil)
	eu, _ := first.Uncertainty(uq.EU)
	again, _ := second.Uncertainty(uq.EU)
	fmt.Println("measures:", first.Available())
	fmt.Println("same EU again:", eu[0] == again[0])
	// Output:
	// measures: [TU AU EU LC]
	// same EU again: true
}

// Temperature scaling fits T on the validation nodes; the classes stay.
func ExamplePrediction_TemperatureScaled() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	model, _ := cuq.APPNP().Done(g)
	if _, err := model.Fit(split, cuq.MaxEpochs(100)); err != nil {
		panic(err)
	}
	pred, _ := model.Predict(nil)
	scaled, temperature, err := pred.TemperatureScaled(split.Val)
	if err != nil {
		panic(err)
	}
	fmt.Println(scaled.Model, "has T > 0:", temperature > 0)
	fmt.Println("same accuracy:", scaled.Accuracy(split.Test) == pred.Accuracy(split.Test))
	fmt.Println("measures:", scaled.Available())
	// Output:
	// APPNP+TS has T > 0: true
	// same accuracy: true
	// measures: [TU LC]
}

// A GCN, its MC-dropout reading and an ensemble whose first member is the
// same GCN train that GCN once when they share a TrainingCache.
func ExampleTrainingCache() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.8))
	cache := cuq.NewTrainingCache(64 << 20)
	for _, b := range []cuq.ClassifierBuilder{cuq.GCN(), cuq.MCDropoutGCN(), cuq.Ensemble(cuq.GCN(), 3)} {
		c, err := b.Classifier(g)
		if err != nil {
			panic(err)
		}
		hist, err := c.Fit(split, cuq.MaxEpochs(100), cuq.ShareTrainings(cache))
		if err != nil {
			panic(err)
		}
		shared := []bool{hist.Shared}
		if hist.Members != nil {
			shared = shared[:0]
			for _, m := range hist.Members {
				shared = append(shared, m.Shared)
			}
		}
		fmt.Println(c.Name(), "took its training from the cache:", shared)
	}
	fmt.Println("trainings run:", cache.Len())
	// Output:
	// GCN took its training from the cache: [false]
	// MC-Dropout-GCN took its training from the cache: [true]
	// Ensemble-GCN took its training from the cache: [true false false]
	// trainings run: 3
}

package cuq_test

import (
	"fmt"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
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

// maxLogit is the measure of ExamplePostHoc's score.
var maxLogit = uq.MustRegisterPostHoc("MAX_LOGIT")

// A post-hoc score of one's own: the max-logit score −max_k z_ik on a GCN
// trained with its last class left out.
func ExamplePostHoc() {
	g, _ := datasets.CSBM(300, 3).Homophily(0.9).Features(8).FeatureSignal(2).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	loc, _ := graph.LeaveOutClasses(g, split, 1)
	score := func(_ *graph.Graph, z *tensor.Dense) ([]float64, error) {
		u := make([]float64, z.Rows)
		for i := range u {
			u[i] = -slices.Max(z.Row(i))
		}
		return u, nil
	}
	model, err := cuq.PostHoc(cuq.GCN(), maxLogit, "MaxLogit", score).Done(loc.Graph)
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
	auroc, _ := pred.AUROC(maxLogit, loc.IDTest, loc.OODTest)
	fmt.Println(pred.Model, "measures:", pred.Available())
	fmt.Println("AUROC above 0.5:", auroc > 0.5)
	// Output:
	// MaxLogit-GCN measures: [TU LC MAX_LOGIT]
	// AUROC above 0.5: true
}

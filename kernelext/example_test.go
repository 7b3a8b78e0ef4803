package kernelext_test

import (
	"fmt"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/kernelext"
)

// In a notebook cell, Show takes a chart constructor's results directly.
func ExampleShow() {
	err := kernelext.Show(chart.ARC("CoraML", []float64{0, 0.5, 0.99},
		chart.Curve{Name: "EU", Mean: []float64{0.80, 0.90, 1}, SE: []float64{0.01, 0.01, 0}},
	))
	fmt.Println(err)
	// Output: <nil>
}

// A training loop takes a ProgressFunc; it need not import GoNB.
func ExampleNewProgress() {
	train := func(epochs int, report func(done, total int, msg string)) {
		for e := 1; e <= epochs; e++ {
			time.Sleep(time.Millisecond) // one epoch
			report(e, epochs, fmt.Sprintf("loss %.2f", 1/float64(e)))
		}
	}
	bar := kernelext.NewProgress("CUQ-GCN on CoraML")
	train(5, bar.Update)
}

// In a notebook, Train trains once and later cells read the run back from
// the kernel session's cache; the key covers the whole model description,
// the graph and the split, so another seed trains again.
func ExampleTrain() {
	g, _ := datasets.CSBM(200, 3).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	run, err := kernelext.Train(cuq.CUQPPR(), g, split, kernelext.MaxEpochs(20), kernelext.Quiet())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Model, len(run.History.Epochs), run.Stats.Nodes)
	fmt.Println(kernelext.KeyOf("train", cuq.CUQPPR().Seed(1), g, split) == kernelext.KeyOf("train", cuq.CUQPPR().Seed(2), g, split))
	// Output:
	// CUQ-PPR 25 200
	// false
}

// TrainInits trains several inits of one model, side by side; the
// comparison displays average the runs of ChartRuns, mean ± standard error.
func ExampleTrainInits() {
	g, _ := datasets.CSBM(200, 3).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	gpn := func(k int) cuq.ClassifierBuilder { return cuq.GPN().Init(k) }
	runs, err := kernelext.TrainInits(gpn, g, split, 3, kernelext.MaxEpochs(20), kernelext.Quiet())
	if err != nil {
		fmt.Println(err)
		return
	}
	// One curve: the mean over the three inits, with a band ± its standard error.
	err = kernelext.Show(chart.ARCOfRuns(kernelext.ChartRuns(split.Test, nil, runs...)...).Measures(uq.TU))
	fmt.Println(len(runs), runs[2].Model, err)
	// Output: 3 GPN <nil>
}

package kernelext_test

import (
	"fmt"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
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

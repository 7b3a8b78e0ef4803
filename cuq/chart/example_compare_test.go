package chart_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// toyPredictions returns two models' predictions on a path of six nodes,
// labels 0, 1, 0, 1, 0, 1: "GPN" gets node 5 wrong, "APPNP" nodes 4 and 5.
func toyPredictions() (gpn, appnp *cuq.Prediction) {
	b := graph.NewBuilder(2)
	for i := range 6 {
		b.Node(i%2, 1)
	}
	g, _ := b.Chain(0, 1, 2, 3, 4, 5).Done()
	prob := tensor.MustFromSlice(6, 2, []float64{0.9, 0.1, 0.2, 0.8, 0.7, 0.3, 0.4, 0.6, 0.6, 0.4, 0.55, 0.45})
	gpn = &cuq.Prediction{Model: "GPN", Graph: g, Classes: 2, Class: []int{0, 1, 0, 1, 0, 0}, Prob: prob,
		Measures: uq.Measures{
			TU: []float64{0.3, 0.5, 0.6, 0.7, 0.67, 0.69},
			AU: []float64{0.2, 0.3, 0.4, 0.5, 0.5, 0.6},
			EU: []float64{0.1, 0.2, 0.2, 0.2, 0.17, 0.09},
		}}
	appnp = &cuq.Prediction{Model: "APPNP", Graph: g, Classes: 2, Class: []int{0, 1, 0, 1, 1, 0}, Prob: prob,
		Measures: uq.Measures{TU: []float64{0.3, 0.5, 0.6, 0.7, 0.67, 0.69}}}
	return gpn, appnp
}

// Several models compared in one chart each: the accuracy-rejection curves
// of one measure across models, a panel per measure, the reliability
// diagrams and the decompositions side by side on shared axes, and the
// OOD-detection AUROCs. Runs with the same label are repeats: their curves
// average, mean ± standard error.
func ExampleARCOfRuns() {
	gpn, appnp := toyPredictions()
	test := []int{0, 1, 2, 3, 4, 5}
	runs := []chart.Run{{Pred: gpn, Nodes: test}, {Pred: appnp, Nodes: test}}

	one, err := chart.ARCOfRuns(runs...).Measures(uq.TU).Done()
	fmt.Println(one.Title, err)
	panels, err := chart.ARCOfRuns(runs...).Done()
	fmt.Println(panels.Title, err)
	rel, err := chart.ReliabilityOfRuns(runs...).Bins(5).Done()
	fmt.Println(rel.Title, err)
	dec, err := chart.DecompositionOfRuns(chart.Run{Pred: gpn, Nodes: []int{0, 1, 2, 3}, OOD: []int{4, 5}}).Done()
	fmt.Println(dec.Title, err)
	sets, err := chart.SetSizesOfRuns(runs...).Alpha(0.2).Done()
	fmt.Println(sets.Title, err)
	// Output:
	// TU: accuracy-rejection curves by model <nil>
	// Accuracy-rejection curves by model and measure <nil>
	// Reliability diagrams <nil>
	// Aleatoric vs epistemic uncertainty <nil>
	// Conformal set sizes by model <nil>
}

// The AUROC of the OOD nodes against the ID nodes, one row per model, mean
// ± standard error over a model's repeated runs.
func ExampleAUROCTableOfRuns() {
	gpn, appnp := toyPredictions()
	id, ood := []int{0, 1, 2, 3}, []int{4, 5}
	t, err := chart.AUROCTableOfRuns(
		chart.Run{Pred: gpn, Nodes: id, OOD: ood},
		chart.Run{Pred: gpn, Nodes: []int{0, 1}, OOD: []int{2, 3}},
		chart.Run{Label: "APPNP", Pred: appnp, Nodes: id, OOD: ood})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Header)
	for _, r := range t.Rows {
		fmt.Println(r)
	}
	// Output:
	// [model runs TU AU EU]
	// [GPN 2 87.5 ± 12.5 96.9 ± 3.1 43.8 ± 31.2]
	// [APPNP 1 75.0 – –]
}

// A results table of models × settings × metrics: values added for the
// same model, setting and metric are repeated runs, shown as mean ±
// standard error.
func ExampleResults() {
	t, err := chart.Results("OOD detection, AUROC (%)").
		Add("GPN", "Cora ML", "EU", 88.1).Add("GPN", "Cora ML", "EU", 86.3).
		Add("GPN", "Photo", "EU", 79.0).
		Add("CUQ-GAT", "Cora ML", "EU", 90.2).Add("CUQ-GAT", "Cora ML", "EU", 91.0).
		Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Caption)
	fmt.Println(t.Header)
	for _, r := range t.Rows {
		fmt.Println(r)
	}
	// Output:
	// OOD detection, AUROC (%) · mean ± standard error over runs
	// [model setting runs EU]
	// [GPN Cora ML 2 87.2 ± 0.9]
	// [GPN Photo 1 79.0]
	// [CUQ-GAT Cora ML 2 90.6 ± 0.4]
}

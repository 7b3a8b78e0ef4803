package chart_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

func ExampleARC() {
	rejection := []float64{0, 0.5, 0.99}
	c, err := chart.ARC("CoraML", rejection,
		chart.Curve{Name: "EU", Mean: []float64{0.80, 0.90, 1}, SE: []float64{0.01, 0.01, 0}},
		chart.Curve{Name: "AU", Mean: []float64{0.80, 0.88, 0.97}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Title, c.Width, c.Height)
	// One line per curve, two helper series for EU's band.
	fmt.Println(strings.Count(c.Option(), `"type":"line"`))

	_, err = chart.ARC("bad", rejection, chart.Curve{Name: "TU", Mean: []float64{1}})
	fmt.Println(err)
	// Output:
	// CoraML 760 420
	// 4
	// chart.ARC: curve "TU" has 1 means for 3 rejection fractions
}

func ExampleNewDirichlet() {
	d, err := chart.NewDirichlet(2, 3, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", d.Density([]float64{0.2, 0.3, 0.5}))
	// Output: 7.5600
}

func ExampleSimplexGrid_Integrate() {
	d, _ := chart.NewDirichlet(2, 5, 9)
	g, _ := chart.NewSimplexGrid(100)
	total, _ := g.Integrate(g.Eval(d.Density3))
	fmt.Printf("%.2f\n", total)
	// Output: 1.00
}

func ExamplePage_WriteHTML() {
	c, _ := chart.Training("Training", []chart.Series{{Name: "loss", Values: []float64{1.2, 0.8, 0.6}}}, nil)
	t, _ := chart.NewTable("Accuracy", []string{"model", "acc"}, [][]string{{"CUQ-GCN", "71.52"}})
	dir, _ := os.MkdirTemp("", "report")
	defer os.RemoveAll(dir)
	f, _ := os.Create(filepath.Join(dir, "report.html"))
	defer f.Close()
	// The page inlines the embedded ECharts library and draws offline;
	// HTMLOptions{CDN: chart.DefaultEChartsURL} would load it at view time.
	err := chart.NewPage("Report").AddCharts(c).AddTables(t).WriteHTML(f, chart.HTMLOptions{})
	fmt.Println(err)
	// Output: <nil>
}

func ExampleARCPlot() {
	p, _ := chart.ARCPlot("ARC", []float64{0, 0.5, 0.99}, chart.Curve{Name: "EU", Mean: []float64{0.8, 0.9, 1}})
	f, _ := os.CreateTemp("", "arc-*.svg")
	defer os.Remove(f.Name())
	defer f.Close()
	fmt.Println(chart.WritePlot(f, p, "svg", 12*vg.Centimeter, 8*vg.Centimeter))
	// Output: <nil>
}

// A trained model's uncertainty and calibration, drawn in one call each:
// its accuracy-rejection curves, the AU–EU decomposition of its test nodes,
// the graph around a node, the reliability diagram of its test nodes, with
// the ECE in the subtitle, and the risk-coverage curves of two measures.
func ExampleARCOf() {
	g, _ := datasets.CSBM(200, 3).Seed(1).Done()
	split, _ := g.Split(graph.Stratified(0.1, 0.2, 0.7).Seed(1))
	model, _ := cuq.CUQPPR().Done(g)
	if _, err := model.Fit(split, cuq.MaxEpochs(20)); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := model.Predict(nil)

	arc, err := chart.ARCOf(pred, split.Test).Measures(uq.TU, uq.EU).Done()
	fmt.Println(arc.Title, err)
	dec, err := chart.DecompositionOf(pred, split.Test).LogEU().Done()
	fmt.Println(dec.Title, err)
	view, err := chart.NeighbourhoodOf(pred, split.Test[0]).Size(50).Measures(uq.EU, uq.TU).Done()
	fmt.Println(view.Title, err)
	rel, err := chart.ReliabilityOf(pred, split.Test).Bins(15).Done()
	fmt.Println(rel.Title, err)
	rc, err := chart.RiskCoverageOf(pred, split.Test).Measures(uq.TU, uq.EU).Done()
	fmt.Println(rc.Title, err)
	// Output:
	// CUQ-PPR: accuracy-rejection curves <nil>
	// CUQ-PPR: aleatoric vs epistemic uncertainty <nil>
	// CUQ-PPR: 50 nodes around node 1, coloured by EU <nil>
	// CUQ-PPR: reliability diagram <nil>
	// CUQ-PPR: risk-coverage curves <nil>
}

// Densities on the simplex share one colour scale, so that panels compare.
func ExampleSimplexes() {
	gpn, _ := chart.NewDirichlet(5.2, 5.2, 1.1)
	cuq, _ := chart.NewDirichlet(1.4, 1.4, 1.0)
	c, err := chart.Simplexes([3]string{"class 0", "class 1", "class 2"},
		chart.SimplexPanel{Title: "log-linear", Density: gpn.Density3},
		chart.SimplexPanel{Title: "behavioural", Density: cuq.Density3}).Log().Done()
	fmt.Println(c.Width, err)
	// Output: 648 <nil>
}

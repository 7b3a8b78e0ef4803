package chart_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// A committee's credal set on the simplex: the hull of its three members,
// each a point, with the pooled prediction, their mean.
func ExampleCredalSimplex() {
	hull, err := uq.NewHull([]float64{0.7, 0.2, 0.1}, []float64{0.3, 0.5, 0.2}, []float64{0.4, 0.2, 0.4})
	if err != nil {
		panic(err)
	}
	c, err := chart.CredalSimplex(hull).Pooled([]float64{1.4 / 3, 0.3, 0.7 / 3}).
		Classes("Theory", "Methods", "Applications").Title("node 42").Done()
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Title, c.Width, c.Height)
	// Output:
	// node 42 400 417
}

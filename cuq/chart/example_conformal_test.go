package chart_test

import (
	"fmt"
	"regexp"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The sizes of conformal prediction sets in one call: a bar series per
// score, the coverage and mean set size in the legend. The prediction is
// made by hand (any model's Predict gives one): eight nodes on a path, two
// communities, the model unsure at their border.
func ExampleSetSizesOf() {
	g, _ := graph.NewBuilder(2).Nodes(4, 0, 1).Nodes(4, 1, 2).Chain(0, 1, 2, 3, 4, 5, 6, 7).Done()
	pred := &cuq.Prediction{Model: "Hand", Graph: g, Classes: 2, Class: []int{0, 0, 0, 1, 0, 1, 1, 1},
		Prob: tensor.MustFromSlice(8, 2, []float64{
			0.9, 0.1, 0.85, 0.15, 0.7, 0.3, 0.45, 0.55, 0.6, 0.4, 0.25, 0.75, 0.2, 0.8, 0.1, 0.9})}
	c, err := chart.SetSizesOf(pred, []int{0, 1, 2, 3, 4, 5, 6, 7}).
		Alpha(0.2).
		Scores(conformal.APS{NonRandomized: true}, conformal.DAPS{}).
		Seed(4).
		Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Title)
	for _, name := range regexp.MustCompile(`"name":"([^"]*coverage[^"]*)"`).FindAllStringSubmatch(c.Option(), -1) {
		fmt.Println(name[1])
	}
	// Output:
	// Hand: conformal set sizes
	// APS (non-randomised): coverage 100.0%, mean size 2.00
	// DAPS (λ 0.5): coverage 100.0%, mean size 1.25
}

package chart_test

import (
	"fmt"
	"regexp"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// The risk-coverage curves of a hand-made prediction of four nodes, of
// which node 3 is wrong: TU finds it the most uncertain, AU the least. The
// legend gives each curve's AURC, the mean error rate over the coverages
// ¼, ½, ¾ and 1.
func ExampleRiskCoverageOf() {
	g, _ := graph.NewBuilder(2).Node(0, 1).Node(1, 2).Node(0, 3).Node(0, 4).Chain(0, 1, 2, 3).Done()
	pred := &cuq.Prediction{
		Model: "Toy", Graph: g, Classes: 2, Class: []int{0, 1, 0, 1},
		Measures: uq.Measures{
			TU: []float64{0.1, 0.2, 0.3, 0.9},
			AU: []float64{0.3, 0.2, 0.4, 0.1},
		},
	}
	c, err := chart.RiskCoverageOf(pred, []int{0, 1, 2, 3}).Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range regexp.MustCompile(`"name":"([^"]*AURC[^"]*)"`).FindAllStringSubmatch(c.Option(), -1) {
		fmt.Println(name[1])
	}
	// Output:
	// TU, AURC 0.0625
	// AU, AURC 0.5208
	// best possible, AURC 0.0625 (= TU, AURC 0.0625)
}

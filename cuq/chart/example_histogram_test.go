package chart_test

import (
	"fmt"
	"math"
	"regexp"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
)

// A per-node number in one call: the local homophily of seven nodes in
// five bins of [0, 1], two nodes without a value left out, the graph's
// edge homophily marked. Each bin is a data item named by its range.
func ExampleHistogram() {
	nan := math.NaN()
	h := []float64{1, 0.5, nan, 1, 0.75, nan, 0.2}
	c, err := chart.Histogram("Node homophily", h).Range(0, 1).Bins(5).
		SkipNaN("nodes without labelled neighbours").Mark("edge homophily", 0.7).Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, bin := range regexp.MustCompile(`"name":"(\[[^"]*)","value":\[[^,]*,[^,]*,(\d+)\]`).FindAllStringSubmatch(c.Option(), -1) {
		fmt.Println(bin[1], bin[2])
	}
	fmt.Println(regexp.MustCompile(`"subtext":"([^"]*)"`).FindStringSubmatch(c.Option())[1])
	// Output:
	// [0, 0.2) 0
	// [0.2, 0.4) 1
	// [0.4, 0.6) 1
	// [0.6, 0.8) 1
	// [0.8, 1] 2
	// 5 values · mean 0.69 · 2 nodes without labelled neighbours left out
}

// Named counts in one call, such as the labelled nodes of each class; the
// tooltip gives each bar's share of the total.
func ExampleBars() {
	c, err := chart.Bars("Classes", []string{"astronomy", "biology", "chemistry"}, []int{30, 10, 20}).YName("nodes").Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(regexp.MustCompile(`"data":\[\{[^\]]*\]`).FindString(c.Option()))
	// Output:
	// "data":[{"name":"astronomy","share":0.5,"value":30},{"name":"biology","share":0.16666666666666666,"value":10},{"name":"chemistry","share":0.3333333333333333,"value":20}]
}

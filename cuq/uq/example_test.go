package uq_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func ExampleDirichlet() {
	// Two nodes with three classes: a confident one and a vague one.
	alpha := []float64{
		50, 1, 1,
		1, 1, 1,
	}
	ms, err := uq.Dirichlet(alpha, 3)
	if err != nil {
		panic(err)
	}
	for _, m := range uq.AllMeasures {
		fmt.Printf("%-5v %7.4f %7.4f\n", m, ms.Get(m)[0], ms.Get(m)[1])
	}
	// Output:
	// TU     0.1897  1.0986
	// AU     0.1734  0.8333
	// EU     0.0163  0.2653
	// EU_PC -52.0000 -3.0000
	// EU_SO -5.9031 -0.6931
	// LC     0.0385  0.6667
}

func ExampleMixture() {
	// Node 0 pools components 0 and 1 with equal weights.
	alpha := []float64{
		1, 1,
		3, 1,
	}
	ms, err := uq.Mixture([]int{0, 2}, []int{0, 1}, []float64{0.5, 0.5}, alpha, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("TU %.4f AU %.4f EU_PC %.1f\n", ms.TU[0], ms.AU[0], ms.EUPC[0])
	// Output:
	// TU 0.6616 AU 0.4792 EU_PC -3.0
}

func ExampleSamples() {
	// Three committee members predict two classes for one node.
	probs := [][]float64{{0.9, 0.1}, {0.5, 0.5}, {0.1, 0.9}}
	ms, err := uq.Samples(probs, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("TU %.4f = AU %.4f + EU %.4f\n", ms.TU[0], ms.AU[0], ms.EU[0])
	// Output:
	// TU 0.6931 = AU 0.4478 + EU 0.2454
}

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

func ExampleHull() {
	// A committee of three members predicts three classes for one node; its
	// credal set is the triangle they span.
	hull, err := uq.NewHull(
		[]float64{0.8, 0.1, 0.1},
		[]float64{0.5, 0.4, 0.1},
		[]float64{0.6, 0.1, 0.3},
	)
	if err != nil {
		panic(err)
	}
	upper, err := hull.UpperEntropy()
	if err != nil {
		panic(err)
	}
	lower := hull.LowerEntropy()
	gh, err := hull.GeneralizedHartley()
	if err != nil {
		panic(err)
	}
	fmt.Printf("lower %.2f upper %.2f\n", hull.Lower(), hull.Upper())
	fmt.Printf("H* %.4f = H_* %.4f + EU %.4f, GH %.4f, size %.2f\n", upper, lower, upper-lower, gh, hull.Size())
	fmt.Println("not dominated:", uq.NonDominated(hull.Lower(), hull.Upper()))
	// Output:
	// lower [0.50 0.10 0.10] upper [0.80 0.40 0.30]
	// H* 0.9983 = H_* 0.6390 + EU 0.3593, GH 0.4170, size 0.80
	// not dominated: [0]
}

func ExampleNewIDM() {
	// A Dirichlet Dir(1 + β) read as an Imprecise Dirichlet Model with the
	// prior strength s = C = 3: little evidence leaves wide intervals.
	for _, beta := range [][]float64{{2, 1, 0}, {200, 100, 0}} {
		m, err := uq.NewIDM(beta, 3)
		if err != nil {
			panic(err)
		}
		upper, _ := m.UpperEntropy()
		gh, _ := m.GeneralizedHartley()
		fmt.Printf("β %v: lower %.3f upper %.3f H* %.4f H_* %.4f GH %.4f\n",
			beta, m.Lower(), m.Upper(), upper, m.LowerEntropy(), gh)
	}
	// Output:
	// β [2 1 0]: lower [0.333 0.167 0.000] upper [0.833 0.667 0.500] H* 1.0986 H_* 0.4506 GH 0.7925
	// β [200 100 0]: lower [0.660 0.330 0.000] upper [0.670 0.340 0.010] H* 0.6858 H_* 0.6342 GH 0.0157
}

func ExampleCredal() {
	// Two nodes, each with the predictions of a committee of two members.
	probs := [][]float64{
		{0.9, 0.1, 0.5, 0.5},
		{0.6, 0.4, 0.5, 0.5},
	}
	sets, err := uq.SampleHulls(probs, 2)
	if err != nil {
		panic(err)
	}
	ms, err := uq.Credal(sets)
	if err != nil {
		panic(err)
	}
	for _, m := range uq.CredalMeasures {
		fmt.Printf("%-11v %.4f %.4f\n", m, ms.Get(m)[0], ms.Get(m)[1])
	}
	// Output:
	// H_UPPER     0.6730 0.6931
	// H_LOWER     0.3251 0.6931
	// EU_CREDAL   0.3479 0.0000
	// GH          0.3000 0.0000
	// CREDAL_SIZE 0.6000 0.0000
}

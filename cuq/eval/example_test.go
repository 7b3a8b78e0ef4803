package eval_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

func ExampleARC() {
	// Five test nodes; the two wrong predictions are the most uncertain.
	uncertainty := []float64{0.9, 0.1, 0.7, 0.2, 0.3}
	correct := []bool{false, true, false, true, true}
	c, err := eval.ARC(uncertainty, correct)
	if err != nil {
		panic(err)
	}
	// At p = 0.20 nothing is rejected yet: in float32, 0.2·5 = 0.99999994,
	// truncated to 0, exactly as in the reference.
	for _, i := range []int{0, 20, 21, 41, 100} {
		fmt.Printf("reject %.2f: accuracy %.3f\n", c.P[i], c.Acc[i])
	}
	// Output:
	// reject 0.00: accuracy 0.600
	// reject 0.20: accuracy 0.600
	// reject 0.21: accuracy 0.750
	// reject 0.41: accuracy 1.000
	// reject 1.00: accuracy 1.000
}

func ExampleAUROC() {
	id := []float64{0.1, 0.4, 0.4}
	ood := []float64{0.4, 0.8}
	auc, err := eval.AUROC(id, ood)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", auc) // 5 of 6 pairs, ties counting ½
	// Output:
	// 0.8333
}

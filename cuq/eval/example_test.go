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
	// The curve is 0.6 up to rejecting 20%, 0.75 from 21% to 40% and 1
	// from 41%: its area is 0.2·0.6 + 0.01·0.675 + 0.19·0.75 + 0.01·0.875 +
	// 0.59·1.
	area, err := c.Area()
	fmt.Printf("area %.4f %v\n", area, err)
	// Output:
	// reject 0.00: accuracy 0.600
	// reject 0.20: accuracy 0.600
	// reject 0.21: accuracy 0.750
	// reject 0.41: accuracy 1.000
	// reject 1.00: accuracy 1.000
	// area 0.8680 <nil>
}

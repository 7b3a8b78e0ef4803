package kernelext_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/kernelext"
)

// An exercise of one's own: the reference, the cases (edge cases labelled),
// and the reports of a right and a wrong answer.
func ExampleExercise() {
	square := kernelext.Exercise[float64, float64]{
		Name:      "square",
		Reference: func(x float64) float64 { return x * x },
		Cases:     []kernelext.Case[float64]{{Label: "zero", In: 0}, {In: 1.5}, {In: -2}},
	}
	fmt.Println(square.Grade(func(x float64) float64 { return x * x }))
	fmt.Println(square.Grade(func(x float64) float64 { return 2 * x }))
	// Output:
	// ✓ square: 3 cases agree to 1e-12
	// ✗ square: wrong answer on case 2 of 3
	//   input:    1.5
	//   expected: 2.25
	//   yours:    3
}

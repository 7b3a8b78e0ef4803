package energy_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/energy"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The free energy of three nodes' logits, then GNNSafe's propagation over
// the path 0 – 1 – 2: the confident node 0 lowers its neighbour's energy.
func ExampleGNNSafe() {
	logits := []float64{
		9, 0, 0, // confident
		1, 0, 0,
		0, 0, 0, // uniform
	}
	e, _ := energy.Free(logits, 3, 1)
	fmt.Printf("energy:  %.3f\n", e)
	adj, _ := tensor.FromCOO(3, 3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1}, []float64{1, 1, 1, 1})
	safe, _ := energy.GNNSafe(adj, logits, 3, 1, 0.5, 2)
	fmt.Printf("GNNSafe: %.3f\n", safe)
	// Output:
	// energy:  [-9.000 -1.551 -1.099]
	// GNNSafe: [-4.288 -3.300 -2.313]
}

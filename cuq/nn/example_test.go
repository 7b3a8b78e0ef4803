package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// A convolution is made from its configuration, derives its operator from
// a graph's adjacency once, and takes it in every forward pass.
func ExampleConv() {
	// a triangle: 3 nodes, 6 directed edges
	adj, err := tensor.FromCOO(3, 3, []int{0, 0, 1, 1, 2, 2}, []int{1, 2, 0, 2, 0, 1}, nil)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	conv, err := nn.NewGCNConfig(8).Layers(2).New(4, rng) // 4 input features
	if err != nil {
		panic(err)
	}
	op, err := conv.Operator(adj) // D^−½(A+I)D^−½
	if err != nil {
		panic(err)
	}
	latent := nn.NewLinear("latent", conv.Width(), 2, true, rng)
	x := ad.Const(nn.Uniform(rng, 3, 4, 1))
	z := conv.ForwardProjected(ad.NewEvalTape(), op, x, latent, rng)
	fmt.Println("latent:", z.Shape(), "parameters:", len(conv.Params()))
	// Output:
	// latent: 3x2 parameters: 4
}

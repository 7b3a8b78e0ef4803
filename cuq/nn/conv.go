package nn

import (
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// A Conv is a model's graph convolution: the layers between its feature
// encoder and its latent projection that mix the features of neighbouring
// nodes (APPNP, GCNStack, GATStack). Like PyTorch Geometric's layers it
// keeps no graph: Operator derives from a graph's adjacency what the layers
// read (a normalised adjacency, an attention pattern, a propagation), and
// every forward pass takes that operator, so one Conv serves any graph of
// the right size.
type Conv interface {
	// Operator derives the convolution's graph operator from the
	// adjacency A of a graph, as stored (not normalised, self loops as
	// given). A caller derives it once per graph and reuses it.
	Operator(adj *tensor.CSR) (Operator, error)
	// ForwardProjected returns l(y) = y·W + b for the convolution's output
	// y on the node features x and the linear layer l, the latent
	// projection. Every convolution here ends linearly, so it may apply l
	// before its last propagation or aggregation, which then carries
	// l.Out columns instead of Width; the result agrees with l applied to
	// y up to rounding. op must come from Operator of the same Conv.
	// Dropout between layers is drawn from rng while t records (see
	// ad.Tape.Dropout: a *rand.PCG is drawn from on all cores).
	ForwardProjected(t *ad.Tape, op Operator, x *ad.Value, l *Linear, rng rand.Source) *ad.Value
	// Width is the number of features of y, the input size of l.
	Width() int
	// Params returns the trainable parameters (none for APPNP).
	Params() []*ad.Value
}

// Buffered is implemented by a Conv with values that are not trained but
// belong to a trained model's state: the running estimates of a
// BatchNorm. Training saves and restores them with the parameters.
type Buffered interface {
	Buffers() []*ad.Value
}

// Operator is what a Conv derives from a graph's adjacency and reads in
// every forward pass. Its concrete type belongs to the Conv that made it:
// a *tensor.CSR for GCNStack, an *AttentionGraph for GATStack, a
// *graph.PPR for APPNP.
type Operator any

// A ConvConfig describes a Conv before its parameters exist: GCNConfig,
// GATConfig, APPNPConfig.
type ConvConfig interface {
	// New checks the configuration and returns a convolution of in input
	// features whose parameters are drawn from rng. The convolution
	// copies what it needs: changing the configuration afterwards does
	// not change it. Errors name the offending setting without a package
	// prefix, for the caller to put in context.
	New(in int, rng *rand.Rand) (Conv, error)
}

// A Layer is anything with trainable parameters.
type Layer interface {
	Params() []*ad.Value
}

// ParamsOf returns the parameters of the layers, in order.
func ParamsOf[L Layer](layers ...L) []*ad.Value {
	var ps []*ad.Value
	for _, l := range layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

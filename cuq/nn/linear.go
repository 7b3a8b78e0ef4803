// Package nn holds the layers of cuqgnn's models: linear maps, graph
// propagation (APPNP / personalised PageRank), GCN and GAT convolutions and
// the per-class radial normalizing flows of the PostNet head, with the
// initializers of the reference implementation.
//
// Every layer exposes its parameters through Params and computes its output
// on an ad.Tape, so that a training step is: forward on a recording tape,
// Backward, optimizer step.
//
// The graph convolutions keep no graph: like PyTorch Geometric's layers
// they take the graph operator (a normalised adjacency, an attention graph,
// a propagation) in their forward pass. A model's convolution is a Conv,
// made from its ConvConfig; a new kind of convolution is one file here
// with its layer, its Conv and its ConvConfig.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Uniform returns a rows×cols matrix with entries drawn from U(−bound, bound).
func Uniform(rng *rand.Rand, rows, cols int, bound float64) *tensor.Dense {
	d := tensor.New(rows, cols)
	for i := range d.Data {
		// u is rounded explicitly, else arm64 and amd64 v3 fuse Float64's
		// scaling into 2u − 1 (exact either way; scripts/fusion-check.sh
		// would flag it).
		u := float64(rng.Float64())
		d.Data[i] = (2*u - 1) * bound
	}
	return d
}

// Glorot returns a fanIn×fanOut matrix drawn from U(±√(6/(fanIn+fanOut))),
// as torch_geometric's glorot.
func Glorot(rng *rand.Rand, fanIn, fanOut int) *tensor.Dense {
	return Uniform(rng, fanIn, fanOut, math.Sqrt(6/float64(fanIn+fanOut)))
}

// Linear is the affine map y = x·W + b with W of shape In×Out.
type Linear struct {
	W, B    *ad.Value // B is nil without bias
	In, Out int
}

// NewLinear returns a Linear layer initialised as torch.nn.Linear: W and b
// drawn from U(±1/√In).
func NewLinear(name string, in, out int, bias bool, rng *rand.Rand) *Linear {
	bound := 1 / math.Sqrt(float64(in))
	l := &Linear{W: ad.Param(name+".W", Uniform(rng, in, out, bound)), In: in, Out: out}
	if bias {
		l.B = ad.Param(name+".b", Uniform(rng, 1, out, bound))
	}
	return l
}

// NewGlorotLinear returns a Linear layer with Glorot weights and a zero bias
// (the initialisation of torch_geometric's GCNConv and GATConv).
func NewGlorotLinear(name string, in, out int, bias bool, rng *rand.Rand) *Linear {
	l := &Linear{W: ad.Param(name+".W", Glorot(rng, in, out)), In: in, Out: out}
	if bias {
		l.B = ad.Param(name+".b", tensor.New(1, out))
	}
	return l
}

// Forward returns x·W + b.
func (l *Linear) Forward(t *ad.Tape, x *ad.Value) *ad.Value {
	return t.Affine(x, l.W, l.B)
}

// ForwardConst returns x·W + b for a constant input x (dense or sparse node
// features). Sparse features are multiplied as CSR: y = (Wᵀ·xᵀ)ᵀ is never
// formed; the product x·W is computed row by row from the stored entries.
func (l *Linear) ForwardConst(t *ad.Tape, x tensor.Matrix) *ad.Value {
	if _, c := x.Dims(); c != l.In {
		r, _ := x.Dims()
		panic(fmt.Sprintf("nn.Linear: input %dx%d for a layer of input size %d", r, c, l.In))
	}
	return t.LeftMulAddRow(x, l.W, l.B)
}

// Params returns W and, when present, b.
func (l *Linear) Params() []*ad.Value {
	if l.B == nil {
		return []*ad.Value{l.W}
	}
	return []*ad.Value{l.W, l.B}
}

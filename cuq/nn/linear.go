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
	l.checkInput(x)
	return t.LeftMulAddRow(x, l.W, l.B)
}

// checkInput panics with both sizes when x's columns are not the layer's
// inputs.
func (l *Linear) checkInput(x tensor.Matrix) {
	if r, c := x.Dims(); c != l.In {
		panic(fmt.Sprintf("nn.Linear: input %dx%d for a layer of input size %d", r, c, l.In))
	}
}

// Params returns W and, when present, b.
func (l *Linear) Params() []*ad.Value {
	if l.B == nil {
		return []*ad.Value{l.W}
	}
	return []*ad.Value{l.W, l.B}
}

// A ConstProduct hands the output x·W + b of a Linear layer on a constant
// input x from an evaluation pass to the next training pass, which records
// it (ad.Tape.LeftMulAddRowKnown) instead of multiplying again. Training
// with early stopping evaluates the validation loss after each optimizer
// step and then runs the next step with the same parameters, so both
// passes begin with the same product of the node features; on Amazon
// Computers (13,752 × 767 features, 64 outputs) that saves about a
// tenth of APPNP's training time.
//
// A training pass takes the kept product only when it multiplies the same
// matrix x and W and b hold the bits they held in the evaluation pass, so
// that it is, bit for bit, the product the pass would compute; otherwise
// it multiplies. Either way the kept product is then gone.
//
// The product lives in the ConstProduct's own matrix, which both passes
// record as the layer's value instead of copying it, and which the next
// evaluation pass overwrites: a pass must be done with its values (its
// tape released) before the next evaluation pass, as a training step and
// a validation pass are, and no value that outlives the pass may be that
// matrix itself (the models' outputs are computed from it). Sampling
// tapes neither keep nor take. The zero value is ready to use; it is not
// safe for concurrent use.
type ConstProduct struct {
	x    tensor.Matrix
	w, b []float64
	bias bool
	out  *tensor.Dense
	kept bool
	hits int
}

// Forward returns l.ForwardConst(t, x): on an evaluation tape it keeps
// the product, on a training tape it takes the kept one when it may.
func (c *ConstProduct) Forward(t *ad.Tape, l *Linear, x tensor.Matrix) *ad.Value {
	switch {
	case t.Training():
		take := c.kept && c.x == x && c.holds(l)
		c.kept = false
		if take {
			c.hits++
			return t.LeftMulAddRowKnown(x, l.W, l.B, c.out)
		}
	case t.Evaluation():
		c.keep(l, x)
		return t.LeftMulAddRowKnown(x, l.W, l.B, c.out)
	}
	return l.ForwardConst(t, x)
}

// Hits returns how many training passes took a kept product.
func (c *ConstProduct) Hits() int { return c.hits }

// Drop frees the kept product and what identifies it.
func (c *ConstProduct) Drop() {
	c.x, c.w, c.b, c.out, c.kept = nil, nil, nil, nil, false
}

// keep computes into c.out the product of x by l's present parameters,
// with the operations of l.ForwardConst, and remembers what it multiplied.
func (c *ConstProduct) keep(l *Linear, x tensor.Matrix) {
	l.checkInput(x)
	r, _ := x.Dims()
	c.kept = false // until the product is there: a panic below keeps nothing
	c.x, c.bias = x, l.B != nil
	c.w = append(c.w[:0], l.W.Data.Data...)
	c.b = c.b[:0]
	if c.out == nil || c.out.Rows != r || c.out.Cols != l.W.Data.Cols {
		c.out = tensor.New(r, l.W.Data.Cols)
	}
	if c.bias {
		c.b = append(c.b, l.B.Data.Data...)
		x.MulAddRowTo(c.out, l.W.Data, c.b)
	} else {
		x.MulTo(c.out, l.W.Data)
	}
	c.kept = true
}

// holds reports whether l's parameters have the bits of the kept ones.
func (c *ConstProduct) holds(l *Linear) bool {
	if c.bias != (l.B != nil) || c.out.Cols != l.W.Data.Cols || !tensor.SameBits(c.w, l.W.Data.Data) {
		return false
	}
	return !c.bias || tensor.SameBits(c.b, l.B.Data.Data)
}

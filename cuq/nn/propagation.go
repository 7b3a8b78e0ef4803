package nn

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Propagate returns Π·x on the tape for the personalised-PageRank operator
// p (APPNP propagation, see graph.PPR):
//
//	Π x = Σ_{k<K} t(1−t)ᵏ Âᵏ x + (1−t)ᴷ Âᴷ x.
//
// Π is linear, so the backward pass is Πᵀ·g, the same recursion over Âᵀ,
// and no intermediate state is stored.
func Propagate(t *ad.Tape, p *graph.PPR, x *ad.Value) *ad.Value {
	if x.Data.Rows != p.N() {
		panic(fmt.Sprintf("nn.Propagate: input %s on a graph of %d nodes", x.Shape(), p.N()))
	}
	out := tensor.New(x.Data.Rows, x.Data.Cols)
	if err := p.Apply(out, x.Data); err != nil {
		panic(err)
	}
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		tmp := tensor.New(g.Rows, g.Cols)
		if err := p.ApplyT(tmp, g); err != nil {
			panic(err)
		}
		grads[0].AddScaled(1, tmp)
	}, x)
}

// PropagateProjected returns l(Π·x) = (Π·x)·W + b, the propagation followed
// by the linear layer l, computed as
//
//	Π·(x·W) + b
//
// Π is linear, so the projection goes first and the K propagation steps
// carry l.Out columns instead of x.Cols (16 instead of 64 for CUQ-PPR's
// latent projection). The two orders agree up to rounding.
func PropagateProjected(t *ad.Tape, p *graph.PPR, x *ad.Value, l *Linear) *ad.Value {
	y := Propagate(t, p, t.MatMul(x, l.W))
	if l.B == nil {
		return y
	}
	return t.Add(y, l.B)
}

// GCN is a graph convolution (Kipf and Welling) y = Â·(x·W) + b with Â the
// symmetric normalisation D^−½(A+I)D^−½; W is Glorot-initialised, b zero.
type GCN struct {
	Adj *tensor.CSR
	Lin *Linear // bias applied after propagation
}

// Forward returns Â(xW) + b.
func (c *GCN) Forward(t *ad.Tape, x *ad.Value) *ad.Value {
	return t.LeftMulAddRow(c.Adj, t.MatMul(x, c.Lin.W), c.Lin.B)
}

// ForwardProjected returns l(Â(xW) + b), the convolution followed by the
// linear layer l with weight V and bias c, computed as
//
//	Â·(x·(W·V)) + (b·V + c)
//
// so that the sparse product carries l.Out columns instead of the
// convolution's width and x·W is never formed. It agrees with
// l.Forward(t, c.Forward(t, x)) up to rounding.
func (c *GCN) ForwardProjected(t *ad.Tape, x *ad.Value, l *Linear) *ad.Value {
	bias := l.B
	if c.Lin.B != nil {
		bias = t.Affine(c.Lin.B, l.W, l.B)
	}
	return t.LeftMulAddRow(c.Adj, t.MatMul(x, t.MatMul(c.Lin.W, l.W)), bias)
}

// Params returns W and b.
func (c *GCN) Params() []*ad.Value { return c.Lin.Params() }

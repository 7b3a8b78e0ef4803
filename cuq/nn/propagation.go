package nn

import (
	"fmt"
	"math/rand/v2"

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
	out := t.AllocUninit(x.Data.Rows, x.Data.Cols)
	if err := p.Apply(out, x.Data); err != nil {
		panic(err)
	}
	return t.CustomUnary(out, x, func(dst, g *tensor.Dense) {
		if err := p.ApplyT(dst, g); err != nil {
			panic(err)
		}
	})
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

// APPNPConfig configures the parameter-free APPNP convolution of CUQ-PPR:
// K steps of personalised-PageRank propagation with teleport probability
// Teleport over D^−½(A+I)D^−½ (the paper: K = 10, Teleport = 0.1).
type APPNPConfig struct {
	K        int
	Teleport float64
}

// New checks K ≥ 0 and Teleport ∈ [0, 1] and returns the convolution,
// whose output has the in features of its input.
func (c APPNPConfig) New(in int, _ *rand.Rand) (Conv, error) {
	if c.K < 0 || !(c.Teleport >= 0 && c.Teleport <= 1) {
		return nil, fmt.Errorf("APPNP K = %d, teleport %v", c.K, c.Teleport)
	}
	return &APPNP{k: c.K, teleport: c.Teleport, width: in}, nil
}

// APPNP is personalised-PageRank propagation as a convolution: y = Π·x with
// Π the K-step operator over D^−½(A+I)D^−½ (see Propagate). It has no
// parameters.
type APPNP struct {
	k        int
	teleport float64
	width    int
}

// Operator returns the propagation Π over the symmetric normalisation of
// adj, a *graph.PPR.
func (c *APPNP) Operator(adj *tensor.CSR) (Operator, error) {
	return graph.NewPPR(graph.SymNorm(adj), c.teleport, c.k)
}

// ForwardProjected returns l(Π·x), computed as Π·(x·W) + b
// (PropagateProjected). It draws no randomness.
func (c *APPNP) ForwardProjected(t *ad.Tape, op Operator, x *ad.Value, l *Linear, _ rand.Source) *ad.Value {
	return PropagateProjected(t, op.(*graph.PPR), x, l)
}

// Width returns the number of input features, which propagation keeps.
func (c *APPNP) Width() int { return c.width }

// Params returns nil: propagation has no parameters.
func (c *APPNP) Params() []*ad.Value { return nil }

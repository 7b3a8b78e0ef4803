package nn

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// PPR is approximate personalised-PageRank propagation (APPNP), a linear
// operator without parameters. With teleport t, K steps and a normalised
// adjacency Â:
//
//	h⁰ = x,   hᵏ⁺¹ = (1−t)·Â hᵏ + t·x,
//	PPR(x) = hᴷ = Σ_{k<K} t(1−t)ᵏ Âᵏ x + (1−t)ᴷ Âᴷ x.
//
// The backward pass applies the same recursion with Âᵀ, which is the
// transpose of the polynomial above, so no intermediate state is stored.
type PPR struct {
	Adj      *tensor.CSR // normalised adjacency, messages flow column → row
	adjT     *tensor.CSR
	K        int
	Teleport float64
}

// NewPPR returns the propagation over the normalised adjacency adj.
func NewPPR(adj *tensor.CSR, k int, teleport float64) (*PPR, error) {
	if adj == nil || adj.Rows != adj.Cols {
		return nil, fmt.Errorf("nn.NewPPR: adjacency must be square")
	}
	if k < 0 || teleport < 0 || teleport > 1 {
		return nil, fmt.Errorf("nn.NewPPR: K = %d and teleport = %v out of range (K ≥ 0, 0 ≤ t ≤ 1)", k, teleport)
	}
	return &PPR{Adj: adj, adjT: adj.Transpose(), K: k, Teleport: teleport}, nil
}

// Apply computes dst = PPR(x) on plain matrices.
func (p *PPR) Apply(x *tensor.Dense) *tensor.Dense { return p.recurse(p.Adj, x) }

func (p *PPR) recurse(adj *tensor.CSR, x *tensor.Dense) *tensor.Dense {
	h := x.Clone()
	next := tensor.New(x.Rows, x.Cols)
	t := p.Teleport
	for k := 0; k < p.K; k++ {
		adj.MulTo(next, h)
		nd, xd := next.Data, x.Data
		tensor.ParallelFor(len(nd), len(nd), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				nd[i] = (1-t)*nd[i] + t*xd[i]
			}
		})
		h, next = next, h
	}
	return h
}

// Forward returns PPR(x) on the tape.
func (p *PPR) Forward(tp *ad.Tape, x *ad.Value) *ad.Value {
	if x.Data.Rows != p.Adj.Rows {
		panic(fmt.Sprintf("nn.PPR: input %s on a graph of %d nodes", x.Shape(), p.Adj.Rows))
	}
	out := p.recurse(p.Adj, x.Data)
	return tp.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		grads[0].AddScaled(1, p.recurse(p.adjT, g))
	}, x)
}

// GCN is a graph convolution (Kipf and Welling) y = Â·(x·W) + b with Â the
// symmetric normalisation D^−½(A+I)D^−½; W is Glorot-initialised, b zero.
type GCN struct {
	Adj *tensor.CSR
	Lin *Linear // bias applied after propagation
}

// Forward returns Â(xW) + b.
func (c *GCN) Forward(t *ad.Tape, x *ad.Value) *ad.Value {
	y := t.LeftMul(c.Adj, t.MatMul(x, c.Lin.W))
	if c.Lin.B != nil {
		y = t.Add(y, c.Lin.B)
	}
	return y
}

// Params returns W and b.
func (c *GCN) Params() []*ad.Value { return c.Lin.Params() }

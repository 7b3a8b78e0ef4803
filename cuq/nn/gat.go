package nn

import (
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// GAT is a single-head graph attention layer (Veličković et al., as
// torch_geometric 2.4's GATConv with heads = 1):
//
//	hᵢ = W xᵢ
//	eᵢⱼ = LeakyReLU(a_src·hⱼ + a_dst·hᵢ)      for j ∈ N(i) ∪ {i}
//	αᵢⱼ = exp(eᵢⱼ) / Σ_{k ∈ N(i) ∪ {i}} exp(eᵢₖ)
//	yᵢ = Σⱼ αᵢⱼ hⱼ + b
//
// W, a_src and a_dst are Glorot-initialised and b is zero.
type GAT struct {
	Pattern          *tensor.CSR // adjacency with self loops; row i lists the sources of i
	W                *ad.Value
	ASrc, ADst, B    *ad.Value
	NegativeSlope    float64
	AttentionDropout float64

	dst []int // destination (row) of every stored entry
}

// NewGAT returns a GAT layer from in to out features over pattern, which
// must already contain a self loop at every node. pattern may be nil and set
// later with SetPattern.
func NewGAT(name string, pattern *tensor.CSR, in, out int, rng *rand.Rand) *GAT {
	attBound := math.Sqrt(6 / float64(1+out))
	g := &GAT{
		W:             ad.Param(name+".W", Glorot(rng, in, out)),
		ASrc:          ad.Param(name+".a_src", Uniform(rng, out, 1, attBound)),
		ADst:          ad.Param(name+".a_dst", Uniform(rng, out, 1, attBound)),
		B:             ad.Param(name+".b", tensor.New(1, out)),
		NegativeSlope: 0.2,
	}
	if pattern != nil {
		g.SetPattern(pattern)
	}
	return g
}

// SetPattern sets the graph the layer attends over (self loops included).
func (g *GAT) SetPattern(pattern *tensor.CSR) {
	if g.Pattern == pattern {
		return
	}
	g.Pattern = pattern
	g.dst = make([]int, pattern.NNZ())
	for i := 0; i < pattern.Rows; i++ {
		for k := pattern.Ptr[i]; k < pattern.Ptr[i+1]; k++ {
			g.dst[k] = i
		}
	}
}

// Forward returns the attention-weighted aggregation; rng draws the
// attention dropout when it is positive.
func (g *GAT) Forward(t *ad.Tape, x *ad.Value, rng *rand.Rand) *ad.Value {
	h := t.MatMul(x, g.W)
	e := t.Add(t.GatherRows(t.MatMul(h, g.ASrc), g.Pattern.Ind), t.GatherRows(t.MatMul(h, g.ADst), g.dst))
	alpha := t.SegmentSoftmax(t.LeakyReLU(e, g.NegativeSlope), g.Pattern.Ptr)
	alpha = t.Dropout(alpha, g.AttentionDropout, rng)
	return t.Add(t.SpMMValues(g.Pattern, alpha, h), g.B)
}

// Params returns W, a_src, a_dst and b.
func (g *GAT) Params() []*ad.Value { return []*ad.Value{g.W, g.ASrc, g.ADst, g.B} }

package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// GAT is a multi-head graph attention layer (Veličković et al., as
// torch_geometric 2.4's GATConv). Head k = 0…H−1 has its own block Wᵏ of
// out columns (k·out…(k+1)·out−1) of the shared weight W and its own
// attention vectors a_srcᵏ and a_dstᵏ (row k of ASrc and ADst):
//
//	hᵢᵏ = Wᵏ xᵢ
//	eᵢⱼᵏ = LeakyReLU(a_srcᵏ·hⱼᵏ + a_dstᵏ·hᵢᵏ)      for j ∈ N(i) ∪ {i}
//	αᵢⱼᵏ = exp(eᵢⱼᵏ) / Σ_{l ∈ N(i) ∪ {i}} exp(eᵢₗᵏ)
//
// and the heads are concatenated (H·out features) or averaged (out
// features):
//
//	yᵢ = ∥ₖ Σⱼ αᵢⱼᵏ hⱼᵏ + b           (Concat)
//	yᵢ = (1/H) Σₖ Σⱼ αᵢⱼᵏ hⱼᵏ + b     (mean)
//
// During training the coefficients of every head are dropped with
// probability AttentionDropout. W, a_src and a_dst are Glorot-initialised
// and b is zero. With H = 1 both forms are the single-head layer
// yᵢ = Σⱼ αᵢⱼ W xⱼ + b.
type GAT struct {
	W *ad.Value // in × H·out; columns k·out…(k+1)·out−1 belong to head k
	// ASrc and ADst are H × out: row k is head k's attention vector.
	ASrc, ADst *ad.Value
	B          *ad.Value // 1 × H·out when concatenating, 1 × out when averaging

	Heads, Out       int
	Concat           bool
	NegativeSlope    float64
	AttentionDropout float64
}

// AttentionGraph is the graph a GAT layer attends over, in the layout the
// layer reads: row i of Pattern lists the sources j ∈ N(i) ∪ {i} of node i,
// and dst holds the row i of every stored entry.
type AttentionGraph struct {
	Pattern *tensor.CSR
	dst     []int
}

// NewAttentionGraph returns the attention graph over pattern, a square
// adjacency pattern with a self loop at every node (its values are not
// read). It returns an error if pattern is not square or a node lacks its
// self loop.
func NewAttentionGraph(pattern *tensor.CSR) (*AttentionGraph, error) {
	if pattern.Rows != pattern.Cols {
		return nil, fmt.Errorf("attention pattern is %s, want square", pattern.Shape())
	}
	a := &AttentionGraph{Pattern: pattern, dst: make([]int, pattern.NNZ())}
	for i := 0; i < pattern.Rows; i++ {
		loop := false
		for k := pattern.Ptr[i]; k < pattern.Ptr[i+1]; k++ {
			a.dst[k] = i
			loop = loop || pattern.Ind[k] == i
		}
		if !loop {
			return nil, fmt.Errorf("attention pattern: node %d has no self loop", i)
		}
	}
	return a, nil
}

// NewGAT returns a GAT layer from in features to heads attention heads of
// out features each, concatenated (concat) or averaged.
func NewGAT(name string, in, out, heads int, concat bool, rng *rand.Rand) *GAT {
	if heads < 1 {
		panic(fmt.Sprintf("nn.NewGAT: %d attention heads", heads))
	}
	width := out
	if concat {
		width = heads * out
	}
	g := &GAT{
		W:             ad.Param(name+".W", Glorot(rng, in, heads*out)),
		ASrc:          ad.Param(name+".a_src", Glorot(rng, heads, out)),
		ADst:          ad.Param(name+".a_dst", Glorot(rng, heads, out)),
		B:             ad.Param(name+".b", tensor.New(1, width)),
		Heads:         heads,
		Out:           out,
		Concat:        concat,
		NegativeSlope: 0.2,
	}
	return g
}

// Forward returns the attention-weighted aggregation over the attention
// graph a; rng draws the attention dropout when it is positive.
func (g *GAT) Forward(t *ad.Tape, a *AttentionGraph, x *ad.Value, rng rand.Source) *ad.Value {
	h := t.MatMul(x, g.W)
	heads := make([]*ad.Value, g.Heads)
	for k := range heads {
		hk := t.SliceCols(h, k*g.Out, (k+1)*g.Out)
		alpha := t.SegmentSoftmax(t.LeakyReLU(g.scores(t, a, hk, k), g.NegativeSlope), a.Pattern.Ptr)
		alpha = t.Dropout(alpha, g.AttentionDropout, rng)
		heads[k] = t.SpMMValues(a.Pattern, alpha, hk)
	}
	var y *ad.Value
	if g.Concat {
		y = t.ConcatCols(heads...)
	} else {
		y = meanOf(t, heads)
	}
	return t.Add(y, g.B)
}

// ForwardProjected returns l(y) = y·V + c for the layer's output y and the
// linear layer l with weight V and bias c. Aggregation and projection
// commute, so each head's features are projected before they are
// aggregated,
//
//	l(y)ᵢ = Σₖ Σⱼ αᵢⱼᵏ (hⱼᵏ Vᵏ) + (b·V + c)          (Concat; Vᵏ: head k's rows of V)
//	l(y)ᵢ = (1/H) Σₖ Σⱼ αᵢⱼᵏ (hⱼᵏ V) + (b·V + c)     (mean)
//
// and hᵏ = x·Wᵏ itself is never formed: the projected features and both
// node scores come from one product x·(Wᵏ·[Vᵏ | a_srcᵏ | a_dstᵏ]). The
// sparse aggregations carry l.Out columns instead of the layer's width. It
// agrees with l.Forward(t, g.Forward(t, a, x, rng)) up to rounding (and
// draws the same attention dropout).
func (g *GAT) ForwardProjected(t *ad.Tape, a *AttentionGraph, x *ad.Value, l *Linear, rng rand.Source) *ad.Value {
	if l.In != g.B.Data.Cols {
		panic(fmt.Sprintf("nn.GAT: projection of input size %d after a layer of %d features", l.In, g.B.Data.Cols))
	}
	heads := make([]*ad.Value, g.Heads)
	for k := range heads {
		v := l.W
		if g.Concat && g.Heads > 1 {
			v = t.GatherRows(l.W, g.headRows(k))
		}
		aSrc := t.Transpose(t.GatherRows(g.ASrc, []int{k}))
		aDst := t.Transpose(t.GatherRows(g.ADst, []int{k}))
		wk := t.SliceCols(g.W, k*g.Out, (k+1)*g.Out)
		y := t.MatMul(x, t.MatMul(wk, t.ConcatCols(v, aSrc, aDst)))
		width := l.Out
		sSrc, sDst := t.SliceCols(y, width, width+1), t.SliceCols(y, width+1, width+2)
		e := a.edgeScores(t, sSrc, sDst)
		alpha := t.SegmentSoftmax(t.LeakyReLU(e, g.NegativeSlope), a.Pattern.Ptr)
		alpha = t.Dropout(alpha, g.AttentionDropout, rng)
		heads[k] = t.SpMMValues(a.Pattern, alpha, t.SliceCols(y, 0, width))
	}
	var y *ad.Value
	if g.Concat {
		y = sumOf(t, heads) // the projected blocks of the heads add up
	} else {
		y = meanOf(t, heads)
	}
	return t.Add(y, t.Affine(g.B, l.W, l.B))
}

// edgeScores returns e_l = s_src[j] + s_dst[i] for every stored entry l =
// (i, j) of the attention pattern, given the N×1 node scores. Its
// backward pass adds each entry's gradient to its source's and to its
// destination's, in order of l.
func (a *AttentionGraph) edgeScores(t *ad.Tape, sSrc, sDst *ad.Value) *ad.Value {
	src, dst := a.Pattern.Ind, a.dst
	e := t.Alloc(len(src), 1)
	tensor.ParallelFor(len(src), len(src), func(lo, hi int) {
		for l := lo; l < hi; l++ {
			e.Data[l] = sSrc.Data.Data[src[l]] + sDst.Data.Data[dst[l]]
		}
	})
	return t.Custom(e, func(ge *tensor.Dense, grads []*tensor.Dense) {
		gSrc, gDst := grads[0], grads[1]
		for l, j := range src {
			if gSrc != nil {
				gSrc.Data[j] += ge.Data[l]
			}
			if gDst != nil {
				gDst.Data[dst[l]] += ge.Data[l]
			}
		}
	}, sSrc, sDst)
}

// meanOf returns the mean of the heads' outputs.
func meanOf(t *ad.Tape, heads []*ad.Value) *ad.Value {
	y := sumOf(t, heads)
	if len(heads) > 1 {
		y = t.Scale(y, 1/float64(len(heads)))
	}
	return y
}

// sumOf returns the sum of xs.
func sumOf(t *ad.Tape, xs []*ad.Value) *ad.Value {
	y := xs[0]
	for _, x := range xs[1:] {
		y = t.Add(y, x)
	}
	return y
}

// headRows returns the row indices k·Out…(k+1)·Out−1 of head k's block in
// a weight that follows concatenated heads.
func (g *GAT) headRows(k int) []int {
	rows := make([]int, g.Out)
	for i := range rows {
		rows[i] = k*g.Out + i
	}
	return rows
}

// scores returns head k's raw attention scores a_srcᵏ·hⱼ + a_dstᵏ·hᵢ, one
// per stored entry (i, j) of the attention graph's pattern, for the head's
// features h. It is one op: the node scores h·a_srcᵏ and h·a_dstᵏ are
// gathered onto the edges without intermediate values, and the backward
// pass adds both outer products g·aᵀ into ∂h in place.
func (g *GAT) scores(t *ad.Tape, a *AttentionGraph, h *ad.Value, k int) *ad.Value {
	n, f := h.Data.Rows, h.Data.Cols
	aSrc, aDst := headRow(g.ASrc, k), headRow(g.ADst, k)
	sSrc, sDst := t.AllocUninit(n, 1), t.AllocUninit(n, 1)
	tensor.MulTo(sSrc, h.Data, false, aSrc, false)
	tensor.MulTo(sDst, h.Data, false, aDst, false)
	src, dst := a.Pattern.Ind, a.dst
	e := t.AllocUninit(len(src), 1)
	tensor.ParallelFor(len(src), len(src), func(lo, hi int) {
		for l := lo; l < hi; l++ {
			e.Data[l] = sSrc.Data[src[l]] + sDst.Data[dst[l]]
		}
	})
	return t.Custom(e, func(ge *tensor.Dense, grads []*tensor.Dense) {
		// ∂s_src and ∂s_dst: the edge gradients summed per source and
		// per destination node
		gSrc, gDst := t.Alloc(n, 1), t.Alloc(n, 1)
		for l, j := range src {
			gSrc.Data[j] += ge.Data[l]
			gDst.Data[dst[l]] += ge.Data[l]
		}
		if gh := grads[0]; gh != nil {
			tensor.ParallelFor(n, 2*n*f, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					row, gs, gd := gh.Row(i), gSrc.Data[i], gDst.Data[i]
					for c, a := range aDst.Data {
						row[c] += float64(gd * a)
					}
					for c, a := range aSrc.Data {
						row[c] += float64(gs * a)
					}
				}
			})
		}
		addHeadGrad(grads[1], k, h.Data, gSrc)
		addHeadGrad(grads[2], k, h.Data, gDst)
	}, h, g.ASrc, g.ADst)
}

// headRow returns row k of the H × out attention parameter a as an out × 1
// column sharing its storage.
func headRow(a *ad.Value, k int) *tensor.Dense {
	f := a.Data.Cols
	return &tensor.Dense{Rows: f, Cols: 1, Data: a.Data.Data[k*f : (k+1)*f]}
}

// addHeadGrad adds hᵀ·gs, the gradient of the node scores h·a with respect
// to a, into row k of the attention gradient ga (when ga is not nil).
func addHeadGrad(ga *tensor.Dense, k int, h, gs *tensor.Dense) {
	if ga == nil {
		return
	}
	tmp := tensor.New(h.Cols, 1)
	tensor.MulTo(tmp, h, true, gs, false)
	row := ga.Row(k)
	for c, v := range tmp.Data {
		row[c] += v
	}
}

// Params returns W, a_src, a_dst and b.
func (g *GAT) Params() []*ad.Value { return []*ad.Value{g.W, g.ASrc, g.ADst, g.B} }

// GATConfig configures a GATStack. Its options change it in place and
// return it, for chaining.
type GATConfig struct {
	hidden, layers, heads int
	dropout, attnDropout  float64
	negativeSlope         float64
}

// NewGATConfig returns two single-head GAT layers of the given width per
// head with ELU and dropout 0.5 between them, LeakyReLU slope 0.2 and no
// attention dropout (CUQ-GAT's convolution).
func NewGATConfig(hidden int) *GATConfig {
	return &GATConfig{hidden: hidden, layers: 2, heads: 1, dropout: 0.5, negativeSlope: 0.2}
}

// Layers sets the number of layers.
func (c *GATConfig) Layers(n int) *GATConfig { c.layers = n; return c }

// Dropout sets the dropout probability between layers.
func (c *GATConfig) Dropout(p float64) *GATConfig { c.dropout = p; return c }

// Heads sets the number of attention heads of every layer. The heads of a
// hidden layer are concatenated, so the next layer sees heads·hidden
// features; those of the last layer are averaged (torch_geometric's GATConv
// with concat=False), so the stack's output width stays hidden.
func (c *GATConfig) Heads(n int) *GATConfig { c.heads = n; return c }

// NegativeSlope sets the LeakyReLU slope of the attention scores.
func (c *GATConfig) NegativeSlope(s float64) *GATConfig { c.negativeSlope = s; return c }

// AttentionDropout sets the dropout probability of the attention
// coefficients.
func (c *GATConfig) AttentionDropout(p float64) *GATConfig { c.attnDropout = p; return c }

// New checks the configuration (at least one layer and one head, a positive
// width, dropouts in [0, 1)) and returns the stack, its parameters drawn
// layer by layer from rng.
func (c *GATConfig) New(in int, rng *rand.Rand) (Conv, error) {
	if c.layers < 1 || c.hidden < 1 {
		return nil, fmt.Errorf("%d convolution layers of width %d", c.layers, c.hidden)
	}
	if c.dropout < 0 || c.dropout >= 1 || c.attnDropout < 0 || c.attnDropout >= 1 {
		return nil, fmt.Errorf("convolution dropout %v / attention dropout %v not in [0, 1)", c.dropout, c.attnDropout)
	}
	if c.heads < 1 {
		return nil, fmt.Errorf("%d attention heads; GAT needs at least one", c.heads)
	}
	s := &GATStack{Dropout: c.dropout}
	for l := 0; l < c.layers; l++ {
		concat := l+1 < c.layers
		layer := NewGAT(fmt.Sprintf("gat%d", l), in, c.hidden, c.heads, concat, rng)
		layer.NegativeSlope = c.negativeSlope
		layer.AttentionDropout = c.attnDropout
		s.Layers = append(s.Layers, layer)
		in = layer.B.Data.Cols
	}
	return s, nil
}

// GATStack is a stack of GAT layers with ELU and dropout between them and
// none after the last:
//
//	h⁽ˡ⁺¹⁾ = Dropout(ELU(GAT⁽ˡ⁾(h⁽ˡ⁾)))   for all but the last layer.
//
// The reference implementation also computes a dropout of the input of the
// first layer but discards its result, so none is applied.
type GATStack struct {
	Layers  []*GAT
	Dropout float64
}

// Operator returns the attention graph of adj, an *AttentionGraph: the
// pattern of adj without its self loops plus one self loop per node, as
// GATConv adds them.
func (s *GATStack) Operator(adj *tensor.CSR) (Operator, error) {
	return NewAttentionGraph(graph.AddRemainingSelfLoops(graph.RemoveSelfLoops(adj), 1))
}

// ForwardProjected returns l(y) for the stack's output y; the last layer
// is projected before its aggregation (GAT.ForwardProjected).
func (s *GATStack) ForwardProjected(t *ad.Tape, op Operator, x *ad.Value, l *Linear, rng rand.Source) *ad.Value {
	a := op.(*AttentionGraph)
	last := len(s.Layers) - 1
	for _, layer := range s.Layers[:last] {
		x = t.Dropout(t.ELU(layer.Forward(t, a, x, rng)), s.Dropout, rng)
	}
	return s.Layers[last].ForwardProjected(t, a, x, l, rng)
}

// Width returns the output width of the last layer.
func (s *GATStack) Width() int { return s.Layers[len(s.Layers)-1].B.Data.Cols }

// Params returns the parameters of every layer.
func (s *GATStack) Params() []*ad.Value { return ParamsOf(s.Layers...) }

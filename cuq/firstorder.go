package cuq

import (
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// firstOrder is the family of the APPNP baseline: encoder → class logits →
// APPNP propagation of the logits → softmax. It predicts a categorical
// distribution per node, so it has total uncertainty only.
type firstOrder struct {
	enc    *encoder
	logits *nn.Linear
	prop   nn.APPNPConfig
	ops    cache[*graph.PPR]
}

// newFirstOrder checks the builder's configuration of APPNP and draws its
// parameters from init.
func newFirstOrder(b *Builder, init, dropout *rand.Rand) (family, error) {
	if err := b.checkTraining(); err != nil {
		return nil, err
	}
	if err := b.checkPropagation(); err != nil {
		return nil, err
	}
	_, in := b.g.Features.Dims()
	enc, err := newEncoder(b.encoder, in, init, dropout)
	if err != nil {
		return nil, err
	}
	return &firstOrder{enc: enc, prop: b.prop,
		logits: nn.NewLinear("output", enc.width(), b.g.NumClasses, true, init)}, nil
}

func (f *firstOrder) params() (flows, others []*ad.Value) {
	return nil, append(nn.ParamsOf(f.enc.layers...), f.logits.Params()...)
}

// prepare checks g's features and returns the propagation over its
// adjacency, with the symmetric normalisation D^−½(A+I)D^−½.
func (f *firstOrder) prepare(g *graph.Graph) (*graph.PPR, error) {
	if err := f.enc.check(g); err != nil {
		return nil, err
	}
	return f.ops.get(g.Adj, func(adj *tensor.CSR) (*graph.PPR, error) {
		return graph.NewPPR(graph.SymNorm(adj), f.prop.Teleport, f.prop.K)
	})
}

// forward computes on tape t the log-probabilities log softmax(Π·logits)
// on graph g with propagation prop, one row per node.
func (f *firstOrder) forward(t *ad.Tape, g *graph.Graph, prop *graph.PPR) *ad.Value {
	h := f.enc.forward(t, g)
	return t.LogSoftmax(nn.Propagate(t, prop, f.logits.Forward(t, h)))
}

func (f *firstOrder) fit(g *graph.Graph, split graph.Split, trainY []int) (objective, error) {
	prop, err := f.prepare(g)
	if err != nil {
		return nil, err
	}
	return &firstOrderObjective{f: f, g: g, prop: prop, split: split, trainY: trainY}, nil
}

func (f *firstOrder) output(g *graph.Graph) (*tensor.Dense, error) {
	prop, err := f.prepare(g)
	if err != nil {
		return nil, err
	}
	return f.forward(ad.NewEvalTape(), g, prop).Data, nil
}

// predict gives the softmax probabilities and their categorical measures.
func (f *firstOrder) predict(p *Prediction) error {
	out, err := f.output(p.Graph)
	if err != nil {
		return err
	}
	p.Prob = tensor.New(out.Rows, out.Cols)
	for i, v := range out.Data {
		p.Prob.Data[i] = math.Exp(v)
	}
	p.Measures, err = uq.Categorical(p.Prob.Data, p.Classes)
	return err
}

// firstOrderObjective is APPNP's loss on one split: the mean negative
// log-likelihood of the training labels.
type firstOrderObjective struct {
	f      *firstOrder
	g      *graph.Graph
	prop   *graph.PPR
	split  graph.Split
	trainY []int
}

func (o *firstOrderObjective) loss(t *ad.Tape) *ad.Value {
	return nllLoss(t, o.f.forward(t, o.g, o.prop), o.split.Train, o.trainY)
}

func (o *firstOrderObjective) valProbs() *tensor.Dense {
	out := o.f.forward(ad.NewEvalTape(), o.g, o.prop).Data
	probs := tensor.New(len(o.split.Val), out.Cols)
	for k, i := range o.split.Val {
		for j, v := range out.Row(i) {
			probs.Data[k*out.Cols+j] = math.Exp(v)
		}
	}
	return probs
}
